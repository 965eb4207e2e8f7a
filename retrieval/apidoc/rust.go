package apidoc

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// rustAPI reads a crate's public items from src/lib.rs and the modules it
// declares (`mod x;` files, inline `mod x { }`), skipping #[cfg(test)]
// and #[doc(hidden)] ones. A pub item in a private module keeps the
// module's public path (the private segments dropped): such items are
// usually re-exported by `pub use` where the path is shorter still.
func rustAPI(x *extractor) error {
	lib := "src/lib.rs"
	if st, err := x.root.Stat(lib); err != nil || !st.Mode().IsRegular() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			x.warn(lib, "not read: %v", cleanErr(err))
		} else {
			x.warn("", "no src/lib.rs: no library API")
		}
		return nil
	}
	r := &rustReader{x: x, seen: map[string]bool{}, pubUse: map[string]bool{}, globs: map[string]bool{}}
	r.file(lib, true, nil, "", 0)
	r.emitAll()
	return nil
}

// emitAll adds the items read.
func (r *rustReader) emitAll() {
	x := r.x
	// An item of a private module is public when a `pub use` names it
	// (or globs its module); an inherent method when its type is public.
	public := map[string]bool{}
	for _, it := range r.items {
		if it.owner == "" && (it.privMod == "" || r.pubUse[lastSeg(it.s.Name)] || r.globs[it.privMod]) {
			public[lastSeg(it.s.Name)] = true
		}
	}
	for _, it := range r.items {
		keep := it.privMod == "" || r.pubUse[lastSeg(it.s.Name)] || r.globs[it.privMod]
		if it.owner != "" {
			keep = public[it.owner] || r.pubUse[it.owner]
		}
		if it.s.Kind == SymPackage {
			keep = it.privMod == ""
		}
		if !keep {
			continue
		}
		if it.s.Kind == SymPackage {
			x.add(Unit{Kind: KindAPI, Path: "api/mod/" + it.s.Name, Title: it.s.Name, Text: apiMarkdown("rust", it.s, rustVisible(it.doc), nil),
				Symbol: &it.s, Doc: it.doc, File: it.file, Line: it.line})
			continue
		}
		if !x.add(Unit{Kind: KindAPI, Path: "api/" + it.s.Name, Title: it.s.Name, Text: apiMarkdown("rust", it.s, rustVisible(it.doc), nil),
			Symbol: &it.s, Doc: it.doc, File: it.file, Line: it.line}) {
			break
		}
		docExamples(x, "rust", it.s.Name, it.doc, it.file, it.line)
	}
}

func lastSeg(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		return name[i+2:]
	}
	return name
}

type rustReader struct {
	x      *extractor
	seen   map[string]bool
	items  []rustItem
	pubUse map[string]bool // names a `pub use` re-exports
	globs  map[string]bool // modules a `pub use m::*` re-exports
}

type rustItem struct {
	s       Symbol
	doc     string
	file    string
	line    int
	privMod string // the innermost private module holding it, "" if none
	owner   string // an inherent method's type
}

// rustVisible hides what rustdoc hides: "# " lines in code blocks.
func rustVisible(doc string) string {
	if !strings.Contains(doc, "```") {
		return doc
	}
	var out []string
	in := false
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			in = !in
		} else if in && (t == "#" || strings.HasPrefix(t, "# ")) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

type rustFile struct {
	name  string
	src   string
	toks  []tok
	match []int
	li    lineIndex
}

const maxRustDepth = 16

func (f *rustFile) text(i int) string {
	if i < 0 || i >= len(f.toks) {
		return ""
	}
	return f.src[f.toks[i].start:f.toks[i].end]
}

// file reads a module file. modRS: it owns a folder (lib.rs, mod.rs), so
// its children sit beside it; mods: the public path of the module.
func (r *rustReader) file(name string, modRS bool, mods []string, priv string, depth int) {
	if r.seen[name] || depth > maxRustDepth {
		return
	}
	r.seen[name] = true
	src, ok := r.x.source(name)
	if !ok {
		return
	}
	f := parseRust(name, src)
	childDir := path.Dir(name)
	if !modRS {
		childDir = strings.TrimSuffix(name, ".rs")
	}
	r.scope(f, 0, len(f.toks), mods, priv, childDir, depth)
}

