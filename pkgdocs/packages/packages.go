package packages

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Ecosystem names a package ecosystem.
type Ecosystem string

// The ecosystems discovery knows.
const (
	Go     Ecosystem = "go"
	NPM    Ecosystem = "npm"
	Python Ecosystem = "python"
	Rust   Ecosystem = "rust"
	Swift  Ecosystem = "swift"
)

// Ecosystems lists every ecosystem, in the order results are sorted.
var Ecosystems = []Ecosystem{Go, NPM, Python, Rust, Swift}

// Package is one version of one dependency of a project.
type Package struct {
	Ecosystem Ecosystem
	// Name as the ecosystem spells it: Go module path, npm name with its
	// scope (@scope/name), PyPI project name as its METADATA gives it,
	// crate name, Swift package identity.
	Name string
	// Version is the exact installed version (Go's keeps its "v"). A
	// Swift pin on a branch or revision is "branch@rev" or the revision.
	// A Missing package whose version no lockfile pins has its declared
	// range ("^1.2", "1.0") or "latest" here; a fetch sets the version
	// the client resolved.
	Version string
	// Dir is the folder holding the package's sources, absolute with
	// symlinks resolved, inside the project or a package cache; "" when
	// Missing. For Python it is the dist's main import package (or
	// site-packages when the dist is only single-file modules): read Files.
	Dir string
	// Files are, for Python only, the dist's own source files (.py, .pyi)
	// from its RECORD, absolute; nil for other ecosystems (read Dir).
	Files []string
	// Description is, for Python only, the long description of METADATA
	// (usually the README, which is no file of the installed dist), and
	// DescriptionType its content type (text/markdown, text/x-rst...).
	Description     string
	DescriptionType string
	// Direct is set for a dependency the project declares itself.
	Direct bool
	// Metadata, as the package declares it; empty when it declares none.
	Summary    string
	License    string
	Homepage   string
	Repository string
	// Fetched is set when Dir was filled by gno through the ecosystem's
	// client, not by the project's own install: npm and Python packages
	// in Options.CacheDir (this run or an earlier one); Go modules and
	// crates on the run that fetched them (later they sit in the shared
	// cache like any other).
	Fetched bool
	// TypesDir is, for npm only, the installed @types package that
	// declares this package's API when it ships no declarations of its
	// own (node_modules/@types/express for express), and TypesFrom names
	// it ("@types/express@4.17.21"); the @types package is then not
	// listed on its own.
	TypesDir  string
	TypesFrom string
	// Interpreter is, for a Python standard library only, the
	// interpreter it belongs to (its built-in types and functions are
	// documented in C: apidoc asks it).
	Interpreter string
	// Missing says, shortly, why the package is not available (not
	// installed and not fetched, or its client failed); "" when Dir is set.
	Missing string
}

// ID is "ecosystem:name@version", the key docs are stored under.
func (p *Package) ID() string {
	return string(p.Ecosystem) + ":" + p.Name + "@" + p.Version
}

// Warning is a problem met in one file; discovery goes on without it.
type Warning struct {
	Ecosystem Ecosystem
	Path      string // the file or folder concerned
	Message   string
}

// String is "path: message", the path relative to the project when inside it.
func (w Warning) String() string {
	if w.Path == "" {
		return string(w.Ecosystem) + ": " + w.Message
	}
	return w.Path + ": " + w.Message
}

// Project is what one project folder depends on.
type Project struct {
	// Dir is the project folder, absolute with symlinks resolved.
	Dir string
	// Ecosystems found in Dir (a manifest, lockfile or install of theirs).
	Ecosystems []Ecosystem
	// Packages sorted by ecosystem, name and version; one entry per
	// version.
	Packages []Package
	// Warnings in the order met within each ecosystem.
	Warnings []Warning
	// Fingerprint is Fingerprint(Dir) taken after discovery (and any
	// fetch) ended. Packages listed Missing are not covered by it (the
	// network may come back): a caller skipping an unchanged project
	// should still retry one that had missing packages.
	Fingerprint string
}

// Options tune Discover.
type Options struct {
	// All lists transitive dependencies too; by default only the direct
	// ones.
	All bool
	// Ecosystems restricts discovery; nil means all of them.
	Ecosystems []Ecosystem
	// Fetch downloads declared-but-missing packages through the
	// ecosystem's own client (go, npm, pip, cargo), so the user's
	// proxies, mirrors and registries apply. npm and pip packages are
	// unpacked under CacheDir; Go modules and crates go where their
	// client puts them (the module cache, CARGO_HOME), as a build would.
	Fetch bool
	// Offline runs the clients offline (GOPROXY=off, npm --offline,
	// pip --no-index, cargo --offline): only their local caches serve.
	Offline bool
	// CacheDir is gno's fetch cache. Packages fetched there earlier are
	// found again even when Fetch is off; Fetch needs it.
	CacheDir string
	// Env is the environment read for GOMODCACHE, CARGO_HOME,
	// VIRTUAL_ENV... and given to the clients; nil means os.Environ().
	Env []string
	// FetchTimeout bounds each client run; 0 means 3 minutes.
	FetchTimeout time.Duration
	// Stdlib adds the standard library of each ecosystem found, as the
	// project's toolchain has it (Package.IsStdlib), or a Missing entry
	// saying why it cannot be read.
	Stdlib bool
	// Progress, when set, is told before each client run (fetches take
	// seconds): the ecosystem and a line such as "npm pack: 5 to fetch".
	// It may be called from several goroutines at once.
	Progress func(eco Ecosystem, line string)
}

