package apidoc

import (
	"path"
	"strings"

	"github.com/tdewolff/parse/v2/js"
)

// What a JavaScript module exports, and what each exported name is,
// resolved statically: names to their declarations, require() and
// import to the module they name, calls of a local function to what it
// returns, members from the assignments made to the value's name.

// exportsVal is the module's exports as one object: the members are the
// exported names; a value whose kind is not SymNamespace is the module
// itself (module.exports = fn). nil when the module is being read (a
// cycle) or exports nothing.
func (m *jsMod) exportsVal(depth int) *jsVal {
	if m.exports != nil {
		return m.exports
	}
	if m.busy["\x00exports"] || depth > maxJSDepth {
		return nil
	}
	m.busy["\x00exports"] = true
	defer delete(m.busy, "\x00exports")
	var v *jsVal
	if n := len(m.moduleExports); n > 0 {
		a := m.moduleExports[n-1]
		// an anonymous module.exports = function is named after the
		// package in the entry (ms), left anonymous elsewhere (express's
		// router/index.js, exported as Router)
		name := ""
		if m.depth == 0 {
			name = jsIdent(m.r.x.pkg.Name)
		}
		v = m.value(a.val, a.at, name, depth+1)
	}
	if v == nil {
		v = &jsVal{kind: SymNamespace, file: m.name}
	}
	for _, alias := range append([]string{"exports"}, m.exportAliases()...) {
		for _, a := range m.assigns[alias] {
			v.addMember(a.name, m.value(a.val, a.at, a.name, depth+1))
		}
	}
	m.esmExports(v, depth)
	if len(v.members) == 0 && v.kind == SymNamespace {
		return nil
	}
	m.exports = v
	return v
}