func parseRust(name, src string) *rustFile {
	all := lex(src, langRust)
	toks := all[:0] // filtered in place: the write index never passes the read index
	for _, t := range all {
		if t.kind != tComment {
			toks = append(toks, t)
		}
	}
	return &rustFile{name: name, src: src, toks: toks, match: matchBrackets(src, toks), li: newLineIndex(src)}
}

func (r *rustReader) modName(mods []string) string {
	if len(mods) == 0 {
		return strings.ReplaceAll(r.x.pkg.Name, "-", "_")
	}
	return strings.Join(mods, "::")
}

func qualify(mods []string, name string) string {
	if len(mods) == 0 {
		return name
	}
	return strings.Join(mods, "::") + "::" + name
}

// scope reads the items of a module body, tokens [i, end).
func (r *rustReader) scope(f *rustFile, i, end int, mods []string, priv, childDir string, depth int) {
	var inner []string
	var docs []string
	var attrs []string
	innerAt := -1
	reset := func() { docs, attrs = nil, nil }
	for i < end && r.x.ctx.Err() == nil {
		t := f.toks[i]
		switch {
		case t.kind == tInner:
			inner = append(inner, rustDocText(f.text(i)))
			if innerAt < 0 {
				innerAt = i
			}
			i++
			continue
		case t.kind == tDoc:
			docs = append(docs, rustDocText(f.text(i)))
			i++
			continue
		case f.text(i) == "#" && f.text(i+1) == "!" && f.text(i+2) == "[":
			i = min(f.match[i+2], end) + 1
			continue
		case f.text(i) == "#" && f.text(i+1) == "[":
			c := min(f.match[i+1], end)
			a := f.src[f.toks[i].start:f.toks[min(c, len(f.toks)-1)].end]
			if d, ok := docAttr(a); ok {
				docs = append(docs, d)
			} else {
				attrs = append(attrs, a)
			}
			i = c + 1
			continue
		case f.text(i) == ";":
			reset()
			i++
			continue
		}
		i = r.item(f, i, end, strings.Join(docs, "\n"), attrs, mods, priv, childDir, depth)
		reset()
	}
	if len(inner) > 0 {
		s := Symbol{Name: r.modName(mods), Kind: SymPackage}
		r.items = append(r.items, rustItem{s: s, doc: strings.Join(inner, "\n"), file: f.name, line: f.li.line(f.toks[innerAt].start), privMod: priv})
	}
}

// docAttr reads #[doc = "text"].
func docAttr(a string) (string, bool) {
	in := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(a, "#["), "]"))
	if !strings.HasPrefix(in, "doc") {
		return "", false
	}
	rest := strings.TrimSpace(in[3:])
	if !strings.HasPrefix(rest, "=") {
		return "", false
	}
	lit := strings.TrimSpace(rest[1:])
	if len(lit) >= 2 && lit[0] == '"' && lit[len(lit)-1] == '"' {
		return strings.TrimPrefix(lit[1:len(lit)-1], " "), true
	}
	return "", false
}

func hasAttr(attrs []string, words ...string) bool {
	for _, a := range attrs {
		compact := strings.Join(strings.Fields(a), "")
		for _, w := range words {
			if strings.Contains(compact, w) {
				return true
			}
		}
	}
	return false
}

// itemEnd finds where an item's header ends: the body's "{" (angle depth
// 0) or the ";". braces: whether a "{" opens a body (not for const,
// static, type, whose values may hold blocks).
func (f *rustFile) itemEnd(i, end int, braces bool) (open, next int) {
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
				return -1, end
			}
		case "{":
			c := f.match[j]
			if c >= end {
				return j, end
			}
			if braces && angle == 0 {
				return j, c + 1
			}
			j = c
		case ";":
			return -1, j + 1
		}
	}
	return -1, end
}

// span is the source of tokens [i, j).
func (f *rustFile) span(i, j int) string {
	if j > len(f.toks) {
		j = len(f.toks)
	}
	if i >= j {
		return ""
	}
	return f.src[f.toks[i].start:f.toks[j-1].end]
}

