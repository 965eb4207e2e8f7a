package apidoc

import (
	"encoding/json"
	"path"
	"strings"
)

// tsAPI reads the package's type declarations from its entry point
// (package.json "types"/"typings", the "." export's types, index.d.ts,
// main's .d.ts), following relative re-exports inside the package.
func tsAPI(x *extractor) error {
	entry := tsEntry(x)
	if entry == "" {
		x.warn("", "no TypeScript declarations (types, typings, index.d.ts): API not indexed")
		return nil
	}
	r := &tsReader{x: x, seen: map[string]bool{}}
	r.file(entry, "", nil, 0)
	return nil
}

func tsEntry(x *extractor) string {
	pj := x.packageJSON()
	var cands []string
	for _, t := range []string{pj.Types, pj.Typings} {
		if t != "" {
			cands = append(cands, t)
		}
	}
	cands = append(cands, exportTypes(pj.Exports)...)
	cands = append(cands, "index.d.ts")
	if pj.Main != "" {
		cands = append(cands, pj.Main)
	}
	for _, c := range cands {
		if f := tsResolve(x, ".", "./"+strings.TrimPrefix(c, "./")); f != "" {
			return f
		}
	}
	return ""
}

// exportTypes digs the "types" condition of the "." export out of
// package.json "exports" (a string, a condition map, nested maps).
func exportTypes(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	if dot, ok := m["."]; ok {
		if json.Unmarshal(dot, &m) != nil {
			return nil
		}
	}
	var out []string
	var walk func(m map[string]json.RawMessage, depth int)
	walk = func(m map[string]json.RawMessage, depth int) {
		if depth > 4 {
			return
		}
		for _, k := range []string{"types", "import", "require", "default", "node"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				if k == "types" || strings.HasSuffix(s, ".d.ts") || strings.HasSuffix(s, ".d.mts") || strings.HasSuffix(s, ".d.cts") {
					out = append(out, s)
				}
				continue
			}
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				walk(sub, depth+1)
			}
		}
	}
	walk(m, 0)
	return out
}

