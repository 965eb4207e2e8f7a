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
		d.progress("cargo fetch: %d to fetch", len(ws))
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