// item reads one item at i and returns the index after it.
func (r *rustReader) item(f *rustFile, i, end int, doc string, attrs []string, mods []string, priv, childDir string, depth int) int {
	start := i
	pub, restricted := false, false
	if f.text(i) == "pub" {
		if f.text(i+1) == "(" {
			restricted = true
			i = min(f.match[i+1], end) + 1
		} else {
			pub = true
			i++
		}
	}
	hidden := hasAttr(attrs, "cfg(test)", "doc(hidden)")
	for {
		switch f.text(i) {
		case "async", "unsafe", "default", "auto":
			i++
			continue
		case "const":
			if f.text(i+1) == "fn" || f.text(i+1) == "unsafe" || f.text(i+1) == "async" {
				i++
				continue
			}
		case "extern":
			if f.text(i+1) == "crate" {
				break
			}
			i++
			if i < end && f.toks[i].kind == tString {
				i++
			}
			continue
		}
		break
	}
	kw := f.text(i)
	switch kw {
	case "mod":
		name := f.text(i + 1)
		open, next := f.itemEnd(i, end, true)
		if hidden || name == "tests" || name == "test" || !isTSName(name) {
			return next
		}
		if name == "private" || name == "__private" {
			return next // sealed-trait and macro plumbing
		}
		sub, subPriv := mods, priv
		if pub {
			sub = append(append([]string(nil), mods...), name)
		} else {
			subPriv = name
		}
		if open >= 0 {
			r.scope(f, open+1, min(f.match[open], end), sub, subPriv, childDir+"/"+name, depth+1)
		} else {
			r.modFile(f, attrs, name, sub, subPriv, childDir, depth)
		}
		return next
	case "use":
		_, next := f.itemEnd(i, end, false)
		if pub && !hidden {
			r.uses(f, i+1, next)
		}
		return next
	case "macro_rules":
		open, next := f.itemEnd(i, end, true)
		name := f.text(i + 2)
		if hidden || !hasAttr(attrs, "macro_export") || !isTSName(name) {
			return next
		}
		sig := "macro_rules! " + name + " {\n"
		if open >= 0 {
			for _, arm := range f.macroArms(open+1, min(f.match[open], end)) {
				sig += "    " + arm + " => { ... };\n"
			}
		}
		sig += "}"
		r.emit(f, name, SymMacro, cutSig(sig), doc, start, "", "")
		return next
	case "fn":
		open, next := f.itemEnd(i, end, true)
		if pub && !hidden {
			stop := next
			if open >= 0 {
				stop = open
			}
			r.emit(f, qualify(mods, f.text(i+1)), SymFunc, f.sigUpTo(start, stop), doc, start, priv, "")
		}
		return next
	case "struct", "enum", "union", "type", "const", "static", "trait":
		braces := kw == "struct" || kw == "enum" || kw == "union" || kw == "trait"
		open, next := f.itemEnd(i, end, braces)
		name := f.text(i + 1)
		if kw == "static" && name == "mut" {
			name = f.text(i + 2)
		}
		if !pub || hidden || !isTSName(name) {
			return next
		}
		full := qualify(mods, name)
		kinds := map[string]string{"struct": SymStruct, "enum": SymEnum, "union": SymStruct, "type": SymType, "const": SymConst, "static": SymVar, "trait": SymTrait}
		var sig string
		switch kw {
		case "trait":
			stop := next
			if open >= 0 {
				stop = open
			}
			sig = f.sigUpTo(start, stop)
		case "const", "static":
			sig = f.sigUpTo(start, f.assign(i, next))
		default:
			sig = f.sigUpTo(start, next)
		}
		r.emit(f, full, kinds[kw], sig, doc, start, priv, "")
		if kw == "trait" && open >= 0 {
			r.members(f, open+1, min(f.match[open], end), full, name, true)
		}
		return next
	case "impl":
		open, next := f.itemEnd(i, end, true)
		if hidden || restricted || open < 0 {
			return next
		}
		typ, isTrait := f.implType(i+1, open)
		if !isTrait && typ != "" {
			r.members(f, open+1, min(f.match[open], end), qualify(mods, typ), typ, false)
		}
		return next
	}
	_, next := f.itemEnd(i, end, true)
	if next <= start {
		next = start + 1
	}
	return next
}

// sigUpTo is the item's source from token i to token stop (exclusive).
func (f *rustFile) sigUpTo(i, stop int) string {
	if stop > len(f.toks) {
		stop = len(f.toks)
	}
	if stop <= i {
		return ""
	}
	end := f.toks[stop-1].end
	if stop < len(f.toks) {
		end = f.toks[stop].start
	}
	return strings.TrimSuffix(sigText(f.src, f.toks[i].start, end), ";")
}

