package apidoc

// One JavaScript module parsed: its declarations, member assignments,
// imports and exports indexed for jsvalue.go to resolve.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unsafe"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// jsMod is one parsed module.
type jsMod struct {
	r     *jsReader
	depth int
	name  string
	src   []byte // with one spare byte of capacity: the parser's NUL
	li    lineIndex
	docs  []tok // /** */ comments, in order
	ast   *js.AST
	// decls are the file's function, class and variable declarations by
	// name (the first one met, top level first).
	decls map[string]jsDecl
	// assigns are `X.name = v` anywhere in the file by X, protos
	// `X.prototype.name = v`; "exports" collects exports.x and
	// module.exports.x.
	assigns, protos map[string][]jsAssign
	// defaults are `module.exports = v` (the last counts).
	moduleExports []jsAssign
	esm           []*js.ExportStmt
	imports       map[string]jsImport
	exports       *jsVal
	busy          map[string]bool
	locals        map[string]*jsVal // local's answers, each name resolved once
	named         map[string]int    // offset of the first `function NAME`, `var NAME`...
	missing       map[string]bool   // relative specifiers found nowhere, warned once
}

type jsDecl struct {
	node js.INode // *js.FuncDecl, *js.ClassDecl, or the initializer expression
	at   int      // offset of the declared name
	kind string
}

type jsAssign struct {
	name string
	val  js.IExpr
	at   int
}

type jsImport struct{ spec, name string } // name "" for the whole module

// errJSTooDeep is parseJSMod's answer for a file nested too deep to parse.
var errJSTooDeep = fmt.Errorf("nesting deeper than %d", maxJSNesting)

func parseJSMod(name string, src []byte) (m *jsMod, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("parser failure: %v", p)
		}
	}()
	if jsTooDeep(src, maxJSNesting) {
		return nil, errJSTooDeep
	}
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
	if err != nil {
		msg := err.Error()
		if pe, ok := err.(*parse.Error); ok {
			msg = fmt.Sprintf("line %d: %s", pe.Line, pe.Message)
		}
		return nil, fmt.Errorf("syntax error at %s", msg)
	}
	s := string(buf)
	m = &jsMod{name: name, src: buf, li: newLineIndex(s), ast: ast,
		decls: map[string]jsDecl{}, assigns: map[string][]jsAssign{}, protos: map[string][]jsAssign{},
		imports: map[string]jsImport{}, busy: map[string]bool{}, locals: map[string]*jsVal{}, missing: map[string]bool{}}
	toks := lex(s, langTS)
	m.named = map[string]int{}
	for i, t := range toks {
		switch {
		case t.kind == tDoc:
			m.docs = append(m.docs, t)
		case t.kind == tIdent && i+1 < len(toks) && toks[i+1].kind == tIdent:
			// function NAME, class NAME, var NAME: where NAME is declared
			switch s[t.start:t.end] {
			case "function", "class", "var", "let", "const":
				n := toks[i+1]
				if _, ok := m.named[s[n.start:n.end]]; !ok {
					m.named[s[n.start:n.end]] = n.start
				}
			}
		}
	}
	m.index()
	return m, nil
}

// off is the offset of b in the module's source, or -1 when b is not a
// slice of it. The parser keeps no positions, but its names and literals
// are slices of the source it was given (capped, so the offset cannot be
// read from cap): the address difference gives the offset, and the
// pointer comparison checks it. No pointer is made from an integer.
func (m *jsMod) off(b []byte) int {
	if len(b) == 0 || len(m.src) == 0 {
		return -1
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(m.src)))
	o := int(d)
	if d > uintptr(len(m.src)) || o+len(b) > len(m.src) || &m.src[o] != &b[0] {
		return -1
	}
	return o
}

// docAt is the JSDoc that ends right before the definition whose name is
// at offset at: only keywords, names, dots and the like between them.
func (m *jsMod) docAt(at int) (string, int) {
	if at < 0 {
		return "", 0
	}
	line := m.li.line(at)
	i := sort.Search(len(m.docs), func(i int) bool { return m.docs[i].end > at }) - 1
	if i < 0 {
		return "", line
	}
	c := m.docs[i]
	gap := m.src[c.end:at]
	if len(gap) > 160 || bytes.ContainsAny(gap, ";{})") || bytes.Contains(gap, []byte("\n\n\n")) {
		return "", line
	}
	return jsdoc(string(m.src[c.start:c.end])), line
}

