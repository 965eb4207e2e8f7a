package apidoc

import (
	"encoding/csv"
	"io"
	"path"
	"sort"
	"strings"
)

// pyAPI reads the public API of a Python package from its modules:
// those listed in its wheel RECORD, else the .py files under Dir. The
// public modules' names are followed to their definitions, in private
// modules too (pyexports.go). Source is parsed, never imported or run.
func pyAPI(x *extractor) error {
	all := pyModules(x)
	r := newPyResolver(x, all)
	var public []pyMod
	for _, m := range all {
		if m.public {
			public = append(public, m)
		}
	}
	pyEmit(x, r, public)
	return x.ctx.Err()
}

// pyModule reads one module on its own (its imports lead nowhere): the
// fuzz target's entry.
func pyModule(x *extractor, mod, file, src string) {
	r := newPyResolver(x, []pyMod{{name: mod, file: file, public: true}})
	r.load = func(string) (string, bool) { return src, true }
	pyEmit(x, r, []pyMod{{name: mod, file: file, public: true}})
}

type pyMod struct {
	name, file string
	public     bool // no "_" segment: users import it
	stub       bool // a .pyi beside the module's .py
}

// pyModules lists the package's modules, private ones marked: no tests,
// a .pyi stub beside a .py marked as its stub (read where the .py's
// names are computed: numpy's __all__ is built at import time).
func pyModules(x *extractor) []pyMod {
	var files []string
	if di := x.distInfo(); di != "" {
		data, _, err := x.readFile(di+"/RECORD", false)
		if err != nil {
			x.warn(di+"/RECORD", "not read: %v", cleanErr(err))
		}
		r := csv.NewReader(strings.NewReader(string(data)))
		r.FieldsPerRecord = -1
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				x.warn(di+"/RECORD", "not parsed: %v", err)
				break
			}
			if len(rec) > 0 {
				files = append(files, rec[0])
			}
		}
	} else {
		if names, _ := readDirNames(x.fsys, "."); hasSuffix(names, ".dist-info") {
			// a shared site-packages folder without this package's
			// dist-info: walking it would read every other package
			x.warn("", "no %s dist-info in a site-packages folder: API not read", x.pkg.Name)
			return nil
		}
		skip := func(d string) bool {
			b := path.Base(d)
			if x.pkg.Stdlib {
				return pyStdlibSkip(d)
			}
			switch b {
			case "node_modules", "build", "dist", "site-packages", "venv", "env", "docs", "doc", "examples", "example", "benchmarks":
				return true
			}
			return strings.HasPrefix(b, ".")
		}
		x.walk(".", skip, func(name string) { files = append(files, name) })
	}
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	root := ""
	if !have["__init__.py"] && x.distInfo() == "" {
		if st, err := x.root.Stat("src"); err == nil && st.IsDir() {
			root = "src/"
		}
	}
	var mods []pyMod
	for _, f := range files {
		e := path.Ext(f)
		if e != ".py" && e != ".pyi" {
			continue
		}
		stub := e == ".pyi" && have[strings.TrimSuffix(f, ".pyi")+".py"]
		if strings.HasPrefix(f, "/") || strings.HasPrefix(f, "../") || strings.Contains(f, "/../") || strings.Contains(f, ".dist-info/") {
			continue
		}
		rel := strings.TrimPrefix(f, root)
		if root != "" && rel == f {
			continue // beside src/: setup.py, scripts
		}
		mod := strings.TrimSuffix(rel, e)
		segs := strings.Split(mod, "/")
		if segs[len(segs)-1] == "__init__" {
			segs = segs[:len(segs)-1]
		}
		if len(segs) == 0 || !pyModulePath(segs) || (len(segs) == 1 && (segs[0] == "setup" || segs[0] == "conftest")) {
			continue
		}
		mods = append(mods, pyMod{name: strings.Join(segs, "."), file: f, public: pyPublicPath(segs) && !stub, stub: stub})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].name < mods[j].name })
	return mods
}

