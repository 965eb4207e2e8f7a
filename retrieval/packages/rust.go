package packages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// cargoManifest holds the parts of Cargo.toml discovery reads.
type cargoManifest struct {
	Package           map[string]any `toml:"package"`
	Dependencies      map[string]any `toml:"dependencies"`
	DevDependencies   map[string]any `toml:"dev-dependencies"`
	BuildDependencies map[string]any `toml:"build-dependencies"`
	Target            map[string]struct {
		Dependencies      map[string]any `toml:"dependencies"`
		DevDependencies   map[string]any `toml:"dev-dependencies"`
		BuildDependencies map[string]any `toml:"build-dependencies"`
	} `toml:"target"`
	Workspace struct {
		Members      []string       `toml:"members"`
		Exclude      []string       `toml:"exclude"`
		Dependencies map[string]any `toml:"dependencies"`
	} `toml:"workspace"`
}

// cargoLock is Cargo.lock (all formats list [[package]]).
type cargoLock struct {
	Package []cargoLockPackage `toml:"package"`
}

type cargoLockPackage struct {
	Name         string   `toml:"name"`
	Version      string   `toml:"version"`
	Source       string   `toml:"source"`
	Dependencies []string `toml:"dependencies"`
}

// cargoDep is a dependency a manifest declares.
type cargoDep struct {
	name string // the crate's name (package = "..." when renamed)
	req  string // version requirement
	kind string // "registry" (crates.io), "registry:NAME", "git", "path"
}

// crates.io's index, as Cargo.lock names it (git or sparse protocol).
func cratesIO(source string) bool {
	return source == "registry+https://github.com/rust-lang/crates.io-index" || source == "sparse+https://index.crates.io/"
}

// discoverRust reads Cargo.lock for exact versions (the project's own
// crates are the entries without a source; their dependencies are the
// direct ones) and Cargo.toml, with its workspace members, for what is
// declared when there is no lockfile. Sources are the extracted crates
// under $CARGO_HOME/registry/src.
func discoverRust(ctx context.Context, d *discovery) (bool, []Package) {
	manifestPath, lockPath := d.path("Cargo.toml"), d.path("Cargo.lock")
	if !exists(manifestPath) && !exists(lockPath) {
		return false, nil
	}
	var declared []cargoDep
	if root := d.readCargoManifest(manifestPath); root != nil {
		declared = cargoDeps(root, root)
		for _, m := range d.cargoMembers(root) {
			if mm := d.readCargoManifest(filepath.Join(m, "Cargo.toml")); mm != nil {
				declared = append(declared, cargoDeps(mm, root)...)
			}
		}
	}
	var lock *cargoLock
	if exists(lockPath) {
		if data, err := d.read.readFile(lockPath, maxLockfile); err != nil {
			d.warn(lockPath, "cannot read: %v", err)
		} else {
			lock = &cargoLock{}
			if err := toml.Unmarshal(data, lock); err != nil {
				d.warn(lockPath, "cannot parse, versions unknown: %s", tomlError(err))
				lock = nil
			}
		}
	}
	home := d.cargoHome()
	src := newCargoSources(d, home)
	var pkgs []*Package
	var fetch []cargoWant
	seen := map[string]bool{}
	add := func(lp cargoLockPackage, direct bool) {
		key := lp.Name + "@" + lp.Version
		if seen[key] {
			return
		}
		seen[key] = true
		p := &Package{Ecosystem: Rust, Name: lp.Name, Version: lp.Version, Direct: direct}
		pkgs = append(pkgs, p)
		if dir := src.find(lp); dir != "" {
			d.cargoFill(p, dir)
			return
		}
		switch {
		case cratesIO(lp.Source):
			p.Missing = "not in the Cargo registry cache"
			fetch = append(fetch, cargoWant{p: p, req: "=" + lp.Version})
		case strings.HasPrefix(lp.Source, "git+"):
			p.Missing = "git dependency not checked out under CARGO_HOME/git"
		default:
			p.Missing = "from " + lp.Source + ": not in the Cargo registry cache (fetch it with cargo in the project)"
		}
	}
	if lock != nil && slices.ContainsFunc(lock.Package, func(p cargoLockPackage) bool { return p.Source == "" }) {
		direct := cargoDirect(lock)
		for _, lp := range lock.Package {
			if lp.Source != "" && (direct[lp.Name+"@"+lp.Version] || d.opt.All) {
				add(lp, direct[lp.Name+"@"+lp.Version])
			}
		}
		// Declared but absent from a stale lockfile.
		for _, dep := range declared {
			if dep.kind == "registry" && !slices.ContainsFunc(lock.Package, func(p cargoLockPackage) bool { return p.Name == dep.name }) {
				p := &Package{Ecosystem: Rust, Name: dep.name, Version: cargoReqVersion(dep.req), Direct: true, Missing: "not in Cargo.lock"}
				pkgs = append(pkgs, p)
				fetch = append(fetch, cargoWant{p: p, req: dep.req})
			}
		}
	} else {
		done := map[string]bool{}
		for _, dep := range declared {
			if dep.kind == "path" || done[dep.name] {
				continue
			}
			done[dep.name] = true
			p := &Package{Ecosystem: Rust, Name: dep.name, Version: cargoReqVersion(dep.req), Direct: true, Missing: "no Cargo.lock: version not resolved"}
			pkgs = append(pkgs, p)
			switch dep.kind {
			case "registry":
				fetch = append(fetch, cargoWant{p: p, req: dep.req})
			case "git":
				p.Missing = "git dependency without Cargo.lock"
			default:
				p.Missing = "from registry " + strings.TrimPrefix(dep.kind, "registry:") + ": fetch it with cargo in the project"
			}
		}
	}
	if d.opt.Fetch && len(fetch) > 0 {
		d.cargoFetch(ctx, home, fetch)
	}
	out := make([]Package, 0, len(pkgs))
	for _, p := range pkgs {
		out = append(out, *p)
	}
	return true, out
}