// index collects declarations, member assignments, imports and exports.
func (m *jsMod) index() {
	for _, st := range m.ast.List {
		switch s := st.(type) {
		case *js.ExportStmt:
			m.esm = append(m.esm, s)
			if s.Decl != nil {
				m.declare(s.Decl, true)
			}
		case *js.ImportStmt:
			spec := unquote(s.Module)
			if s.Default != nil {
				m.imports[string(s.Default)] = jsImport{spec, "default"}
			}
			for _, a := range s.List {
				switch {
				case a.Binding == nil:
				case string(a.Name) == "*":
					m.imports[string(a.Binding)] = jsImport{spec, ""}
				case a.Name != nil:
					m.imports[string(a.Binding)] = jsImport{spec, string(a.Name)}
				default:
					m.imports[string(a.Binding)] = jsImport{spec, string(a.Binding)}
				}
			}
		default:
			m.declare(st, true)
		}
	}
	js.Walk(jsWalker{m}, &m.ast.BlockStmt)
}

// declare records top-level (or, from the walk, nested) declarations.
func (m *jsMod) declare(n js.INode, top bool) {
	add := func(name []byte, d jsDecl) {
		if _, ok := m.decls[string(name)]; !ok && len(name) > 0 {
			// the parser's name may be the slice of a use before the
			// declaration (hoisting): the declaration's own token first
			d.at = m.off(name)
			if at, ok := m.named[string(name)]; ok {
				d.at = at
			}
			m.decls[string(name)] = d
		}
	}
	switch d := n.(type) {
	case *js.FuncDecl:
		if d.Name != nil {
			add(d.Name.Data, jsDecl{node: d, kind: SymFunc})
		}
	case *js.ClassDecl:
		if d.Name != nil {
			add(d.Name.Data, jsDecl{node: d, kind: SymClass})
		}
	case *js.VarDecl:
		kind := SymVar
		if d.TokenType == js.ConstToken {
			kind = SymConst
		}
		for _, b := range d.List {
			switch bd := b.Binding.(type) {
			case *js.Var:
				if b.Default != nil {
					add(bd.Data, jsDecl{node: b.Default, kind: kind})
					m.requireImport(string(bd.Data), "", b.Default)
				}
			case *js.BindingObject:
				// const { a, b: c } = require('./x')
				for _, it := range bd.List {
					v, ok := it.Value.Binding.(*js.Var)
					if !ok || it.Key == nil || b.Default == nil {
						continue
					}
					m.requireImport(string(v.Data), propName(it.Key), b.Default)
				}
			}
		}
	}
}

// requireImport records `x = require('./y')` (and `.z` of it) as an import.
func (m *jsMod) requireImport(local, name string, e js.IExpr) {
	if d, ok := e.(*js.DotExpr); ok && name == "" {
		if spec := requireSpec(d.X); spec != "" {
			m.imports[local] = jsImport{spec, litName(d.Y)}
		}
		return
	}
	if spec := requireSpec(e); spec != "" {
		m.imports[local] = jsImport{spec, name}
	}
}

// requireSpec is the specifier of require('spec'), or "".
func requireSpec(e js.IExpr) string {
	c, ok := e.(*js.CallExpr)
	if !ok || len(c.Args.List) != 1 {
		return ""
	}
	if v, ok := c.X.(*js.Var); !ok || string(v.Data) != "require" {
		return ""
	}
	if l, ok := c.Args.List[0].Value.(*js.LiteralExpr); ok && l.TokenType == js.StringToken {
		return unquote(l.Data)
	}
	return ""
}

func unquote(b []byte) string {
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'' || b[0] == '`') {
		return string(b[1 : len(b)-1])
	}
	return string(b)
}

func propName(p *js.PropertyName) string {
	if p == nil || p.IsComputed() {
		return ""
	}
	return unquote(p.Literal.Data)
}

func litName(e js.IExpr) string {
	b := litData(e)
	if b == nil {
		if v, ok := e.(*js.Var); ok {
			return string(v.Data)
		}
	}
	return unquote(b)
}

