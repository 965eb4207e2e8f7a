package apidoc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Ecosystems Extract reads.
const (
	Go     = "go"
	NPM    = "npm"
	Python = "python"
	Rust   = "rust"
	Swift  = "swift"
)

// Package names one installed package version: Dir is its unpacked
// source (a module cache folder, node_modules/x, a site-packages folder
// holding x's dist-info, a Cargo registry source folder, a Swift checkout).
type Package struct {
	Ecosystem string
	Name      string
	Version   string
	Dir       string
	// TypesDir is, for npm, an installed @types package declaring this
	// one's API (node_modules/@types/express for express): read, as a
	// second root, when the package ships no declarations of its own.
	// TypesFrom names it ("@types/express@4.17.21") in the units.
	TypesDir  string
	TypesFrom string
	// Stdlib marks a standard library (Dir: GOROOT/src, Python's Lib,
	// @types/node, rust-src's library folder): import paths start at
	// Dir, and the limits are a toolchain's (stdlibLimits).
	Stdlib bool
	// Interpreter is, for a Python standard library, the interpreter
	// asked for its built-in types and functions (pybuiltins.go).
	Interpreter string
}

// Limits bound what one package may cost. Zero fields take the defaults.
type Limits struct {
	// MaxFileBytes is the most read of one file (default 4 MiB); a longer
	// source is parsed up to it, a longer README or doc is skipped, and
	// either is reported in Warnings.
	MaxFileBytes int64
	// MaxTotalBytes is the most read for one package (default 64 MiB).
	MaxTotalBytes int64
	// MaxFiles is the most files parsed for one package (default 5000).
	MaxFiles int
	// MaxUnits is the most units kept for one package (default 10000).
	MaxUnits int
}

func (l Limits) norm() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = 4 << 20
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 64 << 20
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = 5000
	}
	if l.MaxUnits <= 0 {
		l.MaxUnits = 10000
	}
	return l
}

// Docs is what one package version contributes to the index.
type Docs struct {
	Package Package
	Meta    Meta
	// Units are the searchable documents: the README first, then doc
	// files, examples and API items. Paths are unique.
	Units []Unit
	// Warnings name what was skipped or cut; they never stop the package.
	Warnings []Warning
}

// Meta is what the package's own files say about it.
type Meta struct {
	Summary    string
	License    string
	Homepage   string
	Repository string
}

// Unit kinds.
const (
	KindReadme  = "readme"
	KindDoc     = "doc"
	KindExample = "example"
	KindAPI     = "api"
)

// Unit is one searchable document of a package.
type Unit struct {
	// Kind is KindReadme, KindDoc, KindExample or KindAPI.
	Kind string
	// Path is stable across runs and unique in the package:
	// "readme.md", "docs/guide.md", "examples/basic.go",
	// "example/ExampleGenMan", "api/Command.PersistentFlags".
	Path string
	// Title is a heading for results: the symbol, or the file's first heading.
	Title string
	// Text is the Markdown indexed and served.
	Text string
	// Symbol is set on API items.
	Symbol *Symbol
	// Doc is the item's doc comment, comment markers removed.
	Doc string
	// File is the source file, slash-separated and relative to Dir.
	File string
	// Line is 1-based; 0 when the unit is a whole file.
	Line int
}

// Symbol describes one API item.
type Symbol struct {
	// Name is qualified the way the language writes it: "Command.Execute",
	// "requests.sessions.Session.get", "de::Deserializer", "Command.option".
	Name string
	// Kind is one of the Sym* constants.
	Kind string
	// Signature is the declaration as written, bodies removed; overloads
	// are separated by newlines.
	Signature string
}

// Symbol kinds.
const (
	SymPackage     = "package" // a Go package, Python or Rust module doc
	SymFunc        = "func"
	SymMethod      = "method"
	SymType        = "type"
	SymClass       = "class"
	SymInterface   = "interface"
	SymStruct      = "struct"
	SymEnum        = "enum"
	SymTrait       = "trait"
	SymProtocol    = "protocol"
	SymConst       = "const"
	SymVar         = "var"
	SymProperty    = "property"
	SymConstructor = "constructor"
	SymNamespace   = "namespace"
	SymMacro       = "macro"
	SymExtension   = "extension"
	// SymReexport is a name re-exported from another package, whose own
	// docs are that package's: its kind is not read.
	SymReexport = "reexport"
)

// Warning is one file or item left out or cut.
type Warning struct {
	File string
	Msg  string
}

func (w Warning) String() string {
	if w.File == "" {
		return w.Msg
	}
	return w.File + ": " + w.Msg
}

// ErrUnknownEcosystem is returned for an ecosystem Extract does not read.
var ErrUnknownEcosystem = errors.New("unknown ecosystem")

