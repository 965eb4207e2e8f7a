package apidoc

import (
	"sort"
	"strings"
)

// pyEmit adds the units of the public modules mods (sorted): each
// definition once, under its shortest public path, its other public
// paths named in its text.
func pyEmit(x *extractor, r *pyResolver, mods []pyMod) {
	sort.SliceStable(mods, func(i, j int) bool {
		di, dj := strings.Count(mods[i].name, "."), strings.Count(mods[j].name, ".")
		if di != dj {
			return di < dj
		}
		return mods[i].name < mods[j].name
	})
	type done struct {
		unit    int
		name    string
		aliases []string
	}
	emitted := map[string]*done{} // module\x00item → unit
	type later struct {
		m    *pySrc
		name string
	}
	// incidental: names a plain module without __all__ imports for its
	// own use (rich.markdown's `from .syntax import Syntax`). They are
	// not its API: they are emitted after every module, and only for a
	// definition no public path reaches (a facade over a private module).
	var incidental []later
	for _, pm := range mods {
		if x.ctx.Err() != nil || x.full {
			return
		}
		m := r.module(pm.name)
		if m == nil {
			continue
		}
		if m.doc != "" {
			x.addAPI("python", Symbol{Name: m.name, Kind: SymPackage}, m.doc, m.file, m.docLine, nil)
		}
		for _, name := range r.publicNames(m) {
			if strings.HasPrefix(name, "_") {
				continue
			}
			if pyIncidental(m, name) {
				incidental = append(incidental, later{m, name})
				continue
			}
			ref, ok := r.resolve(m, name, 0)
			if !ok || ref.mod != "" {
				continue
			}
			public := m.name + "." + name
			if ref.ext != "" {
				if !m.hasAll && !ref.explicit {
					continue // an import for the module's own use
				}
				s := Symbol{Name: public, Kind: SymReexport, Signature: ref.ext}
				x.addAPI("python", s, "Re-exported from another distribution.", m.file, 0, nil)
				continue
			}
			key := ref.src.name + "\x00" + ref.src.items[ref.item].name
			if d := emitted[key]; d != nil {
				// a deeper path to the same name is mentioned; another
				// name, or another top-level package, is a unit of its own
				if strings.Count(public, ".") > strings.Count(d.name, ".") && lastDot(public) == lastDot(d.name) {
					d.aliases = append(d.aliases, public)
					continue
				}
				it := ref.src.items[ref.item]
				doc := "Same as `" + d.name + "`."
				if first, _, _ := strings.Cut(it.doc, "\n\n"); first != "" {
					doc += "\n\n" + first
				}
				x.addAPI("python", Symbol{Name: public, Kind: it.kind, Signature: it.sig}, doc, ref.src.file, it.line, nil)
				continue
			}
			first := len(x.docs.Units)
			pyEmitItem(x, ref.src, ref.item, public)
			if len(x.docs.Units) > first {
				emitted[key] = &done{unit: first, name: public}
			}
		}
	}
	for _, l := range incidental {
		if x.ctx.Err() != nil || x.full {
			return
		}
		ref, ok := r.resolve(l.m, l.name, 0)
		if !ok || ref.mod != "" || ref.ext != "" {
			continue
		}
		key := ref.src.name + "\x00" + ref.src.items[ref.item].name
		if emitted[key] != nil {
			continue
		}
		first := len(x.docs.Units)
		public := l.m.name + "." + l.name
		pyEmitItem(x, ref.src, ref.item, public)
		if len(x.docs.Units) > first {
			emitted[key] = &done{unit: first, name: public}
		}
	}
	for _, d := range emitted {
		if len(d.aliases) == 0 || d.unit >= len(x.docs.Units) {
			continue
		}
		u := &x.docs.Units[d.unit]
		u.Text = strings.TrimRight(u.Text, "\n") + "\n\nAlso importable as " + strings.Join(quoteAll(d.aliases), ", ") + ".\n"
	}
}

// pyIncidental says whether name is bound in m, a plain module (no
// package __init__) without __all__, by an import from another module
// that is not written as a re-export (`from x import a as a`).
func pyIncidental(m *pySrc, name string) bool {
	if m.pkg || m.hasAll {
		return false
	}
	b, ok := m.binds[name]
	return ok && b.kind == pyBindImport && b.mod != m.name && !b.explicit
}

func lastDot(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}

// pyEmitItem adds a definition under its public name, and for a class
// its members under it.
func pyEmitItem(x *extractor, m *pySrc, k int, public string) {
	it := m.items[k]
	emit := func(it pyItem, name string) {
		s := Symbol{Name: name, Kind: it.kind, Signature: it.sig}
		x.addAPI("python", s, it.doc, m.file, it.line, nil)
		pyExamples(x, m.file, name, it.doc, it.line)
	}
	emit(it, public)
	if it.kind != SymClass {
		return
	}
	prefix := it.name + "."
	for _, c := range m.items[k+1:] {
		if !strings.HasPrefix(c.name, prefix) {
			break // members follow their class
		}
		emit(c, public+"."+strings.TrimPrefix(c.name, prefix))
	}
}