// cargoReqVersion gives a requirement as a version label while the exact
// version is unknown: "=1.0.3" is 1.0.3, anything else is kept as is.
func cargoReqVersion(req string) string {
	if v, ok := strings.CutPrefix(strings.TrimSpace(req), "="); ok && !strings.ContainsAny(v, ",*<>") {
		return strings.TrimSpace(v)
	}
	if req == "" {
		return "*"
	}
	return req
}

// cargoDirect lists the lock entries the project's own crates depend on.
func cargoDirect(lock *cargoLock) map[string]bool {
	byName := map[string][]cargoLockPackage{}
	for _, p := range lock.Package {
		byName[p.Name] = append(byName[p.Name], p)
	}
	direct := map[string]bool{}
	for _, root := range lock.Package {
		if root.Source != "" {
			continue
		}
		for _, dep := range root.Dependencies {
			// "name", "name version" or "name version (source)"
			f := strings.Fields(dep)
			if len(f) == 0 {
				continue
			}
			for _, p := range byName[f[0]] {
				if p.Source != "" && (len(f) == 1 || f[1] == p.Version) {
					direct[p.Name+"@"+p.Version] = true
				}
			}
		}
	}
	return direct
}

// readCargoManifest parses a Cargo.toml; a broken one is a warning.
func (d *discovery) readCargoManifest(p string) *cargoManifest {
	if !exists(p) {
		return nil
	}
	data, err := d.read.readFile(p, maxManifest)
	if err != nil {
		d.warn(p, "cannot read: %v", err)
		return nil
	}
	var m cargoManifest
	if err := toml.Unmarshal(data, &m); err != nil {
		d.warn(p, "cannot parse: %s", tomlError(err))
		return nil
	}
	return &m
}

// cargoMembers lists the workspace member folders (globs allowed), inside
// the project only.
func (d *discovery) cargoMembers(root *cargoManifest) []string {
	var out []string
	for _, pat := range root.Workspace.Members {
		if !filepath.IsLocal(filepath.FromSlash(pat)) {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(d.dir, filepath.FromSlash(pat)))
		for _, m := range matches {
			rel, _ := filepath.Rel(d.dir, m)
			if slices.Contains(root.Workspace.Exclude, filepath.ToSlash(rel)) {
				continue
			}
			if real, err := d.read.dir(m); err == nil && real != d.dir && !slices.Contains(out, real) {
				out = append(out, real)
			}
		}
	}
	return out
}