func (o *Options) wants(e Ecosystem) bool {
	return o.Ecosystems == nil || slices.Contains(o.Ecosystems, e)
}

// ErrNoProject is returned when the project folder does not exist or is
// not a folder.
var ErrNoProject = errors.New("not a project folder")

// Discover lists the dependencies of the project in projectDir, reading
// only the project and the package caches (see the package doc). Broken
// files become Warnings; an error is returned only when projectDir itself
// is unusable, a fetch is asked without a CacheDir, or ctx ends.
func Discover(ctx context.Context, projectDir string, opt Options) (*Project, error) {
	if opt.Fetch && opt.CacheDir == "" {
		return nil, errors.New("packages: Fetch needs a CacheDir")
	}
	d, err := newDiscovery(projectDir, &opt)
	if err != nil {
		return nil, err
	}
	type part struct {
		eco  Ecosystem
		run  func(context.Context, *discovery) (bool, []Package)
		pkgs []Package
		warn []Warning
		seen bool
	}
	parts := []*part{
		{eco: Go, run: discoverGo},
		{eco: NPM, run: discoverNPM},
		{eco: Python, run: discoverPython},
		{eco: Rust, run: discoverRust},
		{eco: Swift, run: discoverSwift},
	}
	var wg sync.WaitGroup
	for _, p := range parts {
		if !opt.wants(p.eco) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := d.forEcosystem(p.eco)
			p.seen, p.pkgs = p.run(ctx, e)
			if p.seen && opt.Stdlib {
				if s := e.stdlib(ctx, p.eco); s != nil {
					p.pkgs = append(withoutStdlibSource(p.pkgs, s), *s)
				}
			}
			p.warn = e.warnings
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	proj := &Project{Dir: d.dir}
	for _, p := range parts {
		if p.seen {
			proj.Ecosystems = append(proj.Ecosystems, p.eco)
		}
		proj.Packages = append(proj.Packages, p.pkgs...)
		proj.Warnings = append(proj.Warnings, p.warn...)
	}
	slices.SortStableFunc(proj.Packages, func(a, b Package) int {
		return cmp.Or(cmp.Compare(slices.Index(Ecosystems, a.Ecosystem), slices.Index(Ecosystems, b.Ecosystem)),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	proj.Packages = dedupe(proj.Packages)
	fp, err := fingerprint(ctx, d)
	if err != nil {
		return nil, err
	}
	proj.Fingerprint = fp
	return proj, nil
}

// dedupe merges entries of one version (a range fetched to a version
// already installed, a package reached twice): the one with a folder
// wins, Direct if either was.
func dedupe(ps []Package) []Package {
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && out[n-1].ID() == p.ID() {
			last := &out[n-1]
			direct := last.Direct || p.Direct
			if last.Dir == "" && p.Dir != "" {
				*last = p
			}
			last.Direct = direct
			continue
		}
		out = append(out, p)
	}
	return out
}

// discovery is the state of one Discover call, shared by the ecosystems;
// forEcosystem gives each its own warnings.
type discovery struct {
	dir  string // project folder, real path
	opt  *Options
	env  *environ
	read *reader
	eco  Ecosystem

	warnings []Warning
}

func newDiscovery(projectDir string, opt *Options) (*discovery, error) {
	abs, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", projectDir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w: %w", projectDir, ErrNoProject, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("project %s: %w", projectDir, ErrNoProject)
	}
	env := newEnviron(opt.Env)
	d := &discovery{dir: real, opt: opt, env: env}
	d.read = newReader(real)
	if opt.CacheDir != "" {
		if err := os.MkdirAll(opt.CacheDir, 0o755); err != nil && opt.Fetch {
			return nil, fmt.Errorf("fetch cache %s: %w", opt.CacheDir, err)
		}
		d.read.allow(opt.CacheDir)
	}
	return d, nil
}

func (d *discovery) forEcosystem(e Ecosystem) *discovery {
	c := *d
	c.eco = e
	c.warnings = nil
	return &c
}

// warn records a problem with one file.
func (d *discovery) warn(path, format string, args ...any) {
	d.warnings = append(d.warnings, Warning{Ecosystem: d.eco, Path: d.rel(path), Message: fmt.Sprintf(format, args...)})
}

// progress reports a client run about to start.
func (d *discovery) progress(format string, args ...any) {
	if d.opt.Progress != nil {
		d.opt.Progress(d.eco, fmt.Sprintf(format, args...))
	}
}

// rel shortens a path inside the project for messages.
func (d *discovery) rel(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.Rel(d.dir, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
}

// path joins parts below the project folder.
func (d *discovery) path(parts ...string) string {
	return filepath.Join(append([]string{d.dir}, parts...)...)
}
