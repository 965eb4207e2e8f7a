package packages

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// packageJSON holds the fields of a package.json discovery uses. Each
// is decoded on its own, so one field of an odd type (a licence object,
// a repository string) loses only itself.
type packageJSON struct {
	Name, Version, Description, License, Homepage, Repository string
	Dependencies, DevDependencies, OptionalDependencies       map[string]string
	Workspaces                                                []string
}

func parsePackageJSON(data []byte) (*packageJSON, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	str := func(k string) string {
		var s string
		json.Unmarshal(raw[k], &s)
		return s
	}
	deps := func(k string) map[string]string {
		var m map[string]json.RawMessage
		json.Unmarshal(raw[k], &m)
		out := make(map[string]string, len(m))
		for name, v := range m {
			var s string
			json.Unmarshal(v, &s)
			out[name] = s
		}
		return out
	}
	pj := &packageJSON{
		Name: str("name"), Version: str("version"), Description: str("description"), Homepage: str("homepage"),
		Dependencies: deps("dependencies"), DevDependencies: deps("devDependencies"), OptionalDependencies: deps("optionalDependencies"),
	}
	pj.License = str("license")
	if pj.License == "" {
		var obj struct{ Type string }
		if json.Unmarshal(raw["license"], &obj) == nil {
			pj.License = obj.Type
		}
		var list []struct{ Type string }
		if pj.License == "" && json.Unmarshal(raw["licenses"], &list) == nil && len(list) > 0 {
			pj.License = list[0].Type
		}
	}
	if pj.Repository = str("repository"); pj.Repository == "" {
		var obj struct{ URL string }
		json.Unmarshal(raw["repository"], &obj)
		pj.Repository = obj.URL
	}
	pj.Repository = repoURL(pj.Repository)
	if json.Unmarshal(raw["workspaces"], &pj.Workspaces) != nil {
		var obj struct{ Packages []string }
		json.Unmarshal(raw["workspaces"], &obj)
		pj.Workspaces = obj.Packages
	}
	return pj, nil
}

// npmDecl is one dependency to find: a name and the range or version
// asked, resolved node-style from a folder.
type npmDecl struct {
	name, spec string
	from       string // real folder the lookup starts from
	direct     bool
	optional   bool
}

type npmWalk struct {
	d      *discovery
	pkgs   map[string]*Package // name@version
	order  []string
	seen   map[string]bool // real folders visited
	queue  []npmDecl
	miss   []npmDecl
	linked map[string]bool // names linked outside the project
}

// discoverNPM resolves the dependencies in package.json the way Node
// does, from the project folder up through node_modules folders, which
// covers npm's nested and hoisted layouts and pnpm's symlinked one.
// Versions come from each installed package.json; the lockfile gives
// the versions of what is declared but not installed and, with --all
// and no node_modules, the whole install.
func discoverNPM(ctx context.Context, d *discovery) (bool, []Package) {
	pjPath := d.path("package.json")
	hasPJ, hasNM := exists(pjPath), exists(d.path("node_modules"))
	hasLock := exists(d.path("package-lock.json")) || exists(d.path("pnpm-lock.yaml")) || exists(d.path("npm-shrinkwrap.json"))
	if !hasPJ && !hasNM && !hasLock {
		return false, nil
	}
	lock := d.readNPMLock()
	w := &npmWalk{d: d, pkgs: map[string]*Package{}, seen: map[string]bool{}, linked: map[string]bool{}}
	declared := false
	if hasPJ {
		if pj := d.readPackageJSON(pjPath); pj != nil {
			declared = true
			w.declare(pj, d.dir)
			for _, member := range d.npmWorkspaces(pj) {
				if mpj := d.readPackageJSON(filepath.Join(member, "package.json")); mpj != nil {
					w.declare(mpj, member)
				}
			}
		}
	}
	if !declared && lock != nil {
		names := make([]string, 0, len(lock.root))
		for n := range lock.root {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			w.queue = append(w.queue, npmDecl{name: n, spec: lock.root[n], from: d.dir, direct: true})
		}
		if len(names) > 0 {
			d.warn(pjPath, "direct dependencies taken from %s", d.rel(lock.file))
		}
	}
	for len(w.queue) > 0 && ctx.Err() == nil {
		x := w.queue[0]
		w.queue = w.queue[1:]
		w.visit(x)
	}
	var missing []*Package
	addMissing := func(name, version string, direct bool) {
		key := name + "@" + version
		if p, ok := w.pkgs[key]; ok {
			p.Direct = p.Direct || direct
			return
		}
		p := &Package{Ecosystem: NPM, Name: name, Version: version, Direct: direct, Missing: "not installed in node_modules"}
		w.pkgs[key] = p
		w.order = append(w.order, key)
		if w.linked[name] {
			p.Missing = "linked outside the project: not read"
			return
		}
		missing = append(missing, p)
	}
	for _, m := range w.miss {
		if m.optional && !m.direct {
			continue // platform-specific builds are optional and absent elsewhere
		}
		v := m.spec
		if lock != nil {
			if lv, ok := lock.root[m.name]; ok && m.direct {
				v = lv
			} else if lv := lock.only(m.name); lv != "" {
				v = lv
			}
		}
		if v == "" {
			v = "latest"
		}
		addMissing(m.name, v, m.direct)
	}
	if d.opt.All && !hasNM && lock != nil {
		for _, e := range lock.all {
			if !e.optional {
				addMissing(e.name, e.version, false)
			}
		}
	}
	d.npmFromCache(missing)
	if d.opt.Fetch {
		d.npmFetch(ctx, missing)
	}
	out := make([]Package, 0, len(w.order))
	for _, k := range w.order {
		out = append(out, *w.pkgs[k])
	}
	return true, pairTypes(out)
}

