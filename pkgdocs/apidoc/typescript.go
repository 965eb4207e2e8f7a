package apidoc

import (
	"path"
	"strings"
)

// tsReader walks declaration files.
type tsReader struct {
	x    *extractor
	seen map[string]bool
	// inNS is set while a namespace body of a declaration file is read:
	// there every member is visible (an ambient namespace exports all it
	// declares, `export` or not: @types/express's `var json`).
	inNS bool
}

// maxTSDepth bounds re-export chains and namespace nesting.
const maxTSDepth = 24

type tsFile struct {
	name  string
	src   string
	toks  []tok
	match []int
	li    lineIndex
	items []tsItem
	index map[string]int
}

type tsItem struct {
	sym  Symbol
	doc  string
	line int
}

type tsStmt struct{ doc, start, end int } // token indexes; doc -1 when none

// file reads one declaration file. prefix qualifies its names ("z."
// after `export * as z from`); only, when set, keeps the names it maps
// (to their exported names) as `export { a as b } from` asks.
func (r *tsReader) file(name, prefix string, only map[string]string, depth int) {
	key := name + "\x00" + prefix
	if r.seen[key] || depth > maxTSDepth || r.x.ctx.Err() != nil {
		return
	}
	r.seen[key] = true
	src, ok := r.x.source(name)
	if !ok {
		return
	}
	f := parseTS(name, src)
	r.scope(f, 0, len(f.toks), prefix, only, true, depth)
	r.references(name, src, prefix, depth)
	for _, it := range f.items {
		if !r.x.addAPI("ts", it.sym, it.doc, name, it.line, nil) {
			return
		}
		if exs := jsdocExamples(it.doc); len(exs) > 0 {
			text := "# Example: " + it.sym.Name + "\n\n" + strings.Join(exs, "\n\n") + "\n"
			r.x.add(Unit{Kind: KindExample, Path: "example/" + it.sym.Name, Title: "Example: " + it.sym.Name, Text: text, File: r.x.filePrefix + name, Line: it.line})
		}
	}
}

// references reads the files a declaration file names in its
// `/// <reference path="..." />` directives (@types/lodash is its
// index.d.ts and 12 such files), inside the package only.
func (r *tsReader) references(name, src, prefix string, depth int) {
	for n, l := range strings.SplitN(src, "\n", 400) {
		l = strings.TrimSpace(l)
		if n == 399 || l != "" && !strings.HasPrefix(l, "//") {
			return // directives come first in a file
		}
		rest, ok := strings.CutPrefix(l, "///")
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "<reference path=")
		if !ok || len(rest) < 2 {
			continue
		}
		q := rest[0]
		p, _, ok := strings.Cut(rest[1:], string(q))
		if !ok || q != '"' && q != '\'' {
			continue
		}
		if !strings.HasPrefix(p, ".") {
			p = "./" + p
		}
		if target := tsResolve(r.x, path.Dir(name), p); target != "" {
			r.file(target, prefix, nil, depth+1)
		}
	}
}