// exportAliases are the variables bound to module.exports:
// `var app = exports = module.exports = {}`.
func (m *jsMod) exportAliases() []string {
	var out []string
	for name, d := range m.decls {
		for e, ok := d.node.(*js.BinaryExpr); ok && e.Op == js.EqToken; e, ok = e.Y.(*js.BinaryExpr) {
			if isModuleExports(e.X) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

func isModuleExports(e js.IExpr) bool {
	if v, ok := e.(*js.Var); ok {
		return string(v.Data) == "exports"
	}
	d, ok := e.(*js.DotExpr)
	if !ok {
		return false
	}
	v, ok := d.X.(*js.Var)
	return ok && string(v.Data) == "module" && litName(d.Y) == "exports"
}

// esmExports adds the module's ESM exports to v.
func (m *jsMod) esmExports(v *jsVal, depth int) {
	for _, s := range m.esm {
		switch {
		case s.Decl != nil && s.Default:
			name := "default"
			if d := declName(s.Decl); d != "" {
				name = d
			}
			v.addMember("default", m.value(s.Decl, m.declAt(s.Decl), name, depth+1))
		case s.Decl != nil:
			if vd, ok := s.Decl.(*js.VarDecl); ok {
				for _, b := range vd.List {
					if bv, ok := b.Binding.(*js.Var); ok {
						v.addMember(string(bv.Data), m.local(string(bv.Data), depth+1))
					}
				}
				continue
			}
			if n := declName(s.Decl); n != "" {
				v.addMember(n, m.local(n, depth+1))
			}
		case s.Module != nil:
			spec := unquote(s.Module)
			for _, a := range s.List {
				switch {
				case a.Binding == nil:
				case a.Name == nil && string(a.Binding) == "*":
					// export * from: every name but default
					if sub := m.imported(jsImport{spec, ""}, depth+1); sub != nil {
						for _, mb := range sub.members {
							if mb.name != "default" {
								v.addMember(mb.name, mb.val)
							}
						}
					}
				case string(a.Name) == "*":
					v.addMember(string(a.Binding), m.imported(jsImport{spec, ""}, depth+1))
				case a.Name != nil:
					v.addMember(string(a.Binding), m.imported(jsImport{spec, string(a.Name)}, depth+1))
				default:
					v.addMember(string(a.Binding), m.imported(jsImport{spec, string(a.Binding)}, depth+1))
				}
			}
		default:
			for _, a := range s.List {
				if a.Binding == nil {
					continue
				}
				local := string(a.Binding)
				if a.Name != nil {
					local = string(a.Name)
				}
				v.addMember(string(a.Binding), m.local(local, depth+1))
			}
		}
	}
}

func declName(n js.IExpr) string {
	switch d := n.(type) {
	case *js.FuncDecl:
		if d.Name != nil {
			return string(d.Name.Data)
		}
	case *js.ClassDecl:
		if d.Name != nil {
			return string(d.Name.Data)
		}
	}
	return ""
}

func (m *jsMod) declAt(n js.IExpr) int {
	if d := declName(n); d != "" {
		return m.decls[d].at
	}
	return -1
}

// imported is what `import {name} from spec` (or require) gives: the
// module's exports when name is "", "default" of an ESM module or the
// CommonJS module itself, else one export. nil for another package.
func (m *jsMod) imported(imp jsImport, depth int) *jsVal {
	target := jsResolve(m.r.x, path.Dir(m.name), imp.spec)
	if target == "" && strings.HasPrefix(imp.spec, ".") && !m.missing[imp.spec] {
		// another package is not this one's API; a relative path that
		// finds nothing is missing, or leaves the package (a link out)
		m.missing[imp.spec] = true
		m.r.x.warn(m.name, "%q not found inside the package (missing, or outside it): not followed", imp.spec)
	}
	if target == "" || depth > maxJSDepth {
		return nil
	}
	sub := m.r.module(target, m.depth+1)
	if sub == nil {
		return nil
	}
	exp := sub.exportsVal(depth + 1)
	if exp == nil || imp.name == "" {
		return exp
	}
	for _, mb := range exp.members {
		if mb.name == imp.name {
			return mb.val
		}
	}
	if imp.name == "default" && len(sub.esm) == 0 {
		return exp // import x from a CommonJS module: module.exports
	}
	return nil
}

// local resolves a name declared or imported in this module, with the
// members assigned to it.
func (m *jsMod) local(name string, depth int) (v *jsVal) {
	if v, ok := m.locals[name]; ok {
		return v
	}
	if m.busy[name] || depth > maxJSDepth {
		return nil
	}
	m.busy[name] = true
	defer func() {
		delete(m.busy, name)
		m.locals[name] = v
	}()
	if imp, ok := m.imports[name]; ok {
		v = m.imported(imp, depth+1)
		if v == nil {
			return &jsVal{kind: SymVar, sig: name, file: m.name}
		}
		return v
	}
	d, ok := m.decls[name]
	if !ok {
		return nil
	}
	switch n := d.node.(type) {
	case *js.FuncDecl, *js.ClassDecl:
		v = m.value(n.(js.IExpr), d.at, name, depth+1)
	case js.IExpr:
		v = m.value(n, d.at, name, depth+1)
		if v != nil && v.doc == "" {
			v.doc, v.line = m.docAt(d.at)
		}
		if v != nil && v.kind == SymVar && d.kind == SymConst {
			v.kind = SymConst
		}
	}
	if v == nil {
		v = &jsVal{kind: d.kind, sig: name, file: m.name}
		v.doc, v.line = m.docAt(d.at)
	}
	for _, a := range m.assigns[name] {
		if self, ok := a.val.(*js.Var); ok && string(self.Data) == name {
			continue // createDebug.debug = createDebug
		}
		if !strings.HasPrefix(a.name, "_") && a.name != "prototype" {
			v.addMember(a.name, m.value(a.val, a.at, a.name, depth+1))
		}
	}
	for _, a := range m.protos[name] {
		if !strings.HasPrefix(a.name, "_") {
			mv := m.value(a.val, a.at, a.name, depth+1)
			if mv != nil && mv.kind == SymFunc {
				c := *mv
				c.kind = SymMethod
				mv = &c
			}
			v.addMemberOf(a.name, mv, true)
		}
	}
	if len(m.protos[name]) > 0 && v.kind == SymFunc {
		v.kind = SymClass // a constructor with prototype methods
	}
	return v
}

// value resolves an expression named name whose definition's name is at
// offset at (for its JSDoc); nil when it says nothing useful.
func (m *jsMod) value(e js.IExpr, at int, name string, depth int) *jsVal {
	if e == nil || depth > maxJSDepth {
		return nil
	}
	mk := func(kind, sig string) *jsVal {
		v := &jsVal{kind: kind, sig: sig, file: m.name}
		v.doc, v.line = m.docAt(at)
		return v
	}
	switch n := e.(type) {
	case *js.FuncDecl:
		fn := name
		if n.Name != nil {
			fn = string(n.Name.Data)
		}
		prefix := "function "
		if n.Async {
			prefix = "async function "
		}
		if n.Generator {
			prefix += "*"
		}
		if fn == "" {
			prefix = strings.TrimSuffix(prefix, " ") // function(options)
		}
		v := mk(SymFunc, prefix+fn+paramsJS(n.Params))
		v.fn, v.mod = n, m
		if v.doc == "" && n.Name != nil {
			v.doc, v.line = m.docAt(m.off(n.Name.Data))
		}
		return v
	case *js.ArrowFunc:
		a := ""
		if n.Async {
			a = "async "
		}
		return mk(SymFunc, a+paramsJS(n.Params)+" =>")
	case *js.MethodDecl:
		return mk(SymMethod, name+paramsJS(n.Params))
	case *js.ClassDecl:
		cn := name
		if n.Name != nil {
			cn = string(n.Name.Data)
		}
		sig := "class " + cn
		if n.Extends != nil {
			sig += " extends " + exprJS(n.Extends)
		}
		v := mk(SymClass, sig)
		for _, el := range n.List {
			mn := el.Name
			if el.Method != nil {
				mn = el.Method.Name
			}
			if mn.Private != nil || mn.IsComputed() {
				continue
			}
			key := unquote(mn.Literal.Data)
			if key == "" || strings.HasPrefix(key, "_") || key == "constructor" && el.Method == nil {
				continue
			}
			at := m.off(mn.Literal.Data)
			if el.Method != nil {
				mv := &jsVal{kind: SymMethod, sig: key + paramsJS(el.Method.Params), file: m.name}
				if key == "constructor" {
					mv.kind, mv.sig = SymConstructor, "constructor"+paramsJS(el.Method.Params)
				}
				mv.doc, mv.line = m.docAt(at)
				v.addMember(key, mv)
			} else {
				pv := &jsVal{kind: SymProperty, sig: key, file: m.name}
				pv.doc, pv.line = m.docAt(at)
				v.addMember(key, pv)
			}
		}
		return v
	case *js.Var:
		if v := m.local(string(n.Data), depth+1); v != nil {
			if at >= 0 && v.file == m.name {
				// documented where it is exported, when it is not where it is defined
				if doc, _ := m.docAt(at); doc != "" && v.doc == "" {
					v.doc = doc
				}
			}
			return v
		}
		return mk(SymVar, name)
	case *js.GroupExpr:
		return m.value(n.X, at, name, depth+1)
	case *js.CommaExpr:
		if len(n.List) > 0 {
			return m.value(n.List[len(n.List)-1], at, name, depth+1)
		}
	case *js.BinaryExpr:
		if n.Op == js.EqToken {
			return m.value(n.Y, at, name, depth+1)
		}
		return mk(SymVar, name)
	case *js.CallExpr:
		if spec := requireSpec(n); spec != "" {
			if v := m.imported(jsImport{spec, ""}, depth+1); v != nil {
				return v
			}
			return mk(SymVar, name)
		}
		// var _ = runInContext(), require('./common')(exports): what the
		// called function of this package returns, when it returns a name
		if f := m.value(n.X, -1, "", depth+1); f != nil && f.fn != nil && f.mod != nil {
			if r, ok := lastReturn(f.fn.Body).(*js.Var); ok {
				if v := f.mod.local(string(r.Data), depth+1); v != nil {
					return v
				}
			}
		}
		return mk(SymVar, name)
	case *js.DotExpr:
		if x := m.value(n.X, -1, "", depth+1); x != nil {
			y := litName(n.Y)
			for _, mb := range x.members {
				if mb.name == y {
					return mb.val
				}
			}
		}
		return mk(SymVar, name)
	case *js.ObjectExpr:
		v := mk(SymNamespace, "")
		for _, p := range n.List {
			if p.Spread || p.Name == nil {
				continue
			}
			key := propName(p.Name)
			if key == "" || strings.HasPrefix(key, "_") {
				continue
			}
			pat := m.off(p.Name.Literal.Data)
			pv := m.value(p.Value, pat, key, depth+1)
			if pv == nil {
				pv = &jsVal{kind: SymProperty, sig: key, file: m.name}
				pv.doc, pv.line = m.docAt(pat)
			}
			v.addMember(key, pv)
		}
		return v
	case *js.LiteralExpr:
		return mk(SymConst, name+" = "+cutText(string(n.Data), 80))
	}
	return mk(SymVar, name)
}

// paramsJS prints a parameter list as the parser read it.
func paramsJS(p js.Params) string {
	var b strings.Builder
	p.JS(&b)
	return cutSig(b.String())
}

func exprJS(e js.IExpr) string {
	var b strings.Builder
	e.JS(&b)
	return cutText(b.String(), 120)
}
