package apidoc

import (
	"sort"
	"strings"
)

// The public surface of a Python package as its users import it. A
// public module's names are its __all__ when it has one, else every
// name it binds without a leading "_" (its definitions, what it
// imports, what its star imports bring). Each name is followed to where
// it is defined — through `from ._client import AsyncClient`, `from .x
// import *`, aliases and lazy-import tables read by a module
// __getattr__ — and the definition becomes one unit under the shortest
// public path (`httpx.AsyncClient`), keeping its file and line
// (httpx/_client.py). Private modules contribute only what is
// re-exported. Following stops at maxPyHops and at a cycle, which is
// reported, so any import graph ends.

// maxPyHops bounds one name's chain of re-exports.
const maxPyHops = 32

// pyRef is what a name resolves to: a definition (src, item), a module
// (mod), or a name of another distribution (ext: the statement;
// explicit when written `import a as a`).
type pyRef struct {
	src      *pySrc
	item     int
	mod      string
	ext      string
	explicit bool
}

// pyResolver reads modules on demand and follows their bindings.
type pyResolver struct {
	x       *extractor
	files   map[string]string // module name → file
	stubs   map[string]string // module name → its .pyi beside the .py
	pkgs    map[string]bool   // module names that are __init__ files
	parsed  map[string]*pySrc
	stars   map[string]map[string]bool
	state   map[string]int // star-name computation: 1 running, 2 done
	cycles  map[string]bool
	load    func(file string) (string, bool)
	visited map[string]bool
	// done keeps each name's resolution: star imports form diamonds, and
	// a name that fails would otherwise be retried down every path
	done map[string]pyDone
	// cuts counts the cycle and depth cut-offs met; a failure that met
	// one depends on the path it was reached by (the name may resolve
	// from another start), so it is kept in cutFails, only for the
	// top-level resolution under way, not in done.
	cuts     int
	cutFails map[string]bool
}

type pyDone struct {
	ref pyRef
	ok  bool
}

func newPyResolver(x *extractor, mods []pyMod) *pyResolver {
	r := &pyResolver{x: x, files: map[string]string{}, stubs: map[string]string{}, pkgs: map[string]bool{}, parsed: map[string]*pySrc{},
		stars: map[string]map[string]bool{}, state: map[string]int{}, cycles: map[string]bool{}, visited: map[string]bool{}, done: map[string]pyDone{}}
	for _, m := range mods {
		if m.stub {
			r.stubs[m.name] = m.file
			continue
		}
		r.files[m.name] = m.file
		r.pkgs[m.name] = strings.HasSuffix(m.file, "__init__.py") || strings.HasSuffix(m.file, "__init__.pyi")
	}
	r.load = x.source
	return r
}

// module parses a module of the package once; nil when it is not one.
func (r *pyResolver) module(name string) *pySrc {
	if m, ok := r.parsed[name]; ok {
		return m
	}
	file, ok := r.files[name]
	if !ok {
		return nil
	}
	r.parsed[name] = nil // a module reading itself while parsed is no module
	src, ok := r.load(file)
	if !ok {
		return nil
	}
	m := pyParse(r.x, name, file, src, r.pkgs[name])
	r.parsed[name] = m
	return m
}

// stub parses a module's .pyi stub once; nil when it has none.
func (r *pyResolver) stub(name string) *pySrc {
	key := name + ".pyi"
	if m, ok := r.parsed[key]; ok {
		return m
	}
	file, ok := r.stubs[name]
	r.parsed[key] = nil
	if !ok {
		return nil
	}
	src, ok := r.load(file)
	if !ok {
		return nil
	}
	m := pyParse(r.x, name, file, src, strings.HasSuffix(file, "__init__.pyi"))
	m.stub = true
	r.parsed[key] = m
	return m
}

// resolve follows name in module m to its definition.
func (r *pyResolver) resolve(m *pySrc, name string, hops int) (pyRef, bool) {
	key := m.file + "\x00" + name // a stub shares its module's name
	if d, ok := r.done[key]; ok {
		return d.ref, d.ok
	}
	if len(r.visited) == 0 {
		r.cutFails = nil // a new top-level resolution
	} else if r.cutFails[key] {
		return pyRef{}, false
	}
	before := r.cuts
	ref, ok := r.follow(m, name, key, hops)
	switch {
	case ok || r.cuts == before:
		r.done[key] = pyDone{ref, ok}
	default:
		if r.cutFails == nil {
			r.cutFails = map[string]bool{}
		}
		r.cutFails[key] = true
	}
	return ref, ok
}

