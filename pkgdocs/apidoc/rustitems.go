package apidoc

import (
	"strings"
)

// One Rust item at a time: where its header and body end, its signature,
// the members of traits and inherent impls.

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

// deprecatedAttr turns #[deprecated], #[deprecated = "why"] and
// #[deprecated(since = "1.2", note = "why")] into the doc line rustdoc
// shows for them ("Deprecated since 1.2: why"), so the item's doc says
// it (and `gno packages diff` finds it newly deprecated).
func deprecatedAttr(a string) (string, bool) {
	compact := strings.Join(strings.Fields(a), "")
	if !strings.HasPrefix(compact, "#[deprecated") {
		return "", false
	}
	rest := strings.TrimPrefix(compact, "#[deprecated")
	if rest != "]" && !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "(") {
		return "", false // #[deprecated_something]
	}
	field := func(key string) string {
		_, v, ok := strings.Cut(a, key)
		if !ok {
			return ""
		}
		v = strings.TrimLeft(v, " \t=")
		if !strings.HasPrefix(v, `"`) {
			return ""
		}
		v, _, _ = strings.Cut(v[1:], `"`)
		return v
	}
	line := "Deprecated"
	if since := field("since"); since != "" {
		line += " since " + since
	}
	note := field("note")
	if note == "" && strings.HasPrefix(rest, "=") {
		note = field("deprecated")
	}
	if note != "" {
		return line + ": " + note, true
	}
	return line + ".", true
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
		if hasAttr(attrs, "cfg(test)") || name == "tests" || name == "test" || !isTSName(name) {
			return next
		}
		if hidden {
			// a #[doc(hidden)] module: only its #[macro_export] macros,
			// which live at the crate root, are public (tokio's macros)
			r.hidden++
			defer func() { r.hidden-- }()
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
		saved := r.full
		r.full = append(append([]string(nil), r.full...), name)
		r.modules[strings.Join(r.full, "::")] = true
		if open >= 0 {
			r.scope(f, open+1, min(f.match[open], end), sub, subPriv, childDir+"/"+name, depth+1)
		} else {
			r.modFile(f, attrs, name, sub, subPriv, childDir, depth)
		}
		r.full = saved
		return next
	case "use":
		_, next := f.itemEnd(i, end, false)
		if pub && !hidden && r.hidden == 0 {
			r.uses(f, i+1, next)
			r.useTree(f, i+1, next, mods, priv)
		}
		return next
	case "macro_rules":
		open, next := f.itemEnd(i, end, true)
		name := f.text(i + 2)
		if open >= 0 && isTSName(name) {
			r.noteWrapper(f, name, open+1, min(f.match[open], end))
		}
		export := hasAttr(attrs, "macro_export")
		if w := r.wrap; w != nil {
			export = export || w.export
			if doc == "" {
				doc = w.doc
			}
		}
		if hidden || !export || !isTSName(name) || r.macros[name] {
			return next
		}
		r.macros[name] = true
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
			if name, ok := procMacro(attrs, f.text(i+1)); ok {
				// a proc-macro crate's macro: used by its name (derive(Error), #[tokio::main])
				r.emit(f, name, SymMacro, f.sigUpTo(start, stop), doc, start, "", "")
				return next
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
	if next, ok := r.invocation(f, i, end, mods, priv, childDir, depth); ok {
		return next
	}
	_, next := f.itemEnd(i, end, true)
	if next <= start {
		next = start + 1
	}
	return next
}

// procMacro names the macro a proc-macro function defines: the derive's
// name, or the function's for #[proc_macro] and #[proc_macro_attribute].
func procMacro(attrs []string, fn string) (string, bool) {
	for _, a := range attrs {
		c := strings.Join(strings.Fields(a), "")
		if rest, ok := strings.CutPrefix(c, "#[proc_macro_derive("); ok {
			j := 0
			for j < len(rest) && isIdentByte(rest[j]) && rest[j] != '$' {
				j++
			}
			if j > 0 {
				return rest[:j], true
			}
		}
		if c == "#[proc_macro]" || c == "#[proc_macro_attribute]" {
			return fn, true
		}
	}
	return "", false
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
			} else if d, ok := deprecatedAttr(a); ok {
				docs = append(docs, "", d)
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
