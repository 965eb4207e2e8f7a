package apidoc

import (
	"encoding/csv"
	"io"
	"path"
	"sort"
	"strings"
)

// pyAPI reads the public modules of a Python package: those listed in
// its wheel RECORD, else the .py files under Dir. Source is parsed, never
// imported or run.
func pyAPI(x *extractor) error {
	for _, m := range pyModules(x) {
		if x.ctx.Err() != nil {
			return x.ctx.Err()
		}
		src, ok := x.source(m.file)
		if !ok {
			continue
		}
		pyModule(x, m.name, m.file, src)
	}
	return nil
}

type pyMod struct{ name, file string }

// pyModules lists public modules: no "_" segment (but __init__), no
// tests, a .pyi stub only when there is no .py beside it.
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
		if e == ".pyi" && have[strings.TrimSuffix(f, ".pyi")+".py"] {
			continue
		}
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
		if len(segs) == 0 || !pyPublicPath(segs) || (len(segs) == 1 && (segs[0] == "setup" || segs[0] == "conftest")) {
			continue
		}
		mods = append(mods, pyMod{name: strings.Join(segs, "."), file: f})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].name < mods[j].name })
	return mods
}

func pyPublicPath(segs []string) bool {
	for _, s := range segs {
		if s == "" || strings.HasPrefix(s, "_") || s == "tests" || s == "test" || strings.HasPrefix(s, "test_") || strings.ContainsAny(s, ".- ") {
			return false
		}
	}
	return true
}

// pyModule reads one module's public functions, classes and methods.
func pyModule(x *extractor, mod, file, src string) {
	lines := pyLines(src)
	li := newLineIndex(src)
	p := &pyParser{x: x, src: src, lines: lines, li: li, file: file, mod: mod}
	all := p.dunderAll()
	if len(lines) > 0 && lines[0].onlyStr && lines[0].indent == 0 {
		if d := pyDocstring(src[lines[0].start:lines[0].str]); d != "" {
			s := Symbol{Name: mod, Kind: SymPackage, Signature: ""}
			x.addAPI("python", s, d, file, li.line(lines[0].start), nil)
		}
	}
	p.block(0, len(lines), 0, mod, false, all, 0)
}

type pyParser struct {
	x     *extractor
	src   string
	lines []pyLine
	li    lineIndex
	file  string
	mod   string
}

func (p *pyParser) text(l pyLine) string { return p.src[l.start:l.end] }

// dunderAll collects the names a module's __all__ lists; nil when it has
// none.
func (p *pyParser) dunderAll() map[string]bool {
	var all map[string]bool
	for _, l := range p.lines {
		if l.indent != 0 {
			continue
		}
		t := p.text(l)
		if !strings.HasPrefix(t, "__all__") {
			continue
		}
		rest := strings.TrimSpace(t[len("__all__"):])
		if !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "+=") && !strings.HasPrefix(rest, ".extend") && !strings.HasPrefix(rest, ".append") && !strings.HasPrefix(rest, ":") {
			continue
		}
		if all == nil {
			all = map[string]bool{}
		}
		for i := 0; i < len(rest); i++ {
			if rest[i] == '"' || rest[i] == '\'' {
				j := pySkipString(rest, i, false, 0)
				if lit := rest[i:j]; len(lit) >= 2 {
					all[strings.Trim(lit, `"'`)] = true
				}
				i = j - 1
			}
		}
	}
	return all
}

// maxPyDepth bounds class nesting.
const maxPyDepth = 16

// block reads lines [i, end) of a scope whose statements sit at indent.
func (p *pyParser) block(i, end, indent int, prefix string, inClass bool, all map[string]bool, depth int) {
	if depth > maxPyDepth {
		return
	}
	seen := map[string]int{} // name → unit index, to merge @overload signatures
	deco := -1
	for i < end && p.x.ctx.Err() == nil {
		l := p.lines[i]
		if l.indent != indent {
			i++
			continue
		}
		t := p.text(l)
		bodyEnd := i + 1
		for bodyEnd < end && p.lines[bodyEnd].indent > indent {
			bodyEnd++
		}
		kw, rest := pyKeyword(t)
		switch kw {
		case "@":
			if deco < 0 {
				deco = i
			}
			i++
			continue
		case "def", "class":
			name := pyName(rest)
			start := l.start
			if deco >= 0 {
				start = p.lines[deco].start
			}
			decorators := ""
			if deco >= 0 {
				decorators = p.src[p.lines[deco].start:l.start]
			}
			deco = -1
			if name == "" || !pyPublic(name, inClass, all) {
				i = bodyEnd
				continue
			}
			sigEnd := l.end
			if l.colon >= 0 {
				sigEnd = l.colon
			}
			sig := pyUnindent(strings.TrimSpace(p.src[start:sigEnd]), indent)
			doc := ""
			if i+1 < bodyEnd && p.lines[i+1].onlyStr {
				doc = pyDocstring(p.src[p.lines[i+1].start:p.lines[i+1].str])
			} else if l.colon >= 0 && l.colon+1 < l.end {
				// a one-line body: def f(): "doc"
				after := strings.TrimSpace(p.src[l.colon+1 : l.end])
				if strings.HasPrefix(after, `"`) || strings.HasPrefix(after, `'`) {
					doc = pyDocstring(after)
				}
			}
			kind := SymFunc
			switch {
			case kw == "class":
				kind = SymClass
			case name == "__init__":
				kind = SymConstructor
			case strings.Contains(decorators, "@property") || strings.Contains(decorators, ".setter") || strings.Contains(decorators, "cached_property"):
				kind = SymProperty
			case inClass:
				kind = SymMethod
			}
			full := prefix + "." + name
			if k, ok := seen[name]; ok {
				// a redefinition: @overload signatures join the first
				// unit; the implementation lends its docstring
				if u := &p.x.docs.Units[k]; k < len(p.x.docs.Units) && u.Symbol != nil && u.Symbol.Name == full &&
					(strings.Contains(decorators, "overload") || strings.Contains(u.Symbol.Signature, "overload")) {
					if strings.Contains(decorators, "overload") {
						u.Symbol.Signature += "\n" + sig
					}
					if u.Doc == "" && doc != "" {
						u.Doc = doc
					}
					u.Text = apiMarkdown("python", *u.Symbol, u.Doc, nil)
				}
				i = bodyEnd
				continue
			}
			s := Symbol{Name: full, Kind: kind, Signature: sig}
			line := p.li.line(start)
			if p.x.addAPI("python", s, doc, p.file, line, nil) {
				seen[name] = len(p.x.docs.Units) - 1
			}
			p.examples(full, doc, line)
			if kw == "class" && i+1 < bodyEnd {
				p.block(i+1, bodyEnd, p.lines[i+1].indent, full, true, nil, depth+1)
			}
			i = bodyEnd
			continue
		case "if", "elif", "else", "try", "except", "finally", "with":
			// conditional definitions stay in this scope
			if !inClass && i+1 < bodyEnd {
				p.block(i+1, bodyEnd, p.lines[i+1].indent, prefix, inClass, all, depth+1)
			}
		}
		deco = -1
		i = bodyEnd
	}
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

// examples makes example units of a docstring's doctest blocks.
func (p *pyParser) examples(name, doc string, line int) {
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
	p.x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: "Example: " + name, Text: b.String(), File: p.file, Line: line})
}

func hasSuffix(names []string, suffix string) bool {
	for _, n := range names {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
