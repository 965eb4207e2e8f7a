package apidoc

import (
	"regexp"
	"strings"
)

// One Python module read statically: its definitions (functions,
// classes and their members, top-level variables) and what each
// top-level name is bound to (a definition, an import, a lazy-import
// table entry), which the re-export resolver (pyexports.go) follows.

// pyItem is one definition, named relative to its module ("Client",
// "Client.get").
type pyItem struct {
	name, kind, sig, doc string
	line                 int
}

// Binding kinds.
const (
	pyBindItem   = iota // a definition of this module: item
	pyBindImport        // from mod import attr (attr "" : import mod)
)

// pyBinding is what a top-level name is bound to.
type pyBinding struct {
	kind int
	item int    // pyBindItem: index in items
	mod  string // pyBindImport: the absolute module name
	attr string // pyBindImport: the name in mod; "" for the module itself
	stmt string // pyBindImport: the statement as written
	// explicit: `from m import a as a`, the typing convention for a
	// re-export
	explicit bool
}

// pySrc is one parsed module.
type pySrc struct {
	name, file string
	pkg        bool // an __init__: relative imports start at itself
	doc        string
	docLine    int
	items      []pyItem
	binds      map[string]pyBinding
	order      []string // bound names, first binding order
	all        []string // __all__ in order
	hasAll     bool
	allRefs    []string // modules whose __all__ this one's adds: set(_core.__all__)
	allCalc    bool     // __all__ is computed, not only listed
	stars      []string // modules star-imported, absolute, in order
	lazy       []pyLazy // dict entries of a lazy-import table
	getattr    bool     // a module __getattr__ is defined
	stub       bool     // a .pyi read beside its .py
}

// pyLazy is one entry of a lazy-import table: name → module (absolute
// or relative to the module's package), attr ("" : the name itself,
// "__module__": the submodule name).
type pyLazy struct {
	name, mod, attr string
}

func (m *pySrc) bind(name string, b pyBinding) {
	if _, ok := m.binds[name]; ok {
		return // the first binding wins: try/except and if/else fallbacks come later
	}
	m.binds[name] = b
	m.order = append(m.order, name)
}

// pyParse reads a module's source.
func pyParse(x *extractor, mod, file, src string, pkg bool) *pySrc {
	m := &pySrc{name: mod, file: file, pkg: pkg, binds: map[string]pyBinding{}}
	lines := pyLines(src)
	li := newLineIndex(src)
	p := &pyParser{x: x, src: src, lines: lines, li: li, file: file, mod: m}
	if len(lines) > 0 && lines[0].onlyStr && lines[0].indent == 0 {
		m.doc = pyDocstring(src[lines[0].start:lines[0].str])
		m.docLine = li.line(lines[0].start)
	}
	p.block(0, len(lines), 0, "", false, 0)
	return m
}

type pyParser struct {
	x     *extractor
	src   string
	lines []pyLine
	li    lineIndex
	file  string
	mod   *pySrc
}

func (p *pyParser) text(l pyLine) string { return p.src[l.start:l.end] }

// maxPyDepth bounds class nesting.
const maxPyDepth = 16

// block reads lines [i, end) of a scope whose statements sit at indent;
// prefix is the enclosing class's relative name ("" at module level).
func (p *pyParser) block(i, end, indent int, prefix string, inClass bool, depth int) {
	if depth > maxPyDepth {
		return
	}
	top := prefix == ""
	seen := map[string]int{} // name → item index, to merge @overload signatures
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
			decorators := ""
			if deco >= 0 {
				start = p.lines[deco].start
				decorators = p.src[p.lines[deco].start:l.start]
			}
			deco = -1
			if top && name == "__getattr__" {
				p.mod.getattr = true
			}
			if name == "" || !pyPublic(name, inClass, nil) {
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
			full := name
			if prefix != "" {
				full = prefix + "." + name
			}
			if k, ok := seen[name]; ok {
				// a redefinition: @overload signatures join the first
				// item; the implementation lends its docstring
				if it := &p.mod.items[k]; it.name == full &&
					(strings.Contains(decorators, "overload") || strings.Contains(it.sig, "overload")) {
					if strings.Contains(decorators, "overload") {
						it.sig += "\n" + sig
					}
					if it.doc == "" && doc != "" {
						it.doc = doc
					}
				}
				i = bodyEnd
				continue
			}
			if len(p.mod.items) >= p.x.lim.MaxUnits {
				return
			}
			seen[name] = len(p.mod.items)
			p.mod.items = append(p.mod.items, pyItem{name: full, kind: kind, sig: sig, doc: doc, line: p.li.line(start)})
			if top {
				p.mod.bind(name, pyBinding{kind: pyBindItem, item: len(p.mod.items) - 1})
			}
			if kw == "class" && i+1 < bodyEnd {
				p.block(i+1, bodyEnd, p.lines[i+1].indent, full, true, depth+1)
			}
			i = bodyEnd
			continue
		case "if", "elif", "else", "try", "except", "finally", "with":
			// conditional definitions stay in this scope, but a module's
			// `if __name__ == "__main__":` block is a script: what it
			// defines never exists when the module is imported
			if top && kw == "if" && l.colon >= 0 && pyMainGuard(p.src[l.start:l.colon]) {
				break
			}
			if !inClass && i+1 < bodyEnd {
				p.block(i+1, bodyEnd, p.lines[i+1].indent, prefix, inClass, depth+1)
			}
		case "from", "import":
			if top {
				p.imports(kw, rest, t)
			}
		default:
			if top {
				p.assign(i, bodyEnd, t)
			}
		}
		deco = -1
		i = bodyEnd
	}
}