// scope reads the statements of a file, namespace or ambient module.
func (r *tsReader) scope(f *tsFile, i, end int, prefix string, only map[string]string, top bool, depth int) {
	if depth > maxTSDepth {
		return
	}
	stmts := f.stmts(i, end, false)
	// First pass: export lists and re-exports, and whether this scope
	// is a module (only exported names are public) or a script.
	module := false
	ambientNS := r.inNS
	r.inNS = false
	exported := map[string][]string{} // local name → the names it is exported under
	imports := map[string][2]string{} // local name → module specifier, name there
	defaultName := ""
	dir := path.Dir(f.name)
	for _, s := range stmts {
		switch f.text(s.start) {
		case "import":
			module = true
			if from := f.fromSpec(s.start, s.end); from != "" {
				for local, orig := range f.importBindings(s.start, s.end) {
					imports[local] = [2]string{from, orig}
				}
			}
		case "export":
			module = true
			k := s.start + 1
			if f.text(k) == "type" && (f.text(k+1) == "{" || f.text(k+1) == "*") {
				k++ // export type { A } from, export type * from
			}
			switch f.text(k) {
			case "=", "default":
				if n := f.text(k + 1); isTSName(n) && f.text(k+2) != "(" && !tsDeclWord[n] {
					if f.text(k) == "default" {
						defaultName = n
					}
					exported[n] = append(exported[n], n)
				}
			case "*":
				if !top {
					break
				}
				from := f.fromSpec(k, s.end)
				sub := prefix
				if f.text(k+1) == "as" {
					sub = prefix + f.text(k+2) + "."
				}
				if target := tsResolve(r.x, dir, from); target != "" {
					r.file(target, sub, nil, depth+1)
				}
			case "{":
				pairs := f.exportList(k, s.end)
				if from := f.fromSpec(k, s.end); from != "" {
					if target := tsResolve(r.x, dir, from); target != "" && top {
						only := map[string]string{}
						for _, p := range pairs {
							only[p[0]] = p[1]
						}
						r.file(target, prefix, only, depth+1)
					}
					break
				}
				for _, p := range pairs {
					exported[p[0]] = append(exported[p[0]], p[1])
				}
			}
		}
	}
	if top {
		// import X from "./x"; export { X }: X is declared there
		for local, names := range exported {
			imp, ok := imports[local]
			if !ok {
				continue
			}
			if target := tsResolve(r.x, dir, imp[0]); target != "" {
				for _, n := range names {
					r.file(target, prefix, map[string]string{imp[1]: n}, depth+1)
				}
			}
		}
	}
	if ambientNS {
		module = false
	}
	for _, s := range stmts {
		r.decl(f, s, prefix, only, module, exported, defaultName, depth)
	}
}

// tsDeclWord are the words after `export default` that start a
// declaration rather than name one.
var tsDeclWord = map[string]bool{"function": true, "class": true, "abstract": true, "async": true, "interface": true, "enum": true, "declare": true}

var tsDeclMods = map[string]bool{"declare": true, "abstract": true, "async": true, "default": true}

// decl reads one statement of a scope as a declaration.
func (r *tsReader) decl(f *tsFile, s tsStmt, prefix string, only map[string]string, module bool, exported map[string][]string, defaultName string, depth int) {
	k := s.start
	isExport := false
	if f.text(k) == "export" {
		isExport = true
		k++
		switch f.text(k) {
		case "=", "*", "{", "import", "as":
			return
		case "type":
			if f.text(k+1) == "{" || f.text(k+1) == "*" {
				return
			}
		}
	}
	isDefault := isExport && f.text(k) == "default"
	for tsDeclMods[f.text(k)] && k < s.end-1 {
		k++
	}
	kw := f.text(k)
	if kw == "const" && f.text(k+1) == "enum" {
		k++
		kw = "enum"
	}
	nameAt := k + 1
	kind := ""
	switch kw {
	case "function":
		kind = SymFunc
		if f.text(nameAt) == "*" {
			nameAt++
		}
	case "class":
		kind = SymClass
	case "interface":
		kind = SymInterface
	case "type":
		kind = SymType
	case "enum":
		kind = SymEnum
	case "const", "let", "var":
		kind = SymVar
		if kw == "const" {
			kind = SymConst
		}
	case "namespace", "module":
		kind = SymNamespace
	default:
		return
	}
	name := f.text(nameAt)
	ambientModule := kind == SymNamespace && f.toks[min(nameAt, len(f.toks)-1)].kind == tString
	if !isTSName(name) && !ambientModule {
		if kind != SymClass && kind != SymFunc {
			return
		}
		name = "default" // export default class { ... }
		nameAt--
	}
	public := name
	var aliases []string // more names it is exported under: export { A as B }
	switch {
	case ambientModule:
	case only != nil:
		n, ok := only[name]
		if !ok && (name == defaultName || isDefault) {
			n, ok = only["default"] // export { default as x } from
		}
		if !ok {
			return
		}
		public = n
	case isExport:
		aliases = exported[name]
	case len(exported[name]) > 0:
		public, aliases = exported[name][0], exported[name][1:]
	case module:
		return
	}
	doc := ""
	if s.doc >= 0 {
		doc = jsdoc(f.text(s.doc))
	}
	line := f.li.line(f.toks[s.start].start)
	full := prefix + public
	defer func() {
		// an alias is listed under its own name, its members once
		for _, a := range aliases {
			if a == public {
				continue
			}
			if k, ok := f.index[full]; ok {
				it := f.items[k]
				it.sym.Name = prefix + a
				f.push(it)
			}
		}
	}()
	switch kind {
	case SymClass, SymInterface, SymNamespace, SymEnum:
		open := f.bodyOpen(nameAt, s.end)
		if open < 0 {
			f.push(tsItem{sym: Symbol{Name: full, Kind: kind, Signature: f.span(s.start, s.end)}, doc: doc, line: line})
			return
		}
		closing := f.match[open]
		if closing > s.end {
			closing = s.end
		}
		sig := sigText(f.src, f.toks[s.start].start, f.toks[open].start)
		if kind == SymEnum {
			sig = f.span(s.start, s.end)
		}
		if ambientModule {
			r.scope(f, open+1, closing, prefix, nil, false, depth+1)
			return
		}
		f.push(tsItem{sym: Symbol{Name: full, Kind: kind, Signature: sig}, doc: doc, line: line})
		switch kind {
		case SymNamespace:
			r.inNS = strings.Contains(f.name, ".d.")
			r.scope(f, open+1, closing, full+".", nil, false, depth+1)
		case SymClass, SymInterface:
			r.members(f, open+1, closing, full)
		}
	default:
		f.push(tsItem{sym: Symbol{Name: full, Kind: kind, Signature: f.span(s.start, s.end)}, doc: doc, line: line})
	}
}