// assign returns the index of a const's "=" at depth 0, else next.
func (f *rustFile) assign(i, next int) int {
	for j := i; j < next && j < len(f.toks); j++ {
		switch f.text(j) {
		case "(", "[", "{":
			if c := f.match[j]; c < next {
				j = c
			}
		case "=":
			return j
		}
	}
	return next
}

// implType returns the type an impl block is for, and whether it
// implements a trait (`impl Trait for Type`).
func (f *rustFile) implType(i, open int) (string, bool) {
	if f.text(i) == "<" { // impl<T>
		angle := 0
		for ; i < open; i++ {
			if f.text(i) == "<" {
				angle++
			} else if f.text(i) == ">" {
				angle--
				if angle == 0 {
					i++
					break
				}
			}
		}
	}
	angle := 0
	name := ""
	for j := i; j < open; j++ {
		t := f.text(j)
		switch t {
		case "<":
			angle++
		case ">":
			angle--
		case "for":
			if angle == 0 {
				return "", true
			}
		case "where":
			if angle == 0 {
				return name, false
			}
		default:
			if angle == 0 && isTSName(t) && t != "dyn" && t != "mut" && t != "const" {
				name = t
			}
		}
	}
	return name, false
}

// members reads a trait's items (all public with it) or an inherent impl's
// pub items.
func (r *rustReader) members(f *rustFile, i, end int, owner, typ string, trait bool) {
	var docs []string
	var attrs []string
	for i < end && r.x.ctx.Err() == nil {
		t := f.toks[i]
		switch {
		case t.kind == tDoc:
			docs = append(docs, rustDocText(f.text(i)))
			i++
			continue
		case t.kind == tInner:
			i++
			continue
		case f.text(i) == "#" && f.text(i+1) == "[":
			c := min(f.match[i+1], end)
			a := f.span(i, c+1)
			if d, ok := docAttr(a); ok {
				docs = append(docs, d)
			} else {
				attrs = append(attrs, a)
			}
			i = c + 1
			continue
		case f.text(i) == ";":
			docs, attrs = nil, nil
			i++
			continue
		}
		start := i
		pub := trait
		if f.text(i) == "pub" {
			if f.text(i+1) == "(" {
				i = min(f.match[i+1], end) + 1
			} else {
				pub = true
				i++
			}
		}
		for f.text(i) == "async" || f.text(i) == "unsafe" || f.text(i) == "default" || f.text(i) == "extern" ||
			(f.text(i) == "const" && f.text(i+1) == "fn") || (i < end && f.toks[i].kind == tString) {
			i++
		}
		kw := f.text(i)
		braces := kw == "fn"
		open, next := f.itemEnd(i, end, braces)
		if next <= start {
			next = start + 1
		}
		hidden := hasAttr(attrs, "doc(hidden)", "cfg(test)")
		if pub && !hidden && (kw == "fn" || kw == "type" || kw == "const") {
			name := f.text(i + 1)
			if isTSName(name) {
				stop := next
				if open >= 0 {
					stop = open
				}
				var sig string
				switch kw {
				case "fn":
					sig = f.sigUpTo(start, stop)
				default:
					sig = f.sigUpTo(start, f.assign(i, next))
				}
				kind := SymMethod
				if kw == "type" {
					kind = SymType
				} else if kw == "const" {
					kind = SymConst
				}
				r.emit(f, owner+"::"+name, kind, sig, strings.Join(docs, "\n"), start, "", typ)
			}
		}
		docs, attrs = nil, nil
		i = next
	}
}

// macroArms returns each rule's matcher: the bracketed group before "=>".
func (f *rustFile) macroArms(i, end int) []string {
	var arms []string
	for i < end {
		switch f.text(i) {
		case "(", "[", "{":
			c := min(f.match[i], end)
			if f.text(c+1) == "=>" {
				arms = append(arms, f.span(i, c+1))
				// skip the transcriber
				if k := c + 2; k < end && (f.text(k) == "{" || f.text(k) == "(" || f.text(k) == "[") {
					i = min(f.match[k], end) + 1
					continue
				}
			}
			i = c + 1
		default:
			i++
		}
	}
	return arms
}