// pairTypes gives a package that ships no declarations the installed
// @types package that declares it (express and @types/express), and
// leaves that @types package out of the list: its docs are express's,
// stored under express's version, and a second entry would only repeat
// them. An @types package with no installed partner (@types/node, or
// express-serve-static-core's types) stays a package of its own.
func pairTypes(pkgs []Package) []Package {
	byName := map[string]int{}
	for i, p := range pkgs {
		if p.Dir != "" {
			byName[p.Name] = i
		}
	}
	paired := map[int]bool{}
	for i := range pkgs {
		p := &pkgs[i]
		if p.Dir == "" || strings.HasPrefix(p.Name, "@types/") || hasOwnTypes(p.Dir) {
			continue
		}
		j, ok := byName[TypesName(p.Name)]
		if !ok {
			continue
		}
		t := pkgs[j]
		p.TypesDir, p.TypesFrom = t.Dir, t.Name+"@"+t.Version
		paired[j] = true
	}
	if len(paired) == 0 {
		return pkgs
	}
	out := pkgs[:0]
	for i, p := range pkgs {
		if !paired[i] {
			out = append(out, p)
		}
	}
	return out
}

// TypesName is the DefinitelyTyped package of an npm package:
// "@types/express", "@types/babel__core" for "@babel/core".
func TypesName(name string) string {
	if strings.HasPrefix(name, "@") {
		name = strings.Replace(name[1:], "/", "__", 1)
	}
	return "@types/" + name
}

// hasOwnTypes says whether an installed package declares its own types
// (package.json types or typings, or an index.d.ts), so that an @types
// package beside it is not what documents it.
func hasOwnTypes(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "index.d.ts")); err == nil {
		return true
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var pj struct {
		Types   string `json:"types"`
		Typings string `json:"typings"`
	}
	return json.Unmarshal(data, &pj) == nil && (pj.Types != "" || pj.Typings != "")
}

// only is the version of a package when the lockfile has exactly one.
func (l *npmLock) only(name string) string {
	v := ""
	for _, e := range l.all {
		if e.name == name {
			if v != "" && v != e.version {
				return ""
			}
			v = e.version
		}
	}
	return v
}

func (w *npmWalk) declare(pj *packageJSON, from string) {
	add := func(m map[string]string, optional bool) {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			w.queue = append(w.queue, npmDecl{name: n, spec: m[n], from: from, direct: true, optional: optional})
		}
	}
	add(pj.Dependencies, false)
	add(pj.DevDependencies, false)
	add(pj.OptionalDependencies, true)
}