// pyMainGuard reports whether head, an if statement up to its ":",
// holds only when the module runs as a script: `__name__ == "__main__"`
// (either side, either quote, in parentheses or not), alone or as one
// term of an `and` (rich's ansi.py: `sys.platform != "win32" and …`).
func pyMainGuard(head string) bool {
	cond := strings.TrimPrefix(head, "if")
	for _, term := range pyAndTerms.Split(cond, -1) {
		term = strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '(', ')', '\\', '\n', '\r':
				return -1
			case '\'':
				return '"'
			}
			return r
		}, term)
		if term == `__name__=="__main__"` || term == `"__main__"==__name__` {
			return true
		}
	}
	return false
}

// pyAndTerms splits a condition at its `and` operators.
var pyAndTerms = regexp.MustCompile(`\band\b`)

// maxPyStmt bounds the text kept of an import or a variable's statement.
const maxPyStmt = 400

// imports records `from M import a, b as c`, `from M import *` and
// `import a.b as c`.
func (p *pyParser) imports(kw, rest, stmt string) {
	rest = pyStripComments(rest)
	if kw == "import" {
		for _, part := range strings.Split(rest, ",") {
			f := strings.Fields(part)
			if len(f) == 3 && f[1] == "as" && pyIdent(f[2]) {
				p.mod.bind(f[2], pyBinding{kind: pyBindImport, mod: f[0], stmt: cutText(stmt, maxPyStmt)})
			}
		}
		return
	}
	from, names, ok := strings.Cut(rest, " import")
	if !ok {
		from, names, ok = strings.Cut(rest, "\timport")
	}
	if !ok {
		return
	}
	mod := p.absModule(strings.TrimSpace(from))
	if mod == "" {
		return
	}
	names = strings.TrimSpace(names)
	names = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(names, "("), ")"))
	if names == "*" {
		p.mod.stars = append(p.mod.stars, mod)
		return
	}
	for _, part := range strings.Split(names, ",") {
		f := strings.Fields(part)
		switch {
		case len(f) == 1 && pyIdent(f[0]):
			p.mod.bind(f[0], pyBinding{kind: pyBindImport, mod: mod, attr: f[0], stmt: cutText(stmt, maxPyStmt)})
		case len(f) == 3 && f[1] == "as" && pyIdent(f[0]) && pyIdent(f[2]):
			p.mod.bind(f[2], pyBinding{kind: pyBindImport, mod: mod, attr: f[0], stmt: cutText(stmt, maxPyStmt), explicit: f[0] == f[2]})
		}
	}
}

// absModule makes `from`'s module absolute: ".x" is relative to this
// module's package.
func (p *pyParser) absModule(from string) string {
	level := 0
	for level < len(from) && from[level] == '.' {
		level++
	}
	rel := from[level:]
	if rel != "" && !pyDotted(rel) {
		return ""
	}
	if level == 0 {
		return rel
	}
	base := p.mod.name
	if !p.mod.pkg {
		base = pyParent(base)
	}
	for k := 1; k < level; k++ {
		base = pyParent(base)
	}
	switch {
	case base == "":
		return rel
	case rel == "":
		return base
	}
	return base + "." + rel
}