// Extract reads one package version's docs: metadata, README, doc and
// example files and the public API. It reads only inside p.Dir, never
// follows a link out of it, and never runs the package's code. One bad
// file becomes a Warning; an error means the package could not be read at
// all (no Dir, unknown ecosystem, ctx done).
func Extract(ctx context.Context, p Package, lim Limits) (*Docs, error) {
	var api func(*extractor) error
	switch p.Ecosystem {
	case Go:
		api = goAPI
	case NPM:
		api = tsAPI
	case Python:
		api = pyAPI
	case Rust:
		api = rustAPI
	case Swift:
		api = swiftAPI
	default:
		return nil, fmt.Errorf("extract %s %s: %w %q", p.Name, p.Version, ErrUnknownEcosystem, p.Ecosystem)
	}
	if p.Stdlib && p.Ecosystem == NPM {
		api = nodeStdlibAPI
	}
	root, err := os.OpenRoot(p.Dir)
	if err != nil {
		return nil, fmt.Errorf("extract %s %s: %w", p.Name, p.Version, err)
	}
	defer root.Close()
	if p.Stdlib {
		lim = stdlibLimits(lim)
	}
	x := &extractor{ctx: ctx, pkg: p, lim: lim.norm(), root: root, fsys: root.FS(), paths: map[string]int{}}
	x.docs = &Docs{Package: p}
	if p.Stdlib && p.Ecosystem == Rust {
		x.pkg.Name = "std" // rust-src's library/std: paths are std::...
	}
	metadata(x)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x.readme()
	x.docFiles()
	if err := api(x); err != nil {
		return nil, fmt.Errorf("extract %s %s: %w", p.Name, p.Version, err)
	}
	if p.Stdlib && p.Ecosystem == Python && p.Interpreter != "" {
		pyBuiltins(x)
	}
	x.readmeDocs()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("extract %s %s: %w", p.Name, p.Version, err)
	}
	if x.docs.Meta.Summary == "" {
		x.docs.Meta.Summary = x.readmeSummary
	}
	sort.SliceStable(x.docs.Units, func(i, j int) bool {
		return kindRank(x.docs.Units[i].Kind) < kindRank(x.docs.Units[j].Kind)
	})
	return x.docs, nil
}

func kindRank(k string) int {
	switch k {
	case KindReadme:
		return 0
	case KindDoc:
		return 1
	case KindExample:
		return 2
	}
	return 3
}

// extractor carries one Extract call's state.
type extractor struct {
	ctx           context.Context
	pkg           Package
	lim           Limits
	root          *os.Root
	fsys          fs.FS
	docs          *Docs
	read          int64 // bytes read so far
	files         int   // source files parsed so far
	paths         map[string]int
	full          bool // MaxUnits reached and reported
	readmeSummary string
	readmeText    string // README kept elsewhere (a wheel's METADATA body)
	readmeKind    string // "md", "rst" or "txt"
	readmeFrom    string // the file readmeText came from
	pj            *packageJSON
	pyDist        *string
	// filePrefix and apiNote mark API units read from another root
	// (an @types package): their File is "@types/express/index.d.ts"
	// and their text says where the types came from.
	filePrefix string
	apiNote    string
}

func (x *extractor) warn(file, format string, args ...any) {
	const maxWarnings = 200
	if len(x.docs.Warnings) == maxWarnings {
		x.docs.Warnings = append(x.docs.Warnings, Warning{Msg: "more warnings left out"})
	}
	if len(x.docs.Warnings) > maxWarnings {
		return
	}
	x.docs.Warnings = append(x.docs.Warnings, Warning{File: file, Msg: fmt.Sprintf(format, args...)})
}

// add keeps u, making its Path unique ("~2" for a second item of the same
// name, as with Rust impls in two modules), until MaxUnits.
func (x *extractor) add(u Unit) bool {
	if len(x.docs.Units) >= x.lim.MaxUnits {
		if !x.full {
			x.full = true
			x.warn("", "unit limit %d reached: the rest of the package is left out", x.lim.MaxUnits)
		}
		return false
	}
	n := x.paths[u.Path]
	x.paths[u.Path] = n + 1
	if n > 0 {
		u.Path = fmt.Sprintf("%s~%d", u.Path, n+1)
	}
	x.docs.Units = append(x.docs.Units, u)
	return true
}

// addAPI adds an API item, its Markdown made from signature, doc and
// examples.
func (x *extractor) addAPI(lang string, s Symbol, doc, file string, line int, examples []string) bool {
	text := apiMarkdown(lang, s, doc, examples)
	if x.apiNote != "" {
		text += "\n" + x.apiNote + "\n"
	}
	return x.add(Unit{
		Kind:   KindAPI,
		Path:   "api/" + s.Name,
		Title:  s.Name,
		Text:   text,
		Symbol: &s,
		Doc:    doc,
		File:   x.filePrefix + file,
		Line:   line,
	})
}

func apiMarkdown(lang string, s Symbol, doc string, examples []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", s.Name, s.Kind)
	if s.Signature != "" {
		b.WriteString(fence(lang, s.Signature))
	}
	if doc != "" {
		b.WriteString(doc)
		if !strings.HasSuffix(doc, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	for i, e := range examples {
		if i == 0 {
			b.WriteString("## Examples\n\n")
		}
		b.WriteString(e)
		if !strings.HasSuffix(e, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// fence wraps code in a fence longer than any backtick run inside it.
func fence(lang, code string) string {
	f := "```"
	for strings.Contains(code, f) {
		f += "`"
	}
	return f + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + f + "\n\n"
}

func ext(name string) string { return strings.ToLower(path.Ext(name)) }
