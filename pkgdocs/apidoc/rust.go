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
	r := newRustReader(x)
	r.file(lib, true, nil, "", 0)
	r.emitAll()
	return nil
}

func newRustReader(x *extractor) *rustReader {
	return &rustReader{x: x, seen: map[string]bool{}, pubUse: map[string]bool{}, globs: map[string]bool{},
		wrappers: map[string]*rustWrap{}, macros: map[string]bool{}, bodies: map[string]rustSpan{}, modules: map[string]bool{}}
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
		if it.hidden {
			continue
		}
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
			return
		}
		docExamples(x, "rust", it.s.Name, it.doc, it.file, it.line)
	}
	r.emitReexports()
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
	// full is the module being read, private segments included
	full []string
	// reuses are the `pub use` re-exports read (rustexports.go)
	reuses []rustUse
	// wrappers are the crate's macro_rules that wrap an item with docs
	// or #[macro_export] (tokio's doc! around select!); wrap is the one
	// whose invocation is being read
	wrappers map[string]*rustWrap
	wrap     *rustWrap
	macros   map[string]bool // exported macros emitted (cfg(doc) and cfg(not(doc)) twins)
	hidden   int             // inside a #[doc(hidden)] module: macros only
	// bodies are the item bodies of the crate's macro_rules whose first
	// rule takes nothing (serde's crate_root!), expanded where invoked
	bodies  map[string]rustSpan
	modules map[string]bool // module paths read, private ones included
	// pathBase is the folder of the file invoking the macro whose body
	// is being read: #[path] there is relative to it
	pathBase string
}

// rustSpan is tokens [start, end) of a file.
type rustSpan struct {
	f          *rustFile
	start, end int
}

type rustItem struct {
	s       Symbol
	doc     string
	file    string
	line    int
	privMod string // the innermost private module holding it, "" if none
	owner   string // an inherent method's type
	path    string // the item's path with private modules: "task::spawn::spawn"
	// hidden: in a #[doc(hidden)] module, listed only where a visible
	// `pub use` re-exports it (tokio's net::UnixDatagram)
	hidden bool
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
			c := min(f.match[i+2], end)
			if d, ok := r.includeDoc(f, f.span(i, c+1)); ok {
				inner = append(inner, d)
				if innerAt < 0 {
					innerAt = i
				}
			}
			i = c + 1
			continue
		case f.text(i) == "#" && f.text(i+1) == "[":
			c := min(f.match[i+1], end)
			a := f.src[f.toks[i].start:f.toks[min(c, len(f.toks)-1)].end]
			if d, ok := docAttr(a); ok {
				docs = append(docs, d)
			} else if d, ok := r.includeDoc(f, a); ok {
				docs = append(docs, d)
			} else if d, ok := deprecatedAttr(a); ok {
				docs = append(docs, "", d)
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

// modFile finds `mod name;`'s file: #[path], name.rs or name/mod.rs.
func (r *rustReader) modFile(f *rustFile, attrs []string, name string, mods []string, priv, dir string, depth int) {
	for _, a := range attrs {
		c := strings.Join(strings.Fields(a), "")
		// #[path = "x"], or #[cfg_attr(docsrs, path = "x")] (serde's
		// docs.rs layout, the one rustdoc reads)
		k := strings.Index(c, `path="`)
		if k >= 0 && (strings.HasPrefix(c, `#[path="`) || strings.HasPrefix(c, "#[cfg_attr(") && (c[k-1] == ',' || c[k-1] == '(')) {
			p, _, _ := strings.Cut(c[k+len(`path="`):], `"`)
			base := path.Dir(f.name)
			if r.pathBase != "" {
				base = r.pathBase // a module declared by a macro: beside the invocation
			}
			full := path.Join(base, p)
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
	p := ""
	if owner == "" {
		p = qualify(r.full, lastSeg(name))
	}
	r.items = append(r.items, rustItem{s: Symbol{Name: name, Kind: kind, Signature: sig}, doc: doc, file: f.name,
		line: f.li.line(f.toks[at].start), privMod: priv, owner: owner, path: p, hidden: r.hidden > 0 && kind != SymMacro})
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
