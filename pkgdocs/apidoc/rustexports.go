package apidoc

import (
	"path"
	"strings"
)

// What a Rust crate's users import beyond the items written plainly:
// items inside macro invocations that wrap definitions (tokio's
// `cfg_rt! { pub fn spawn … }`), macros defined through a wrapper that
// adds #[macro_export] and docs (tokio's `doc! {macro_rules! select …}`),
// `pub use` re-exports under their public path (`tokio::spawn`), and
// docs written `#[doc = include_str!("…")]`, read only inside the crate.

// rustWrap is what a wrapping macro_rules adds to the item it is given.
type rustWrap struct {
	export bool
	doc    string
}

// noteWrapper records a macro_rules whose transcriber adds
// #[macro_export] or doc comments to what it wraps.
func (r *rustReader) noteWrapper(f *rustFile, name string, i, end int) {
	w := &rustWrap{}
	var docs []string
	for j := i; j < end; j++ {
		switch {
		case f.toks[j].kind == tDoc:
			docs = append(docs, rustDocText(f.text(j)))
		case f.text(j) == "#" && f.text(j+1) == "[" && f.text(j+2) == "macro_export":
			w.export = true
		}
	}
	w.doc = strings.Join(docs, "\n")
	if w.export || w.doc != "" {
		r.wrappers[name] = w
	}
	// () => { items }: expanded where invoked with nothing
	if f.text(i) == "(" && f.match[i] == i+1 && f.text(i+2) == "=>" && f.text(i+3) == "{" {
		if c := f.match[i+3]; c < end {
			if _, ok := r.bodies[name]; !ok {
				r.bodies[name] = rustSpan{f: f, start: i + 4, end: c}
			}
		}
	}
}

// invocation reads a macro invocation at item level, `name! { items }`,
// as a scope of its own: the items it wraps are the crate's. An
// invocation that never closes ends at the scope's end.
func (r *rustReader) invocation(f *rustFile, i, end int, mods []string, priv, childDir string, depth int) (int, bool) {
	// a path is allowed: pin_project_lite::pin_project! { … }
	for f.text(i+1) == "::" && isTSName(f.text(i+2)) && i+2 < end {
		i += 2
	}
	name := f.text(i)
	if !isTSName(name) || f.text(i+1) != "!" || name == "macro_rules" {
		return 0, false
	}
	open := i + 2
	switch f.text(open) {
	case "{", "(", "[":
	default:
		return 0, false
	}
	c := min(f.match[open], end)
	if c < open {
		c = end
	}
	next := c + 1
	if f.text(next) == ";" {
		next++
	}
	if depth >= maxRustDepth {
		return next, true
	}
	if b, ok := r.bodies[name]; ok && c == open+1 {
		// name!(): the macro's items, read where they are written
		saved := r.pathBase
		r.pathBase = path.Dir(f.name)
		r.scope(b.f, b.start, b.end, mods, priv, childDir, depth+1)
		r.pathBase = saved
		return next, true
	}
	saved := r.wrap
	r.wrap = r.wrappers[name]
	r.scope(f, open+1, c, mods, priv, childDir, depth+1)
	r.wrap = saved
	return next, true
}

// includeDoc reads #[doc = include_str!("file")] (or #![…]): the file,
// relative to the source file, when it stays inside the crate.
func (r *rustReader) includeDoc(f *rustFile, attr string) (string, bool) {
	c := strings.Join(strings.Fields(attr), "")
	k := strings.Index(c, "doc=include_str!(\"")
	if k < 0 {
		return "", false
	}
	rest := c[k+len("doc=include_str!(\""):]
	end := strings.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	// the path as written, spaces included: find it in the attribute
	lit := rest[:end]
	if q := strings.Index(attr, "include_str!"); q >= 0 {
		if a := strings.IndexByte(attr[q:], '"'); a >= 0 {
			if b := strings.IndexByte(attr[q+a+1:], '"'); b >= 0 {
				lit = attr[q+a+1 : q+a+1+b]
			}
		}
	}
	full := path.Join(path.Dir(f.name), lit)
	if path.IsAbs(lit) || full == ".." || strings.HasPrefix(full, "../") {
		r.x.warn(f.name, "include_str!(%q) leaves the crate: not read", lit)
		return "", true
	}
	data, _, err := r.x.readFile(full, false)
	if err != nil {
		r.x.warn(f.name, "include_str!(%q) not read: %v", lit, cleanErr(err))
		return "", true
	}
	return strings.TrimRight(strings.ToValidUTF8(string(data), "\uFFFD"), "\n"), true
}

