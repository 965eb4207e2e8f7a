package packages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/mod/modfile"
)

// Fingerprint hashes what Discover's answer depends on, without walking
// the installs: the manifests and lockfiles (their contents), the
// install markers npm, pnpm and yarn rewrite on every install, the
// site-packages folders of the Python environment and the Cargo registry
// folders (their modification times: installing adds or removes entries),
// whether each required Go module is in the module cache, and the
// options and environment variables discovery reads. Equal fingerprints
// mean an unchanged project; it takes a few milliseconds.
func Fingerprint(ctx context.Context, projectDir string, opt Options) (string, error) {
	opt.Fetch = false // Fingerprint creates nothing, not even the cache folder
	cache := opt.CacheDir
	opt.CacheDir = ""
	d, err := newDiscovery(projectDir, &opt)
	if err != nil {
		return "", err
	}
	d.opt.CacheDir = cache
	return fingerprint(ctx, d)
}

type fpHasher struct {
	d *discovery
	h hash.Hash
}

// file adds a file's contents (or its absence).
func (f *fpHasher) file(p string) {
	data, err := f.d.read.readFile(p, maxLockfile)
	if err != nil {
		if fi, serr := os.Lstat(p); serr == nil {
			fmt.Fprintf(f.h, "F %s unreadable %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(f.h, "F %s -\n", p)
		}
		return
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(f.h, "F %s %x\n", p, sum)
}

// stat adds a file's or folder's size and modification time.
func (f *fpHasher) stat(p string) {
	fi, err := os.Stat(p)
	if err != nil {
		fmt.Fprintf(f.h, "S %s -\n", p)
		return
	}
	fmt.Fprintf(f.h, "S %s %d %d %v\n", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
}

func fingerprint(ctx context.Context, d *discovery) (string, error) {
	// A throwaway copy: fingerprinting must not add warnings.
	d = d.forEcosystem("")
	f := &fpHasher{d: d, h: sha256.New()}
	fmt.Fprintf(f.h, "gno packages fingerprint 1\nall=%v offline=%v cache=%s eco=%v\n", d.opt.All, d.opt.Offline, d.opt.CacheDir, d.opt.Ecosystems)
	if d.opt.Stdlib {
		fmt.Fprintf(f.h, "stdlib\n")
		fpStdlib(f)
	}
	for _, k := range []string{"GOMODCACHE", "GOPATH", "GOFLAGS", "CARGO_HOME", "VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT",
		"POETRY_VIRTUALENVS_PATH", "POETRY_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "USERPROFILE", "LOCALAPPDATA"} {
		fmt.Fprintf(f.h, "E %s=%s\n", k, d.env.get(k))
	}
	if d.opt.wants(Go) {
		fpGo(ctx, f)
	}
	if d.opt.wants(NPM) {
		fpNPM(f)
	}
	if d.opt.wants(Python) {
		fpPython(f)
	}
	if d.opt.wants(Rust) {
		fpRust(f)
	}
	if d.opt.wants(Swift) {
		fpSwift(f)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "v1:" + hex.EncodeToString(f.h.Sum(nil)), nil
}

func fpGo(ctx context.Context, f *fpHasher) {
	d := f.d
	gomod := d.path("go.mod")
	f.file(gomod)
	if !exists(gomod) {
		return
	}
	f.file(d.path("go.sum"))
	f.file(d.path("vendor", "modules.txt"))
	data, err := d.read.readFile(gomod, maxManifest)
	if err != nil {
		return
	}
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return
	}
	cache := d.goModCache(ctx)
	d.read.allow(cache)
	fmt.Fprintf(f.h, "C %s\n", cache)
	for _, m := range goRequirements(d, mf) {
		if !m.local {
			_, ok := d.goModuleDir(cache, m.mod)
			fmt.Fprintf(f.h, "M %s@%s %v\n", m.mod.Path, m.mod.Version, ok)
		}
	}
}

func fpNPM(f *fpHasher) {
	d := f.d
	for _, n := range []string{"package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", ".npmrc"} {
		f.file(d.path(n))
	}
	for _, n := range []string{"node_modules", "node_modules/.package-lock.json", "node_modules/.modules.yaml",
		"node_modules/.pnpm", "node_modules/.yarn-state.yml", "node_modules/.yarn-integrity"} {
		f.stat(d.path(filepath.FromSlash(n)))
	}
	if data, err := d.read.readFile(d.path("package.json"), maxManifest); err == nil {
		if pj, err := parsePackageJSON(data); err == nil {
			for _, m := range d.npmWorkspaces(pj) {
				f.file(filepath.Join(m, "package.json"))
			}
		}
	}
}

func fpPython(f *fpHasher) {
	d := f.d
	files, _ := filepath.Glob(d.path("requirements*.txt"))
	files = append(files, d.path("pyproject.toml"), d.path("poetry.lock"), d.path("uv.lock"), d.path("pdm.lock"),
		d.path("requirements", "base.txt"), d.path("requirements", "dev.txt"), d.path("dev-requirements.txt"))
	for _, p := range files {
		f.file(p)
	}
	if env := d.findPyEnv(d.pyProjectName()); env != nil {
		fmt.Fprintf(f.h, "V %s\n", env.root)
		f.stat(filepath.Join(env.root, "pyvenv.cfg"))
		for _, s := range env.site {
			f.stat(s)
		}
	}
}

// pyProjectName is the project's name in pyproject.toml ("" when none):
// Poetry names its central environments after it.
func (d *discovery) pyProjectName() string {
	p := d.path("pyproject.toml")
	if !exists(p) {
		return ""
	}
	pd := &pyDecls{locked: map[string]string{}}
	d.forEcosystem(d.eco).readPyproject(p, pd) // a throwaway copy: no warnings twice
	return pd.name
}

func fpRust(f *fpHasher) {
	d := f.d
	for _, n := range []string{"Cargo.toml", "Cargo.lock", filepath.Join(".cargo", "config.toml")} {
		f.file(d.path(n))
	}
	if root := d.readCargoManifest(d.path("Cargo.toml")); root != nil {
		for _, m := range d.cargoMembers(root) {
			f.file(filepath.Join(m, "Cargo.toml"))
		}
	}
	if !exists(d.path("Cargo.toml")) && !exists(d.path("Cargo.lock")) {
		return
	}
	if home := d.cargoHome(); home != "" {
		srcs, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*"))
		slices.Sort(srcs)
		for _, s := range srcs {
			f.stat(s)
		}
		f.stat(filepath.Join(home, "git", "checkouts"))
	}
}

func fpSwift(f *fpHasher) {
	d := f.d
	files := []string{d.path("Package.swift"), d.path("Package.resolved"), d.path(".package.resolved")}
	for _, pat := range []string{"*.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved", "*.xcworkspace/xcshareddata/swiftpm/Package.resolved"} {
		m, _ := filepath.Glob(d.path(filepath.FromSlash(pat)))
		files = append(files, m...)
	}
	for _, p := range files {
		f.file(p)
	}
	f.stat(d.path(".build", "checkouts"))
}
