package packages

import (
	"context"
	"fmt"
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