// cargoDeps lists a manifest's dependencies of every kind and target;
// `workspace = true` takes the entry of the root's
// [workspace.dependencies].
func cargoDeps(m, root *cargoManifest) []cargoDep {
	var out []cargoDep
	tables := []map[string]any{m.Dependencies, m.DevDependencies, m.BuildDependencies}
	for _, t := range sortedKeys(m.Target) {
		x := m.Target[t]
		tables = append(tables, x.Dependencies, x.DevDependencies, x.BuildDependencies)
	}
	for _, tab := range tables {
		for _, key := range sortedKeys(tab) {
			dep := cargoDep{name: key, kind: "registry"}
			v := tab[key]
			if t, ok := v.(map[string]any); ok && t["workspace"] == true {
				v = root.Workspace.Dependencies[key]
			}
			switch x := v.(type) {
			case string:
				dep.req = x
			case map[string]any:
				if s, ok := x["version"].(string); ok {
					dep.req = s
				}
				if s, ok := x["package"].(string); ok {
					dep.name = s
				}
				switch {
				case x["path"] != nil && x["version"] == nil:
					dep.kind = "path"
				case x["git"] != nil:
					dep.kind = "git"
				case x["registry"] != nil:
					dep.kind = fmt.Sprintf("registry:%v", x["registry"])
				}
			default:
				continue
			}
			out = append(out, dep)
		}
	}
	return out
}

// cargoHome is CARGO_HOME, else ~/.cargo.
func (d *discovery) cargoHome() string {
	if v := d.env.get("CARGO_HOME"); v != "" {
		return v
	}
	if h := d.env.home(); h != "" {
		return filepath.Join(h, ".cargo")
	}
	return ""
}

// cargoSources finds extracted crates: registry/src/<index>/<name>-<ver>
// for registries, git/checkouts/<repo>-<hash>/<short rev>/ for git.
type cargoSources struct {
	d       *discovery
	home    string
	indexes []string // real paths of registry/src/*
	names   []map[string]bool
}

func newCargoSources(d *discovery, home string) *cargoSources {
	s := &cargoSources{d: d, home: home}
	if home == "" {
		return s
	}
	srcRoot := filepath.Join(home, "registry", "src")
	d.read.allow(srcRoot)
	d.read.allow(filepath.Join(home, "git", "checkouts"))
	real, ents, err := d.read.readDir(srcRoot)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.warn(srcRoot, "cannot list: %v", err)
		}
		return s
	}
	for _, e := range ents {
		s.scan(filepath.Join(real, e.Name()))
	}
	return s
}

