package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"strings"

	"github.com/tdewolff/parse/v2/js"
)

// The API of an npm package that ships no declarations, read from its
// JavaScript: the entry module's exports (ESM export forms, CommonJS
// module.exports / exports.x / Object.defineProperty(exports, …)),
// followed through relative imports and requires inside the package,
// each item documented by the JSDoc before its definition.

// Bounds: a package's JavaScript is read statically, and a hostile or
// generated one must cost little.
const (
	// maxJSBytes is the largest .js file parsed: lodash.js, the biggest
	// hand-written entry met, is 544 kB; past 4 MiB a file is a bundle or
	// generated, and is skipped whole (a cut file would not parse).
	maxJSBytes = 4 << 20
	// maxJSDepth bounds require/re-export chains and value resolution.
	maxJSDepth = 16
	// maxJSMembers bounds the members listed under one value.
	maxJSMembers = 2000
	// minifiedLine: a file whose average line is longer than this is
	// minified: its names are read, its comments are gone.
	minifiedLine = 500
)

// jsVal is what one exported name is, as far as reading tells.
type jsVal struct {
	kind    string
	sig     string
	doc     string
	file    string
	line    int
	members []jsMember
	have    map[string]bool
	// fn and mod are a function's declaration and module: a call of it
	// is what it returns
	fn  *js.FuncDecl
	mod *jsMod
}

type jsMember struct {
	name  string
	val   *jsVal
	proto bool // a prototype (instance) member, not a property of v itself
}

func (v *jsVal) addMember(name string, m *jsVal) {
	v.addMemberOf(name, m, false)
}

func (v *jsVal) addMemberOf(name string, m *jsVal, proto bool) {
	if v.have == nil {
		v.have = map[string]bool{}
	}
	if v.have[name] || m == nil || m == v || len(v.members) >= maxJSMembers {
		return
	}
	v.have[name] = true
	v.members = append(v.members, jsMember{name, m, proto})
}

// jsReader reads one package's JavaScript modules.
type jsReader struct {
	x    *extractor
	mods map[string]*jsMod // nil while a module is being read: a cycle
	// covered are the top-level names the @types package already
	// documents ("json" for its "e.json"): not listed again. A covered
	// name the types declare no member of (`var response: Response`,
	// typed in another @types package) keeps the JavaScript's members
	// (response.send), which no other package of the project documents.
	covered map[string]bool
	// typed are the covered names the types list members of.
	typed map[string]bool
}

// jsAPI reads the package's API from its JavaScript entry point. After
// an @types package was read (supplement), it adds only the exported
// names the types did not declare at the top (debug's types declare
// `enable` as a member of an interface, its JavaScript as an export).
func jsAPI(x *extractor, why string, supplement bool) {
	entry := jsEntry(x)
	if entry == "" {
		if !supplement {
			x.warn("", "%s, and no JavaScript entry (exports, main, module, index.js): API not indexed", why)
		}
		return
	}
	r := &jsReader{x: x, mods: map[string]*jsMod{}}
	if supplement {
		// covered: a top-level name, or a member of a namespace or value
		// (express's `e.json`), not of an interface or class (lodash's
		// `LoDashStatic.chunk` is no export named chunk)
		kinds := map[string]string{}
		for _, u := range x.docs.Units {
			if u.Symbol != nil {
				kinds[u.Symbol.Name] = u.Symbol.Kind
			}
		}
		r.covered, r.typed = map[string]bool{}, map[string]bool{}
		for n := range kinds {
			head, tail, ok := strings.Cut(n, ".")
			switch {
			case !ok:
				r.covered[n] = true
			case !strings.Contains(tail, "."):
				if k := kinds[head]; k != SymInterface && k != SymClass && k != SymType {
					r.covered[tail] = true
				}
			}
		}
		for n := range kinds {
			// "e.response.x" gives "response" members, "Debug.x" "Debug"'s
			parts := strings.Split(n, ".")
			for i := 1; i < len(parts); i++ {
				r.typed[parts[i-1]] = true
			}
		}
	}
	m := r.module(entry, 0)
	if m == nil {
		return
	}
	exp := m.exportsVal(0)
	if exp == nil {
		x.warn(entry, "no exports found: API not indexed")
		return
	}
	if exp.kind != SymNamespace {
		// module.exports = fn: require() returns it; it is named after
		// the package, with its instance members; its own properties
		// are the exports listed below
		self := *exp
		self.members = nil
		for _, mb := range exp.members {
			if mb.proto {
				self.members = append(self.members, mb)
			}
		}
		r.emit(jsIdent(x.pkg.Name), &self, 0)
	}
	for _, mb := range exp.members {
		if !mb.proto || exp.kind == SymNamespace {
			r.emit(mb.name, mb.val, 0)
		}
	}
}