// pyModulePath says whether a module may be read at all: no tests, a
// valid name.
func pyModulePath(segs []string) bool {
	for _, s := range segs {
		if s == "" || s == "tests" || s == "test" || strings.HasPrefix(s, "test_") || strings.ContainsAny(s, ".- ") {
			return false
		}
	}
	return true
}

// pyPublicPath says whether users import a module: no "_" segment.
func pyPublicPath(segs []string) bool {
	for _, s := range segs {
		if s == "" || strings.HasPrefix(s, "_") || s == "tests" || s == "test" || strings.HasPrefix(s, "test_") || strings.ContainsAny(s, ".- ") {
			return false
		}
	}
	return true
}

// pyKeyword returns the statement's first keyword (def for async def)
// and the text after it.
func pyKeyword(t string) (string, string) {
	if strings.HasPrefix(t, "@") {
		return "@", t[1:]
	}
	j := 0
	for j < len(t) && isIdentByte(t[j]) {
		j++
	}
	kw, rest := t[:j], t[j:]
	if kw == "async" {
		r := strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(r, "def") && (len(r) == 3 || !isIdentByte(r[3])) {
			return "def", r[3:]
		}
	}
	return kw, rest
}

func pyName(rest string) string {
	rest = strings.TrimLeft(rest, " \t\\\n")
	j := 0
	for j < len(rest) && isIdentByte(rest[j]) && rest[j] != '$' {
		j++
	}
	return rest[:j]
}

func pyPublic(name string, inClass bool, all map[string]bool) bool {
	if inClass {
		return !strings.HasPrefix(name, "_") || name == "__init__" || name == "__call__"
	}
	if all != nil {
		return all[name]
	}
	return !strings.HasPrefix(name, "_")
}

// pyUnindent removes a nested definition's indentation from the lines
// after its first (a multi-line signature).
func pyUnindent(s string, indent int) string {
	if indent == 0 || !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	for k := 1; k < len(lines); k++ {
		n := 0
		for n < indent && n < len(lines[k]) && lines[k][n] == ' ' {
			n++
		}
		if n == indent {
			lines[k] = lines[k][n:]
		}
	}
	return strings.Join(lines, "\n")
}

// pyDocstring returns a string literal's text cleaned as inspect.cleandoc
// does: the first line stripped, the common indentation of the rest
// removed, blank lines around dropped. Escapes are left as written.
func pyDocstring(lit string) string {
	i := 0
	for i < len(lit) && lit[i] != '"' && lit[i] != '\'' {
		i++
	}
	if i >= len(lit) {
		return ""
	}
	q := lit[i:]
	var body string
	switch {
	case strings.HasPrefix(q, `"""`) || strings.HasPrefix(q, "'''"):
		body = strings.TrimSuffix(q[3:], q[:3]) // unterminated at the end of a file: no closing quotes
	default:
		body = strings.TrimSuffix(q[1:], q[:1])
	}
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	lines[0] = strings.TrimSpace(lines[0])
	if len(lines) > 1 {
		rest := dedent(strings.Join(lines[1:], "\n"))
		lines = append(lines[:1], strings.Split(rest, "\n")...)
	}
	for k := range lines {
		lines[k] = strings.TrimRight(lines[k], " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// pyExamples makes an example unit of a docstring's doctest blocks.
func pyExamples(x *extractor, file, name, doc string, line int) {
	var blocks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, ">>>") || (len(cur) > 0 && strings.HasPrefix(t, "...")):
			cur = append(cur, t)
		case len(cur) > 0 && t != "":
			cur = append(cur, t) // expected output
		default:
			flush()
		}
	}
	flush()
	if len(blocks) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("# Example: " + name + "\n\n")
	for _, bl := range blocks {
		b.WriteString(fence("pycon", bl))
	}
	x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: "Example: " + name, Text: b.String(), File: file, Line: line})
}

func hasSuffix(names []string, suffix string) bool {
	for _, n := range names {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