var tsMemberMods = map[string]bool{
	"public": true, "private": true, "protected": true, "static": true, "readonly": true, "abstract": true,
	"declare": true, "override": true, "async": true, "get": true, "set": true, "accessor": true,
}

// members reads a class or interface body. Private, protected, #private
// and _-prefixed members are left out; overloads become one item.
func (r *tsReader) members(f *tsFile, i, end int, owner string) {
	for _, m := range f.stmts(i, end, true) {
		k := m.start
		hidden := false
		accessor := false
		for k < m.end-1 && tsMemberMods[f.text(k)] {
			next := f.text(k + 1)
			if next == "(" || next == ":" || next == "?" || next == "<" || next == "=" || next == ";" || next == "," || next == "!" {
				break // the modifier word is the member's name: get(): T
			}
			switch f.text(k) {
			case "private", "protected":
				hidden = true
			case "get", "set":
				accessor = true
			}
			k++
		}
		name := f.text(k)
		if hidden || name == "" || name == "#" || name == "[" || name == "(" || name == "<" || name == "new" && f.text(k+1) == "(" {
			continue
		}
		if f.toks[k].kind == tString && len(name) >= 2 {
			name = name[1 : len(name)-1]
		} else if !isTSName(name) {
			continue
		}
		if strings.HasPrefix(name, "_") {
			continue
		}
		kind := SymProperty
		next := f.text(k + 1)
		if next == "?" || next == "!" {
			next = f.text(k + 2)
		}
		switch {
		case name == "constructor" && next == "(":
			kind = SymConstructor
		case (next == "(" || next == "<") && !accessor:
			kind = SymMethod
		}
		end := m.end
		if kind == SymMethod || kind == SymConstructor {
			// a .ts class method's body is not its signature
			if b := f.bodyAfterParams(k, m.end); b >= 0 {
				end = b
			}
		}
		doc := ""
		if m.doc >= 0 {
			doc = jsdoc(f.text(m.doc))
		}
		f.push(tsItem{sym: Symbol{Name: owner + "." + name, Kind: kind, Signature: (f.span(m.start, end))}, doc: doc, line: f.li.line(f.toks[m.start].start)})
	}
}

// bodyAfterParams returns the index of a method body's "{" after the
// parameter list, or -1 (declarations have none).
func (f *tsFile) bodyAfterParams(i, end int) int {
	for j := i; j < end; j++ {
		if f.text(j) == "(" {
			c := f.match[j]
			if c >= end {
				return -1
			}
			if f.text(c+1) == "{" {
				return c + 1
			}
			return -1
		}
	}
	return -1
}