// tsResolve maps an import specifier to a declaration file inside the
// package; "" when it names another package, leaves this one or has no
// declarations.
func tsResolve(x *extractor, dir, spec string) string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return ""
	}
	p := path.Join(dir, spec)
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	var cands []string
	for _, e := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if strings.HasSuffix(p, e) {
			cands = append(cands, p)
		}
	}
	base := p
	first := ".d.ts"
	for _, e := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"} {
		if strings.HasSuffix(p, e) && !strings.HasSuffix(p, ".d"+e) {
			base = strings.TrimSuffix(p, e)
			switch e {
			case ".mjs", ".mts":
				first = ".d.mts"
			case ".cjs", ".cts":
				first = ".d.cts"
			}
		}
	}
	cands = append(cands, base+first, base+".d.ts", base+".d.mts", base+".d.cts", base+"/index.d.ts", base+"/index.d.mts", base+"/index.d.cts")
	for _, c := range cands {
		if st, err := x.root.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// tsReader walks declaration files.
type tsReader struct {
	x    *extractor
	seen map[string]bool
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
	for _, it := range f.items {
		if !r.x.addAPI("ts", it.sym, it.doc, name, it.line, nil) {
			return
		}
	}
}

func parseTS(name, src string) *tsFile {
	all := lex(src, langTS)
	toks := all[:0] // filtered in place: the write index never passes the read index
	for _, t := range all {
		if t.kind != tComment {
			toks = append(toks, t)
		}
	}
	return &tsFile{name: name, src: src, toks: toks, match: matchBrackets(src, toks), li: newLineIndex(src), index: map[string]int{}}
}

func (f *tsFile) text(i int) string {
	if i < 0 || i >= len(f.toks) {
		return ""
	}
	return f.src[f.toks[i].start:f.toks[i].end]
}

// span is the source of tokens [i, j), continuation lines unindented.
func (f *tsFile) span(i, j int) string {
	if i >= j || i >= len(f.toks) {
		return ""
	}
	if j > len(f.toks) {
		j = len(f.toks)
	}
	return sigText(f.src, f.toks[i].start, f.toks[j-1].end)
}

func (f *tsFile) push(it tsItem) {
	if k, ok := f.index[it.sym.Name]; ok && f.items[k].sym.Kind == it.sym.Kind {
		// an overload: one item, one signature a line
		f.items[k].sym.Signature += "\n" + it.sym.Signature
		if f.items[k].doc == "" {
			f.items[k].doc = it.doc
		}
		return
	}
	f.index[it.sym.Name] = len(f.items)
	f.items = append(f.items, it)
}

var tsContPrev = map[string]bool{
	":": true, "|": true, "&": true, "=": true, "=>": true, ",": true, "?": true, ".": true, "<": true,
	"extends": true, "keyof": true, "typeof": true, "is": true, "as": true, "new": true, "readonly": true,
	"infer": true, "unique": true, "asserts": true, "implements": true, "+": true, "-": true,
}

var tsContNext = map[string]bool{
	"|": true, "&": true, "=>": true, ".": true, "?": true, ":": true, "=": true, ">": true, ",": true,
	"extends": true, "implements": true, "as": true, "is": true,
}

// stmts splits tokens [i, end) into statements (member mode: class and
// interface members, which "," also ends), by ";" and by newlines where
// TypeScript would insert one.
func (f *tsFile) stmts(i, end int, member bool) []tsStmt {
	var out []tsStmt
	for i < end {
		doc := -1
		for i < end && f.toks[i].kind == tDoc {
			doc = i
			i++
		}
		for i < end && (f.text(i) == ";" || (member && f.text(i) == ",")) {
			i++
		}
		if i >= end {
			break
		}
		if f.toks[i].kind == tDoc {
			continue
		}
		j := f.stmtEnd(i, end, member)
		out = append(out, tsStmt{doc: doc, start: i, end: j})
		if j <= i {
			j = i + 1
		}
		i = j
	}
	return out
}

func (f *tsFile) stmtEnd(i, end int, member bool) int {
	angle := 0 // a "," inside type arguments does not end a member
	for j := i; j < end; j++ {
		t := f.toks[j]
		if j > i && t.nl && !tsContPrev[f.text(j-1)] && !tsContNext[f.text(j)] {
			return j
		}
		if t.kind != tPunct {
			continue
		}
		switch f.text(j) {
		case "(", "[", "{":
			c := f.match[j]
			if c >= end {
				return end
			}
			j = c
		case ";":
			return j
		case "<":
			angle++
		case ">":
			if angle > 0 {
				angle--
			}
		case ",":
			if member && angle == 0 {
				return j
			}
		}
	}
	return end
}

// bodyOpen finds the "{" that opens a class, interface, namespace or enum
// body in [i, end): the first at angle depth 0.
func (f *tsFile) bodyOpen(i, end int) int {
	angle := 0
	for j := i; j < end; j++ {
		switch f.text(j) {
		case "<":
			angle++
		case ">":
			if angle > 0 {
				angle--
			}
		case "(", "[":
			if c := f.match[j]; c < end {
				j = c
			} else {
				return -1
			}
		case "{":
			if angle == 0 {
				return j
			}
			if c := f.match[j]; c < end {
				j = c
			} else {
				return -1
			}
		}
	}
	return -1
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
			if f.text(k) == "type" && f.text(k+1) == "{" {
				k++
			}
			switch f.text(k) {
			case "=", "default":
				if n := f.text(k + 1); isTSName(n) && f.text(k+2) != "(" {
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
	for _, s := range stmts {
		r.decl(f, s, prefix, only, module, exported, defaultName, depth)
	}
}

// fromSpec returns the module specifier after "from" in [i, end).
func (f *tsFile) fromSpec(i, end int) string {
	for j := i; j+1 < end; j++ {
		if f.text(j) == "from" && f.toks[j+1].kind == tString {
			s := f.text(j + 1)
			if len(s) >= 2 {
				return s[1 : len(s)-1]
			}
		}
	}
	return ""
}

// exportList reads `{ a, b as c, type d }` at i: local name → exported name.
func (f *tsFile) exportList(i, end int) [][2]string {
	var m [][2]string
	c := f.match[i]
	if c > end {
		c = end
	}
	for j := i + 1; j < c; j++ {
		if f.text(j) == "type" && isTSName(f.text(j+1)) && f.text(j+1) != "as" {
			j++
		}
		a := f.text(j)
		if !isTSName(a) {
			continue
		}
		b := a
		if f.text(j+1) == "as" {
			b = f.text(j + 2)
			j += 2
		}
		m = append(m, [2]string{a, strings.Trim(b, `"'`)})
	}
	return m
}

// importBindings reads `import D, { a as b } from "x"`: local name →
// the name it has in the module ("default" for D).
func (f *tsFile) importBindings(i, end int) map[string]string {
	m := map[string]string{}
	k := i + 1
	if f.text(k) == "type" && f.text(k+1) != "from" && f.text(k+1) != "," {
		k++
	}
	if n := f.text(k); isTSName(n) && n != "from" {
		m[n] = "default"
		k++
		if f.text(k) == "," {
			k++
		}
	}
	if f.text(k) == "{" {
		for _, p := range f.exportList(k, end) {
			m[p[1]] = p[0]
		}
	}
	return m
}

func isTSName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return s[0] < '0' || s[0] > '9'
}

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
		if !ok && name == defaultName {
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

func cutSig(s string) string {
	if len(s) > maxSignature {
		return cutText(s, maxSignature)
	}
	return s
}

// jsdoc strips a /** */ comment to its text: the leading " * " of each
// line removed, tags (@param, @returns, @example) kept as written.
func jsdoc(c string) string {
	c = strings.TrimPrefix(c, "/**")
	c = strings.TrimSuffix(c, "*/")
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "*") {
			t = strings.TrimPrefix(t[1:], " ")
			lines[i] = t
		} else {
			lines[i] = strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