// rustUse is one name a `pub use` re-exports.
type rustUse struct {
	mods   []string // the public path of the module it is in
	priv   string   // the private module it is in, "" if none
	from   []string // the module it is in, private segments included
	target []string // the path used, as written
	alias  string
	glob   bool
}

// maxUseNames bounds what one use tree may list.
const maxUseNames = 4096

// useTree reads `use a::b::{c, d as e, f::*}` into rustUses.
func (r *rustReader) useTree(f *rustFile, i, end int, mods []string, priv string) {
	var walk func(j int, prefix []string, depth int) int
	walk = func(j int, prefix []string, depth int) int {
		p := append([]string(nil), prefix...)
		for j < end && len(r.reuses) < maxUseNames {
			t := f.text(j)
			switch {
			case t == "::":
				j++
			case t == "{":
				c := min(f.match[j], end)
				if depth < maxRustDepth {
					k := j + 1
					for k < c {
						k = walk(k, p, depth+1)
						if f.text(k) == "," {
							k++
						} else if k < c {
							k++ // not a tree: step over it
						}
					}
				}
				return c + 1
			case t == "*":
				r.reuses = append(r.reuses, rustUse{mods: mods, priv: priv, from: r.full, target: p, glob: true})
				return j + 1
			case isTSName(t) || t == "self" || t == "super" || t == "crate":
				if t == "self" && len(p) > 0 && (f.text(j+1) == "," || f.text(j+1) == "}" || f.text(j+1) == "as") {
					// a::{self}: the module itself
					j++
					continue
				}
				p = append(p, t)
				j++
				if f.text(j) == "as" {
					alias := f.text(j + 1)
					if isTSName(alias) && alias != "_" {
						r.reuses = append(r.reuses, rustUse{mods: mods, priv: priv, from: r.full, target: p, alias: alias})
					}
					return j + 2
				}
				if f.text(j) != "::" {
					if len(p) > 0 && isTSName(p[len(p)-1]) {
						r.reuses = append(r.reuses, rustUse{mods: mods, priv: priv, from: r.full, target: p, alias: p[len(p)-1]})
					}
					return j
				}
			default:
				return j
			}
		}
		return j
	}
	j := i
	for j < end && len(r.reuses) < maxUseNames {
		k := walk(j, nil, 0)
		if k <= j {
			k = j + 1
		}
		j = k
	}
}

// maxUseHops bounds a chain of re-exports.
const maxUseHops = 16

// emitReexports adds, for each `pub use` in a public module, the item
// it names under its public path (tokio::spawn for task::spawn), unless
// an item is already listed there. The unit points at the definition.
func (r *rustReader) emitReexports() {
	byPath := map[string]int{}
	have := map[string]bool{}
	for k, it := range r.items {
		if it.owner == "" && it.path != "" {
			if _, ok := byPath[it.path]; !ok {
				byPath[it.path] = k
			}
		}
	}
	for _, u := range r.x.docs.Units {
		if u.Symbol != nil {
			have[u.Symbol.Name] = true
		}
	}
	// re-exports by the path they create, for chains
	uses := map[string]rustUse{}
	for _, u := range r.reuses {
		if !u.glob {
			uses[qualify(u.from, u.alias)] = u
		}
	}
	// a path's resolution once found (or not) is kept: chains and
	// cycles cost one visit per path
	memo := map[string]int{} // path → item index, -1 none, -2 being resolved
	var resolvePath func(p string, hops int) (int, bool)
	resolve := func(u rustUse, hops int) (int, bool) {
		for _, cand := range rustUsePaths(u.from, u.target) {
			if k, ok := resolvePath(cand, hops); ok {
				return k, true
			}
		}
		return 0, false
	}
	resolvePath = func(p string, hops int) (int, bool) {
		if k, ok := byPath[p]; ok {
			return k, true
		}
		if k, ok := memo[p]; ok {
			return k, k >= 0
		}
		next, ok := uses[p]
		if !ok || hops > maxUseHops {
			return 0, false
		}
		memo[p] = -2
		k, ok := resolve(next, hops+1)
		if !ok {
			k = -1
		}
		memo[p] = k
		return k, ok
	}
	for _, u := range r.reuses {
		if u.priv != "" || r.x.full || r.x.ctx.Err() != nil {
			continue
		}
		if u.glob {
			if !r.emitGlob(u, byPath, have) && r.external(rustUse{target: append(append([]string(nil), u.target...), "*"), from: u.from}) {
				// another crate's whole API: named, its items are that crate's
				name := qualify(u.mods, strings.Join(u.target, "::")+"::*")
				if !have[name] {
					have[name] = true
					s := Symbol{Name: name, Kind: SymReexport, Signature: "pub use " + strings.Join(u.target, "::") + "::*;"}
					doc := "Everything public in the `" + u.target[0] + "` crate is re-exported here; its items are documented with that crate."
					r.x.add(Unit{Kind: KindAPI, Path: "api/" + name, Title: name, Text: apiMarkdown("rust", s, doc, nil), Symbol: &s, Doc: doc})
				}
			}
			continue
		}
		name := qualify(u.mods, u.alias)
		if have[name] {
			continue
		}
		k, ok := resolve(u, 0)
		if !ok {
			if r.external(u) {
				s := Symbol{Name: name, Kind: SymReexport, Signature: "pub use " + strings.Join(u.target, "::") + aliasText(u) + ";"}
				doc := "Re-exported from the `" + u.target[0] + "` crate."
				r.x.add(Unit{Kind: KindAPI, Path: "api/" + name, Title: name, Text: apiMarkdown("rust", s, doc, nil), Symbol: &s, Doc: doc})
				have[name] = true
			}
			continue
		}
		r.emitAlias(r.items[k], name)
		have[name] = true
	}
}