// visit finds one dependency and, with --all, queues its own.
func (w *npmWalk) visit(x npmDecl) {
	d := w.d
	if strings.HasPrefix(x.spec, "link:") || strings.HasPrefix(x.spec, "file:") || strings.HasPrefix(x.spec, "workspace:") {
		return // the project's own code
	}
	dir := w.resolve(x.from, x.name)
	if dir == "" {
		w.miss = append(w.miss, x)
		return
	}
	if !strings.Contains(dir, string(filepath.Separator)+"node_modules"+string(filepath.Separator)) {
		return // a workspace member linked into node_modules: the project's own code
	}
	pjPath := filepath.Join(dir, "package.json")
	pj := d.readPackageJSON(pjPath)
	if pj == nil {
		return
	}
	name := pj.Name
	if name == "" {
		name = x.name
	}
	if pj.Version == "" {
		d.warn(pjPath, "no version, package skipped")
		return
	}
	key := name + "@" + pj.Version
	if p, ok := w.pkgs[key]; ok {
		p.Direct = p.Direct || x.direct
	} else {
		w.pkgs[key] = &Package{Ecosystem: NPM, Name: name, Version: pj.Version, Dir: dir, Direct: x.direct,
			Summary: pj.Description, License: pj.License, Homepage: pj.Homepage, Repository: pj.Repository}
		w.order = append(w.order, key)
	}
	if !d.opt.All || w.seen[dir] {
		return
	}
	w.seen[dir] = true
	for _, m := range []struct {
		deps     map[string]string
		optional bool
	}{{pj.Dependencies, false}, {pj.OptionalDependencies, true}} {
		names := make([]string, 0, len(m.deps))
		for n := range m.deps {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			w.queue = append(w.queue, npmDecl{name: n, spec: m.deps[n], from: dir, optional: m.optional})
		}
	}
}

// resolve looks name up as Node does: in node_modules of from and of
// each parent, skipping folders that are node_modules themselves, never
// above the project. It returns the package's real folder or "".
func (w *npmWalk) resolve(from, name string) string {
	if !validNPMName(name) {
		return ""
	}
	d := w.d
	for dir := from; within(d.dir, dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) != "node_modules" {
			cand := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
			real, err := d.read.dir(cand)
			switch {
			case err == nil:
				return real
			case errors.Is(err, ErrOutside):
				if !w.linked[name] {
					d.warn(cand, "%v", err)
				}
				w.linked[name] = true
				return ""
			case !errors.Is(err, fs.ErrNotExist):
				d.warn(cand, "%v", err)
			case exists(cand):
				d.warn(cand, "%v", err) // dangling symlink
			}
		}
		if dir == d.dir {
			break
		}
	}
	return ""
}

// readPackageJSON reads and parses one package.json; a broken one is a
// warning naming it.
func (d *discovery) readPackageJSON(p string) *packageJSON {
	data, err := d.read.readFile(p, maxManifest)
	if err != nil {
		d.warn(p, "cannot read: %v", err)
		return nil
	}
	pj, err := parsePackageJSON(data)
	if err != nil {
		d.warn(p, "corrupt package.json: %v", err)
		return nil
	}
	return pj
}

// npmWorkspaces lists the workspace member folders of a root
// package.json, inside the project only.
func (d *discovery) npmWorkspaces(pj *packageJSON) []string {
	var out []string
	for _, pat := range pj.Workspaces {
		if !filepath.IsLocal(filepath.FromSlash(strings.TrimPrefix(pat, "./"))) {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(d.dir, filepath.FromSlash(pat)))
		for _, m := range matches {
			if real, err := d.read.dir(m); err == nil && real != d.dir && exists(filepath.Join(real, "package.json")) {
				out = append(out, real)
			}
		}
	}
	return out
}

// npmCacheDir is where a fetched npm package is unpacked.
func (d *discovery) npmCacheDir(name, version string) string {
	return filepath.Join(d.opt.CacheDir, "npm", strings.ReplaceAll(name, "/", "+")+"@"+version)
}

// npmFromCache fills the missing packages gno fetched on an earlier run.
func (d *discovery) npmFromCache(missing []*Package) {
	if d.opt.CacheDir == "" {
		return
	}
	for _, p := range missing {
		dir := d.npmCacheDir(p.Name, p.Version)
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
			continue
		}
		d.npmFill(p, dir)
	}
}

// npmFill sets a fetched package's folder and metadata.
func (d *discovery) npmFill(p *Package, dir string) {
	real, err := d.read.dir(dir)
	if err != nil {
		return
	}
	pj := d.readPackageJSON(filepath.Join(real, "package.json"))
	if pj == nil {
		return
	}
	p.Dir, p.Missing, p.Fetched = real, "", true
	p.Summary, p.License, p.Homepage, p.Repository = pj.Description, pj.License, pj.Homepage, pj.Repository
}