// emit adds one item and its members.
func (r *jsReader) emit(name string, v *jsVal, depth int) {
	if depth > 3 || r.x.ctx.Err() != nil {
		return
	}
	if depth == 0 && r.covered[name] {
		if !r.typed[name] {
			for _, mb := range v.members {
				r.emit(name+"."+mb.name, mb.val, depth+1)
			}
		}
		return
	}
	sig := v.sig
	if sig == "" {
		sig = name
	}
	var exs []string
	if v.doc != "" {
		t := parseJSDoc(v.doc)
		if t.private && depth > 0 {
			// a member its author marked @private, @ignore or @api
			// private (express's app.lazyrouter): reachable, not API;
			// an export stays whatever its doc says
			return
		}
		short := name[strings.LastIndex(name, ".")+1:]
		if typed := t.typedSig(short); typed != "" && (v.kind == SymFunc || v.kind == SymMethod || v.kind == SymClass || v.kind == SymConstructor) {
			sig += "\n" + typed
		}
		exs = jsdocExamples(v.doc)
	}
	if !r.x.addAPI("js", Symbol{Name: name, Kind: v.kind, Signature: sig}, v.doc, v.file, v.line, nil) {
		return
	}
	if len(exs) > 0 {
		text := "# Example: " + name + "\n\n" + strings.Join(exs, "\n\n") + "\n"
		r.x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: "Example: " + name, Text: text, File: v.file, Line: v.line})
	}
	for _, mb := range v.members {
		r.emit(name+"."+mb.name, mb.val, depth+1)
	}
}

// jsIdent makes a package name an identifier: "@scope/my-lib" → "myLib".
func jsIdent(name string) string {
	name = name[strings.LastIndex(name, "/")+1:]
	var b strings.Builder
	up := false
	for _, c := range name {
		switch {
		case c == '-' || c == '.' || c == '_' && b.Len() == 0:
			up = b.Len() > 0
		case up:
			b.WriteString(strings.ToUpper(string(c)))
			up = false
		default:
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "default"
	}
	return b.String()
}

// jsEntry finds the module require() or import gives: the "." export
// (conditions node, require, import, default), main, module, index.js.
func jsEntry(x *extractor) string {
	pj := x.packageJSON()
	var cands []string
	cands = append(cands, exportTargets(pj.Exports)...)
	for _, c := range []string{pj.Main, pj.Module, "index.js", "index.mjs", "index.cjs"} {
		if c != "" {
			cands = append(cands, c)
		}
	}
	for _, c := range cands {
		if f := jsResolve(x, ".", "./"+strings.TrimPrefix(c, "./")); f != "" {
			return f
		}
	}
	return ""
}

// exportTargets lists the JavaScript targets of the "." export.
func exportTargets(raw json.RawMessage) []string {
	return dotExport(raw, []string{"node", "require", "import", "default"}, func(_, target string) bool {
		return !strings.Contains(target, ".d.")
	})
}

// jsResolve maps a relative specifier to a .js file inside the package
// as Node does (the file, then .js/.cjs/.mjs/.json, then a folder's
// index.js); "" for another package, a path out of this one, or nothing.
func jsResolve(x *extractor, dir, spec string) string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return ""
	}
	p := path.Join(dir, spec)
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	for _, c := range []string{p, p + ".js", p + ".cjs", p + ".mjs", p + "/index.js", p + "/index.cjs", p + "/index.mjs"} {
		if e := ext(c); e != ".js" && e != ".cjs" && e != ".mjs" {
			continue
		}
		if st, err := x.root.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// module parses one file once; nil when it cannot be read or parsed
// (warned), or while it is being read (a circular require).
func (r *jsReader) module(name string, depth int) *jsMod {
	if m, ok := r.mods[name]; ok {
		return m
	}
	if depth > maxJSDepth || r.x.ctx.Err() != nil {
		return nil
	}
	r.mods[name] = nil
	src, ok := r.jsSource(name)
	if !ok {
		return nil
	}
	m, err := parseJSMod(name, src)
	if errors.Is(err, errJSTooDeep) {
		r.x.warn(name, "%v: not parsed", err)
		return nil
	}
	if err != nil {
		r.x.warn(name, "%v: not read", err)
		return nil
	}
	m.r, m.depth = r, depth
	r.mods[name] = m
	return m
}

// jsSource reads a .js file whole, or warns why not.
func (r *jsReader) jsSource(name string) ([]byte, bool) {
	x := r.x
	if x.files >= x.lim.MaxFiles {
		return nil, false
	}
	x.files++
	if st, err := x.root.Stat(name); err == nil && st.Size() > maxJSBytes {
		x.warn(name, "%.1f MB, over the %d MiB limit for a JavaScript file (a bundle or generated code): not parsed", float64(st.Size())/1e6, maxJSBytes>>20)
		return nil, false
	}
	data, _, err := x.readFile(name, false)
	if err != nil {
		x.warn(name, "not read: %v", cleanErr(err))
		return nil, false
	}
	if isBinary(data) {
		x.warn(name, "binary content: left out")
		return nil, false
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; len(data) > 4096 && len(data)/lines > minifiedLine {
		x.warn(name, "minified (%d bytes on %d lines): names only, no docs", len(data), lines)
	}
	return []byte(validUTF8(x, name, data)), true
}