// external says whether a use names another crate: its first segment
// is no module or item of this one.
func (r *rustReader) external(u rustUse) bool {
	if len(u.target) < 2 {
		return false
	}
	first := u.target[0]
	switch first {
	case "crate", "self", "super", "std", "core", "alloc":
		return false
	}
	if r.modules[first] || r.modules[qualify(u.from, first)] {
		return false
	}
	for _, it := range r.items {
		if lastSeg(it.path) == first {
			return false
		}
	}
	return true
}

func aliasText(u rustUse) string {
	if u.alias != "" && u.alias != u.target[len(u.target)-1] {
		return " as " + u.alias
	}
	return ""
}

// emitGlob lists under u's module the items of the module a `pub use
// m::*` names (one level: the items written in m).
func (r *rustReader) emitGlob(u rustUse, byPath map[string]int, have map[string]bool) bool {
	for _, cand := range rustUsePaths(u.from, u.target) {
		prefix := cand + "::"
		found := false
		for _, it := range r.items {
			rest, ok := strings.CutPrefix(it.path, prefix)
			if !ok || it.owner != "" || strings.Contains(rest, "::") || it.s.Kind == SymPackage {
				continue
			}
			found = true
			name := qualify(u.mods, rest)
			if have[name] {
				continue
			}
			have[name] = true
			r.emitAlias(it, name)
		}
		if found {
			return true
		}
	}
	return false
}

// emitAlias adds an item under another public name: its signature, and
// its doc's first paragraph with the name it is defined under.
func (r *rustReader) emitAlias(it rustItem, name string) {
	if it.s.Name == name {
		return
	}
	s := it.s
	s.Name = name
	if it.hidden {
		// its only public name: the whole doc, as rustdoc shows it
		r.x.add(Unit{Kind: KindAPI, Path: "api/" + name, Title: name, Text: apiMarkdown("rust", s, rustVisible(it.doc), nil),
			Symbol: &s, Doc: it.doc, File: it.file, Line: it.line})
		docExamples(r.x, "rust", name, it.doc, it.file, it.line)
		return
	}
	doc := "Re-export of `" + it.s.Name + "`."
	if first, _, _ := strings.Cut(rustVisible(it.doc), "\n\n"); strings.TrimSpace(first) != "" {
		doc += "\n\n" + first
	}
	r.x.add(Unit{Kind: KindAPI, Path: "api/" + name, Title: name, Text: apiMarkdown("rust", s, doc, nil),
		Symbol: &s, Doc: doc, File: it.file, Line: it.line})
}

// rustUsePaths lists the crate paths a use path may mean, from module
// from: crate::, self::, super:: as Rust says; a plain path relative to
// the module (2018) or to the crate root (2015).
func rustUsePaths(from, target []string) []string {
	if len(target) == 0 {
		return nil
	}
	base := append([]string(nil), from...)
	t := target
	switch t[0] {
	case "crate":
		return []string{strings.Join(t[1:], "::")}
	case "self":
		return []string{qualify(base, strings.Join(t[1:], "::"))}
	case "super":
		for len(t) > 0 && t[0] == "super" {
			if len(base) > 0 {
				base = base[:len(base)-1]
			}
			t = t[1:]
		}
		return []string{qualify(base, strings.Join(t, "::"))}
	}
	rel := qualify(base, strings.Join(t, "::"))
	root := strings.Join(t, "::")
	if rel == root {
		return []string{rel}
	}
	return []string{rel, root}
}