// follow is resolve's work for one module and name.
func (r *pyResolver) follow(m *pySrc, name, key string, hops int) (pyRef, bool) {
	if hops > maxPyHops || r.visited[key] {
		r.cuts++
		if !r.cycles[m.name] {
			r.cycles[m.name] = true
			r.x.warn(m.file, "circular or too long re-export of %s: left out", name)
		}
		return pyRef{}, false
	}
	r.visited[key] = true
	defer delete(r.visited, key)
	if b, ok := m.binds[name]; ok {
		switch b.kind {
		case pyBindItem:
			return pyRef{src: m, item: b.item}, true
		case pyBindImport:
			if b.attr == "" {
				return pyRef{mod: b.mod}, r.files[b.mod] != ""
			}
			if sub := b.mod + "." + b.attr; b.mod == m.name && r.files[sub] != "" {
				return pyRef{mod: sub}, true // `from . import sub` in a package
			}
			if t := r.module(b.mod); t != nil {
				if ref, ok := r.resolve(t, b.attr, hops+1); ok {
					return ref, true
				}
			}
			if sub := b.mod + "." + b.attr; r.files[sub] != "" {
				return pyRef{mod: sub}, true
			}
			if r.files[b.mod] == "" && !r.inPackage(b.mod) {
				return pyRef{ext: b.stmt, explicit: b.explicit}, true
			}
			// from a compiled module, or a loop: the stub may say
		}
	}
	if m.getattr {
		for _, l := range m.lazy {
			if l.name != name {
				continue
			}
			base := m.name
			if !m.pkg {
				base = pyParent(base)
			}
			if l.attr == "__module__" {
				sub := base + "." + name
				return pyRef{mod: sub}, r.files[sub] != ""
			}
			target := l.mod
			if strings.HasPrefix(target, ".") {
				target = strings.TrimSuffix(base+target, ".")
			}
			attr := l.attr
			if attr == "" {
				attr = name
			}
			if t := r.module(target); t != nil {
				return r.resolve(t, attr, hops+1)
			}
			return pyRef{}, false
		}
	}
	for _, s := range m.stars {
		t := r.module(s)
		if t == nil || !r.starNames(t)[name] {
			continue
		}
		if ref, ok := r.resolve(t, name, hops+1); ok {
			return ref, true
		}
	}
	if sub := m.name + "." + name; r.files[sub] != "" {
		return pyRef{mod: sub}, true
	}
	if !m.stub {
		if st := r.stub(m.name); st != nil {
			return r.resolve(st, name, hops+1)
		}
	}
	return pyRef{}, false
}

// refModule finds the module a dotted name in m means ("_core",
// "lib._npyio_impl"): its first name resolved in m, the rest submodules.
func (r *pyResolver) refModule(m *pySrc, ref string) *pySrc {
	first, rest, _ := strings.Cut(ref, ".")
	ref0, ok := r.resolve(m, first, 0)
	if !ok || ref0.mod == "" {
		return nil
	}
	name := ref0.mod
	if rest != "" {
		name += "." + rest
	}
	return r.module(name)
}

// inPackage says whether a module name falls under one of the package's
// top-level modules (then failing to find it is a miss, not another
// distribution).
func (r *pyResolver) inPackage(mod string) bool {
	top, _, _ := strings.Cut(mod, ".")
	return r.files[top] != ""
}

// starNames is what `from m import *` brings: __all__, else every name
// without a leading "_" that m binds or star-imports. A cycle of star
// imports ends where it closes.
func (r *pyResolver) starNames(m *pySrc) map[string]bool {
	switch r.state[m.name] {
	case 1:
		return nil
	case 2:
		return r.stars[m.name]
	}
	r.state[m.name] = 1
	out := map[string]bool{}
	if m.hasAll {
		for _, n := range m.all {
			out[n] = true
		}
	} else {
		for _, n := range m.order {
			if !strings.HasPrefix(n, "_") {
				out[n] = true
			}
		}
		for _, s := range m.stars {
			if t := r.module(s); t != nil {
				for n := range r.starNames(t) {
					out[n] = true
				}
			}
		}
	}
	r.stars[m.name] = out
	r.state[m.name] = 2
	return out
}

// publicNames lists a public module's names in a stable order: __all__
// as written, else bound names, star-imported ones, then lazy ones.
func (r *pyResolver) publicNames(m *pySrc) []string {
	if !m.stub && (!m.hasAll || m.allCalc) {
		// names computed at import time: the stub's, when there is one
		if st := r.stub(m.name); st != nil {
			return pyUnion(r.pyNames(m), r.publicNames(st))
		}
	}
	return r.pyNames(m)
}

func pyUnion(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(append([]string(nil), a...), b...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// pyNames lists the names module m's own text makes public.
func (r *pyResolver) pyNames(m *pySrc) []string {
	if m.hasAll {
		if len(m.allRefs) == 0 {
			return m.all
		}
		names := m.all
		for _, ref := range m.allRefs {
			if t := r.refModule(m, ref); t != nil {
				var more []string
				for n := range r.starNames(t) {
					more = append(more, n)
				}
				sort.Strings(more)
				names = pyUnion(names, more)
			}
		}
		return names
	}
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] && !strings.HasPrefix(n, "_") {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range m.order {
		add(n)
	}
	var star []string
	for _, s := range m.stars {
		if t := r.module(s); t != nil {
			for n := range r.starNames(t) {
				star = append(star, n)
			}
		}
	}
	sort.Strings(star)
	for _, n := range star {
		add(n)
	}
	if m.getattr {
		for _, l := range m.lazy {
			add(l.name)
		}
	}
	return out
}