// modFile finds `mod name;`'s file: #[path], name.rs or name/mod.rs.
func (r *rustReader) modFile(f *rustFile, attrs []string, name string, mods []string, priv, dir string, depth int) {
	for _, a := range attrs {
		c := strings.Join(strings.Fields(a), "")
		if strings.HasPrefix(c, `#[path="`) {
			p := strings.TrimSuffix(strings.TrimPrefix(c, `#[path="`), `"]`)
			full := path.Join(path.Dir(f.name), p)
			if strings.HasPrefix(full, "../") {
				r.x.warn(f.name, "module path %q leaves the crate: not read", p)
				return
			}
			r.file(full, strings.HasSuffix(full, "mod.rs"), mods, priv, depth+1)
			return
		}
	}
	for _, c := range []struct {
		p     string
		modRS bool
	}{{dir + "/" + name + ".rs", false}, {dir + "/" + name + "/mod.rs", true}} {
		if st, err := r.x.root.Stat(c.p); err == nil && st.Mode().IsRegular() {
			r.file(c.p, c.modRS, mods, priv, depth+1)
			return
		}
	}
}

func (r *rustReader) emit(f *rustFile, name, kind, sig, doc string, at int, priv, owner string) {
	if len(r.items) >= r.x.lim.MaxUnits {
		return
	}
	r.items = append(r.items, rustItem{s: Symbol{Name: name, Kind: kind, Signature: sig}, doc: doc, file: f.name,
		line: f.li.line(f.toks[at].start), privMod: priv, owner: owner})
}

// uses records what a `pub use` re-exports: each last path segment or
// alias, and the module of a glob.
func (r *rustReader) uses(f *rustFile, i, end int) {
	for j := i; j < end; j++ {
		t := f.text(j)
		switch {
		case t == "as":
			r.pubUse[f.text(j+1)] = true
			j++
		case t == "*" && f.text(j-1) == "::":
			r.globs[f.text(j-2)] = true
		case isTSName(t):
			switch f.text(j + 1) {
			case ",", "}", ";", "":
				r.pubUse[t] = true
			}
		}
	}
}

// rustDocText strips a doc comment's markers: "/// " or "//! " a line,
// or a /** */ block's frame.
func rustDocText(c string) string {
	switch {
	case strings.HasPrefix(c, "///") || strings.HasPrefix(c, "//!"):
		return strings.TrimRight(strings.TrimPrefix(c[3:], " "), "\r")
	case strings.HasPrefix(c, "/**") || strings.HasPrefix(c, "/*!"):
		return jsdoc("/**" + c[3:])
	}
	return c
}

// docExamples adds the code blocks of a doc comment's "# Examples"
// section (Rust) or, for Swift, every code block, as an example unit.
func docExamples(x *extractor, lang, name, doc, file string, line int) {
	if !strings.Contains(doc, "```") {
		return
	}
	var blocks []string
	inSection := lang != "rust"
	level := 0
	var cur []string
	fenceOpen := ""
	skipBlock := false
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if fenceOpen != "" {
			if strings.HasPrefix(t, fenceOpen) && strings.Trim(t, "`~") == "" {
				if inSection && !skipBlock {
					blocks = append(blocks, strings.Join(cur, "\n"))
				}
				fenceOpen, cur, skipBlock = "", nil, false
				continue
			}
			if lang == "rust" && (t == "#" || strings.HasPrefix(t, "# ")) {
				continue // a line rustdoc hides
			}
			cur = append(cur, l)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			info := strings.TrimLeft(t, "`~")
			// rustdoc's code is a block with no info or a Rust one;
			// text, console and the like are not examples
			skipBlock = lang == "rust" && info != "" && !strings.Contains(info, "rust") && !strings.Contains(info, "no_run") &&
				!strings.Contains(info, "should_panic") && !strings.Contains(info, "ignore") && !strings.Contains(info, "edition") && !strings.Contains(info, "compile_fail")
			fenceOpen = t[:len(t)-len(info)]
			continue
		}
		if strings.HasPrefix(t, "#") {
			h := strings.TrimLeft(t, "#")
			lv := len(t) - len(h)
			if lang == "rust" {
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(h)), "example") {
					inSection, level = true, lv
				} else if inSection && lv <= level {
					inSection = false
				}
			}
		}
	}
	if len(blocks) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("# Example: " + name + "\n\n")
	for _, bl := range blocks {
		b.WriteString(fence(lang, dedent(bl)))
	}
	x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: "Example: " + name, Text: b.String(), File: file, Line: line})
}