// litData is a literal's text as written (a DotExpr's name is a
// LiteralExpr value, other literals pointers), nil for anything else.
func litData(e js.IExpr) []byte {
	switch y := e.(type) {
	case *js.LiteralExpr:
		return y.Data
	case js.LiteralExpr:
		return y.Data
	}
	return nil
}

// jsWalker finds assignments and nested declarations anywhere.
type jsWalker struct{ m *jsMod }

func (w jsWalker) Enter(n js.INode) js.IVisitor {
	m := w.m
	switch e := n.(type) {
	case *js.FuncDecl, *js.ClassDecl, *js.VarDecl:
		m.declare(n, false)
	case *js.BinaryExpr:
		if e.Op == js.EqToken {
			m.assign(e.X, e.Y)
		}
	case *js.CallExpr:
		m.defineProperty(e)
	}
	return w
}

func (w jsWalker) Exit(js.INode) {}

// assign records lhs = rhs when lhs is module.exports, X.name or
// X.prototype.name.
func (m *jsMod) assign(lhs, rhs js.IExpr) {
	d, ok := lhs.(*js.DotExpr)
	if !ok {
		return
	}
	name := litName(d.Y)
	if name == "" {
		return
	}
	a := jsAssign{name: name, val: rhs, at: m.off(litData(d.Y))}
	switch base := d.X.(type) {
	case *js.Var:
		b := string(base.Data)
		if name == "exports" && (b == "module" || strings.Contains(strings.ToLower(b), "module")) {
			// module.exports = v (freeModule.exports in UMD wrappers)
			m.moduleExports = append(m.moduleExports, a)
			return
		}
		m.assigns[b] = append(m.assigns[b], a)
	case *js.DotExpr:
		if v, ok := base.X.(*js.Var); ok {
			switch litName(base.Y) {
			case "prototype":
				m.protos[string(v.Data)] = append(m.protos[string(v.Data)], a)
			case "exports":
				if string(v.Data) == "module" {
					m.assigns["exports"] = append(m.assigns["exports"], a)
				}
			}
		}
	case *js.GroupExpr:
		// (module.exports = _)._ = _
		if b, ok := base.X.(*js.BinaryExpr); ok && b.Op == js.EqToken {
			m.assign(&js.DotExpr{X: b.Y, Y: d.Y}, rhs)
		}
	}
}

// defineProperty records Object.defineProperty(X, 'name', {value|get}).
func (m *jsMod) defineProperty(c *js.CallExpr) {
	d, ok := c.X.(*js.DotExpr)
	if !ok || litName(d.Y) != "defineProperty" || len(c.Args.List) != 3 {
		return
	}
	if o, ok := d.X.(*js.Var); !ok || string(o.Data) != "Object" {
		return
	}
	target := ""
	switch t := c.Args.List[0].Value.(type) {
	case *js.Var:
		target = string(t.Data)
	case *js.DotExpr:
		if v, ok := t.X.(*js.Var); ok && string(v.Data) == "module" && litName(t.Y) == "exports" {
			target = "exports"
		}
	}
	l, ok := c.Args.List[1].Value.(*js.LiteralExpr)
	if target == "" || !ok || l.TokenType != js.StringToken {
		return
	}
	var val js.IExpr = &js.LiteralExpr{TokenType: js.IdentifierToken, Data: l.Data}
	if o, ok := c.Args.List[2].Value.(*js.ObjectExpr); ok {
		for _, p := range o.List {
			switch propName(p.Name) {
			case "value", "get":
				val = p.Value
				if propName(p.Name) == "get" {
					// a getter: the value it returns
					switch g := p.Value.(type) {
					case *js.MethodDecl:
						val = lastReturn(g.Body)
					case *js.FuncDecl:
						val = lastReturn(g.Body)
					}
				}
			}
		}
	}
	name := unquote(l.Data)
	m.assigns[target] = append(m.assigns[target], jsAssign{name: name, val: val, at: m.off(l.Data)})
}

func lastReturn(b js.BlockStmt) js.IExpr {
	for i := len(b.List) - 1; i >= 0; i-- {
		if r, ok := b.List[i].(*js.ReturnStmt); ok && r.Value != nil {
			return r.Value
		}
	}
	return nil
}