// assign reads a top-level assignment: __all__, an alias (`X = Y`), a
// variable, a lazy-import table; a string right after a variable is its
// doc (the attribute docstring convention).
func (p *pyParser) assign(i, bodyEnd int, t string) {
	j := 0
	for j < len(t) && isIdentByte(t[j]) && t[j] != '$' {
		j++
	}
	name := t[:j]
	rest := strings.TrimLeft(t[j:], " \t")
	if name == "" || strings.HasPrefix(rest, "==") {
		return
	}
	if name == "__all__" {
		p.dunderAll(rest)
		return
	}
	// a chain of names: s = attributes = attrs
	if parts := strings.Split(t, "="); len(parts) >= 3 {
		chain := true
		for _, x := range parts {
			chain = chain && pyIdent(strings.TrimSpace(x))
		}
		if chain {
			value := strings.TrimSpace(parts[len(parts)-1])
			for _, x := range parts[:len(parts)-1] {
				if n := strings.TrimSpace(x); n != value && !strings.HasPrefix(n, "_") {
					p.mod.bind(n, pyBinding{kind: pyBindImport, mod: p.mod.name, attr: value, stmt: cutText(t, maxPyStmt)})
				}
			}
			return
		}
	}
	var value string
	switch {
	case strings.HasPrefix(rest, "="):
		value = strings.TrimSpace(rest[1:])
	case strings.HasPrefix(rest, ":"):
		_, v, ok := strings.Cut(rest, "=")
		if !ok && !strings.HasSuffix(p.file, ".pyi") {
			return // an annotation alone binds nothing (in a stub it declares)
		}
		value = strings.TrimSpace(v)
	default:
		return
	}
	if strings.HasPrefix(value, "{") {
		p.lazyTable(value)
	}
	if strings.HasPrefix(name, "_") {
		return
	}
	if pyIdent(value) && value != name && value != "None" && value != "True" && value != "False" {
		// an alias of another name of this module (or one it imports)
		p.mod.bind(name, pyBinding{kind: pyBindImport, mod: p.mod.name, attr: value, stmt: cutText(t, maxPyStmt)})
		return
	}
	if len(p.mod.items) >= p.x.lim.MaxUnits {
		return
	}
	doc := ""
	if bodyEnd < len(p.lines) && p.lines[bodyEnd].onlyStr && p.lines[bodyEnd].indent == p.lines[i].indent {
		doc = pyDocstring(p.src[p.lines[bodyEnd].start:p.lines[bodyEnd].str])
	}
	p.mod.items = append(p.mod.items, pyItem{name: name, kind: SymVar, sig: cutText(t, maxPyStmt), doc: doc, line: p.li.line(p.lines[i].start)})
	p.mod.bind(name, pyBinding{kind: pyBindItem, item: len(p.mod.items) - 1})
}

// dunderAll reads `__all__ = [...]`, `+= (...)`, `.extend([...])`,
// `.append("x")`: the string literals listed.
func (p *pyParser) dunderAll(rest string) {
	if !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "+=") && !strings.HasPrefix(rest, ".extend") && !strings.HasPrefix(rest, ".append") && !strings.HasPrefix(rest, ":") {
		return
	}
	if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
		p.mod.all = p.mod.all[:0] // a new list replaces the old
	}
	p.mod.hasAll = true
	for _, lit := range pyStrings(rest) {
		if pyIdent(lit) {
			p.mod.all = append(p.mod.all, lit)
		}
	}
	// what is not a literal: references to other modules' __all__
	code := pyCode(rest)
	for k := strings.Index(code, ".__all__"); k >= 0; k = strings.Index(code, ".__all__") {
		j := k
		for j > 0 && (isIdentByte(code[j-1]) && code[j-1] != '$' || code[j-1] == '.') {
			j--
		}
		if ref := code[j:k]; pyDotted(ref) {
			p.mod.allRefs = append(p.mod.allRefs, ref)
		}
		code = code[k+len(".__all__"):]
	}
	if strings.ContainsFunc(pyCode(rest), func(c rune) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }) {
		p.mod.allCalc = true
	}
}

// lazyTable reads a dict literal whose keys are names and whose values
// name a module: {'BaseModel': (__spec__.parent, '.main')},
// {'x': 'pkg.mod'}, {'Y': ('.mod', 'Attr')}. It is kept only when the
// module defines __getattr__ (checked by the resolver).
func (p *pyParser) lazyTable(value string) {
	var entries []pyLazy
	for _, e := range pySplitTop(value) {
		k, v, ok := pyCutTop(e, ':')
		if !ok {
			return
		}
		ks := pyStrings(k)
		if len(ks) != 1 || !pyIdent(ks[0]) {
			return
		}
		vs := pyStrings(v)
		var mod, attr string
		for _, s := range vs {
			switch {
			case s == "__module__":
				attr = s
			case mod == "" && (strings.HasPrefix(s, ".") || pyDotted(s)):
				mod = s
			case mod != "" && attr == "" && pyIdent(s):
				attr = s
			}
		}
		if mod == "" && attr != "__module__" {
			return // not a table of modules
		}
		entries = append(entries, pyLazy{name: ks[0], mod: mod, attr: attr})
	}
	p.mod.lazy = append(p.mod.lazy, entries...)
}