func (s *cargoSources) scan(dir string) {
	real, ents, err := s.d.read.readDir(dir)
	if err != nil {
		return
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	if i := slices.Index(s.indexes, real); i >= 0 {
		s.names[i] = names
		return
	}
	s.indexes = append(s.indexes, real)
	s.names = append(s.names, names)
}

// find returns a crate's real source folder, or "".
func (s *cargoSources) find(p cargoLockPackage) string {
	if strings.HasPrefix(p.Source, "git+") {
		return s.findGit(p)
	}
	want := p.Name + "-" + p.Version
	for i, idx := range s.indexes {
		if s.names[i][want] {
			if real, err := s.d.read.dir(filepath.Join(idx, want)); err == nil {
				return real
			} else {
				s.d.warn(filepath.Join(idx, want), "%v", err)
			}
		}
	}
	return ""
}

// findGit looks for a git dependency's crate in the checkout of its
// revision (a repository may hold several crates: up to two folders
// deep).
func (s *cargoSources) findGit(p cargoLockPackage) string {
	_, rev, ok := strings.Cut(p.Source, "#")
	if !ok || len(rev) < 7 || s.home == "" {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(s.home, "git", "checkouts", "*", glob(rev[:7])))
	for _, m := range matches {
		for _, pat := range []string{"Cargo.toml", "*/Cargo.toml", "*/*/Cargo.toml"} {
			files, _ := filepath.Glob(filepath.Join(m, pat))
			for _, f := range files {
				if mm := s.d.readCargoManifest(f); mm != nil && mm.Package["name"] == p.Name {
					if real, err := s.d.read.dir(filepath.Dir(f)); err == nil {
						return real
					}
				}
			}
		}
	}
	return ""
}

// cargoFill sets a crate's folder and its [package] metadata.
func (d *discovery) cargoFill(p *Package, dir string) {
	p.Dir, p.Missing = dir, ""
	m := d.readCargoManifest(filepath.Join(dir, "Cargo.toml"))
	if m == nil {
		return
	}
	str := func(k string) string {
		s, _ := m.Package[k].(string)
		return strings.TrimSpace(s)
	}
	p.Summary = strings.Join(strings.Fields(str("description")), " ")
	p.License = str("license")
	p.Homepage = str("homepage")
	if p.Homepage == "" {
		p.Homepage = str("documentation")
	}
	p.Repository = repoURL(str("repository"))
}

// cargoWant is a crate to fetch, by requirement.
type cargoWant struct {
	p   *Package
	req string
}

// cargoFetch runs `cargo fetch` on a scratch manifest naming the crates
// (renamed d0, d1... so two versions of one crate can coexist). Cargo
// puts the sources in CARGO_HOME as a build would; the user's Cargo
// config applies, and the project's .cargo/config.toml is passed with
// --config (the scratch folder is outside the project).
func (d *discovery) cargoFetch(ctx context.Context, home string, want []cargoWant) {
	ps := make([]*Package, len(want))
	for i, w := range want {
		ps[i] = w.p
	}
	bin, err := d.env.lookPath("cargo")
	if err != nil {
		failAll(ps, "cargo not found on PATH")
		return
	}
	run := func(ws []cargoWant) error {
		dir, err := d.scratch("cargo-")
		if err != nil {
			return err
		}
		defer removeAll(dir)
		var b strings.Builder
		b.WriteString("[package]\nname = \"gno-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\npath = \"lib.rs\"\n\n[workspace]\n\n[dependencies]\n")
		for i, w := range ws {
			fmt.Fprintf(&b, "d%d = { package = %q, version = %q }\n", i, w.p.Name, w.req)
		}
		if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte(b.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "lib.rs"), nil, 0o644); err != nil {
			return err
		}
		args := []string{"fetch"}
		if d.opt.Offline {
			args = append(args, "--offline")
		}
		if cfg := d.path(".cargo", "config.toml"); exists(cfg) {
			if _, err := d.read.resolve(cfg); err == nil {
				args = append(args, "--config", cfg)
			}
		}
		env := []string{"CARGO_TERM_COLOR=never", "CARGO_TERM_PROGRESS_WHEN=never"}
		if home != "" {
			env = append(env, "CARGO_HOME="+home)
		}
		c := &client{bin: bin, dir: dir, env: d.env.with(env...), timeout: d.fetchTimeout()}
		if _, err := c.run(ctx, args...); err != nil {
			return err
		}
		var lock cargoLock
		data, err := d.read.readFile(filepath.Join(dir, "Cargo.lock"), maxLockfile)
		if err == nil {
			err = toml.Unmarshal(data, &lock)
		}
		if err != nil {
			return fmt.Errorf("cargo fetch: no readable Cargo.lock: %w", err)
		}
		src := newCargoSources(d, home)
		for _, w := range ws {
			w.p.Missing = "cargo fetch: not resolved"
			for _, lp := range lock.Package {
				if lp.Name != w.p.Name || lp.Source == "" || !cargoMatches(w, lp) {
					continue
				}
				if dir := src.find(lp); dir != "" {
					w.p.Version = lp.Version
					d.cargoFill(w.p, dir)
					w.p.Fetched = true
				} else {
					w.p.Missing = "cargo fetch did not extract " + lp.Name + "-" + lp.Version
				}
				break
			}
		}
		return nil
	}
	// One unknown crate or version fails the batch: only then is each
	// retried, to tell which.
	err = run(want)
	if err == nil || len(want) == 1 || d.opt.Offline || !mentions(err, "failed to select a version", "no matching package named") {
		if err != nil {
			failAll(ps, err.Error())
		}
		return
	}
	for _, w := range want { // one bad crate fails the batch: retry each
		if err := run([]cargoWant{w}); err != nil {
			failAll([]*Package{w.p}, err.Error())
		}
	}
}

// cargoMatches tells whether a lock entry is the one fetched for w: the
// exact version when w asked one.
func cargoMatches(w cargoWant, lp cargoLockPackage) bool {
	if v, ok := strings.CutPrefix(w.req, "="); ok {
		return strings.TrimSpace(v) == lp.Version
	}
	return true
}
