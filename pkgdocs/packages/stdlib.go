package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// StdlibName is the Name of a standard library: a version of it is
// stored like any package version ("go:stdlib@go1.26.8",
// "python:stdlib@3.11.7"), once per toolchain version, and shared by
// every project built with that toolchain. No registry of the five
// ecosystems serves a package a project could depend on under this name
// at such a version, so the name is the marker.
const StdlibName = "stdlib"

// IsStdlib reports whether p is a standard library (Discover's
// Options.Stdlib).
func (p *Package) IsStdlib() bool { return p.Name == StdlibName }

// stdlibTimeout bounds each toolchain query (go env, python, rustc).
const stdlibTimeout = 30 * time.Second

// stdlib finds the standard library of ecosystem e as the project's own
// toolchain has it; a toolchain or component that is not there gives a
// Missing entry saying why. Swift has none gno reads.
func (d *discovery) stdlib(ctx context.Context, e Ecosystem) *Package {
	p := &Package{Ecosystem: e, Name: StdlibName, Direct: true}
	var err error
	switch e {
	case Go:
		err = d.goStdlib(ctx, p)
	case Python:
		err = d.pyStdlib(ctx, p)
	case NPM:
		err = d.nodeStdlib(p)
	case Rust:
		err = d.rustStdlib(ctx, p)
	default:
		return nil
	}
	if err != nil {
		p.Dir, p.Files, p.Missing = "", nil, err.Error()
		if p.Version == "" {
			p.Version = "unknown"
		}
	}
	return p
}

// goStdlib: GOROOT/src of the go that builds the project, as `go env`
// run in the project says (a go.mod toolchain line switches toolchains
// as a build would; without fetching, only one already downloaded).
func (d *discovery) goStdlib(ctx context.Context, p *Package) error {
	bin, err := d.env.lookPath("go")
	if err != nil {
		return fmt.Errorf("standard library not indexed: %w", err)
	}
	env := []string{"GOWORK=off"}
	if !d.opt.Fetch || d.opt.Offline {
		env = append(env, "GOPROXY=off")
	}
	c := &client{bin: bin, dir: d.dir, env: d.env.with(env...), timeout: stdlibTimeout, maxOut: queryMaxOut}
	out, err := c.run(ctx, "env", "GOROOT", "GOVERSION")
	if err != nil {
		// The toolchain go.mod asks for is not here: the local one
		// still has a standard library.
		c.env = d.env.with("GOWORK=off", "GOTOOLCHAIN=local")
		var lerr error
		if out, lerr = c.run(ctx, "env", "GOROOT", "GOVERSION"); lerr != nil {
			return fmt.Errorf("go env GOROOT GOVERSION: %w", err)
		}
		d.warn("", "go env: %v; the local toolchain's standard library is indexed", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return fmt.Errorf("go env GOROOT GOVERSION: unexpected answer %q", trimOut(out))
	}
	p.Version = lines[1]
	return stdlibDir(p, filepath.Join(lines[0], "src"), "GOROOT has no src folder")
}

// pyStdlib asks the project's interpreter (its virtual environment's,
// else python3 on PATH) for its standard library folder and version, in
// isolated mode: no site-packages, no user code, no PYTHON* variables.
func (d *discovery) pyStdlib(ctx context.Context, p *Package) error {
	bin := ""
	// A throwaway copy: discoverPython warns about the environment. The
	// project's name finds a Poetry environment kept outside the project.
	if env := d.forEcosystem(d.eco).findPyEnv(d.pyProjectName()); env != nil {
		for _, c := range []string{filepath.Join(env.root, "bin", "python"), filepath.Join(env.root, "bin", "python3"), filepath.Join(env.root, "Scripts", "python.exe")} {
			if _, err := os.Stat(c); err == nil {
				bin = c
				break
			}
		}
		// A venv's python is normally a link to an installed interpreter;
		// one whose file lies in the project is the project's own
		// (committed, or copied there) and is not run on discovery.
		if bin != "" && d.insideProject(bin) {
			d.warn(bin, "the virtual environment's interpreter is a file inside the project: not run; the standard library is read with python3 on PATH")
			bin = ""
		}
	}
	if bin == "" {
		for _, n := range []string{"python3", "python"} {
			if b, err := d.env.lookPath(n); err == nil {
				bin = b
				break
			}
		}
	}
	if bin == "" {
		return fmt.Errorf("standard library not indexed: no Python interpreter (no virtual environment, no python3 on PATH)")
	}
	c := &client{bin: bin, dir: d.dir, env: d.env.list, timeout: stdlibTimeout, maxOut: queryMaxOut}
	out, err := c.run(ctx, "-I", "-S", "-c", pyStdlibQuery)
	if err != nil {
		return fmt.Errorf("the Python interpreter %s cannot start: %w", bin, err)
	}
	var ans struct {
		Stdlib, Version, Implementation, Executable string
	}
	if err := json.Unmarshal(lastLine(out), &ans); err != nil || ans.Stdlib == "" || ans.Version == "" {
		return fmt.Errorf("the Python interpreter %s: unexpected answer %q", bin, trimOut(out))
	}
	p.Version = ans.Version
	if ans.Implementation != "" && ans.Implementation != "cpython" {
		p.Version = ans.Implementation + "-" + ans.Version
	}
	// The interpreter itself, not a shim (pyenv's picks a version by
	// the folder it runs in).
	p.Interpreter = bin
	if ans.Executable != "" && filepath.IsAbs(ans.Executable) {
		p.Interpreter = ans.Executable
	}
	return stdlibDir(p, ans.Stdlib, "the interpreter's stdlib folder is missing")
}

// insideProject reports whether file's real path lies in the project's
// real folder (an unreadable path counts as inside).
func (d *discovery) insideProject(file string) bool {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return true
	}
	dir, err := filepath.EvalSymlinks(d.dir)
	if err != nil {
		dir = d.dir
	}
	return within(dir, real)
}

// pyStdlibQuery prints the interpreter's stdlib folder and version as
// one JSON line; it imports only sys, sysconfig and json.
const pyStdlibQuery = `import sys, sysconfig, json
v = sys.version_info
print(json.dumps({"stdlib": sysconfig.get_paths()["stdlib"], "version": "%d.%d.%d" % (v[0], v[1], v[2]), "implementation": sys.implementation.name, "executable": sys.executable}))`

// nodeStdlib: Node's API as the project's installed @types/node declares
// it (Node ships no declarations of its own).
func (d *discovery) nodeStdlib(p *Package) error {
	dir := d.path("node_modules", "@types", "node")
	data, err := d.read.readFile(filepath.Join(dir, "package.json"), maxManifest)
	if err != nil {
		return errors.New("@types/node is not installed: Node's standard library is read from it (npm install --save-dev @types/node)")
	}
	var pj struct{ Version string }
	if json.Unmarshal(data, &pj) != nil || pj.Version == "" {
		return fmt.Errorf("node_modules/@types/node/package.json has no version")
	}
	p.Version = "node-types-" + pj.Version
	p.Summary = "Node.js API as @types/node " + pj.Version + " declares it"
	return stdlibDir(p, dir, "")
}

// withoutStdlibSource drops the package a found standard library s was
// read from (npm's @types/node), as pairTypes drops a paired @types
// package: Node's API is stored once, as the stdlib.
func withoutStdlibSource(pkgs []Package, s *Package) []Package {
	if s.Ecosystem != NPM || s.Dir == "" {
		return pkgs
	}
	out := pkgs[:0]
	for _, p := range pkgs {
		if p.Name != nodeTypes {
			out = append(out, p)
		}
	}
	return out
}

// nodeTypes is the package Node's standard library is read from.
const nodeTypes = "@types/node"

// rustStdlib: the std crate of the rust-src component of the toolchain
// rustup picks for the project (rust-toolchain.toml, overrides, the
// default).
func (d *discovery) rustStdlib(ctx context.Context, p *Package) error {
	bin, err := d.env.lookPath("rustc")
	if err != nil {
		return fmt.Errorf("standard library not indexed: %w", err)
	}
	// rustup's proxy would download a toolchain the project names but
	// that is not installed: a missing one is said, never fetched.
	c := &client{bin: bin, dir: d.dir, env: d.env.with("RUSTUP_AUTO_INSTALL=0"), timeout: stdlibTimeout, maxOut: queryMaxOut}
	out, err := c.run(ctx, "--version")
	if err != nil {
		return fmt.Errorf("rustc --version: %w", err)
	}
	f := strings.Fields(string(out)) // rustc 1.85.0 (4d91de4e4 2025-02-17)
	if len(f) < 2 {
		return fmt.Errorf("rustc --version: unexpected answer %q", trimOut(out))
	}
	p.Version = f[1]
	out, err = c.run(ctx, "--print", "sysroot")
	if err != nil {
		return fmt.Errorf("rustc --print sysroot: %w", err)
	}
	// std re-exports what users reach of core and alloc (std::vec,
	// std::collections): its crate is the one read.
	lib := filepath.Join(strings.TrimSpace(string(out)), "lib", "rustlib", "src", "rust", "library", "std")
	return stdlibDir(p, lib, "the rust-src component of "+p.Version+" is not installed (rustup component add rust-src)")
}

// stdlibDir sets p.Dir to dir, real path, or says why it cannot.
func stdlibDir(p *Package, dir, why string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			err = fmt.Errorf("not a folder")
		}
	}
	if err != nil {
		if why == "" {
			why = "not readable"
		}
		return fmt.Errorf("%s: %s", why, dir)
	}
	p.Dir = real
	return nil
}

func lastLine(out []byte) []byte {
	s := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return []byte(s)
}

func trimOut(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// fpStdlib adds what picks a project's toolchains without running them:
// the go, python3 and rustc binaries PATH gives (an upgrade replaces
// them; PATH itself is left out, as a daemon's and a shell's differ
// while finding the same binaries) and the variables that switch
// toolchains. go.mod's toolchain
// line, the venv's pyvenv.cfg and @types/node's package.json are hashed
// by their ecosystems already or here.
func fpStdlib(f *fpHasher) {
	d := f.d
	for _, k := range []string{"GOTOOLCHAIN", "GOROOT", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME"} {
		fmt.Fprintf(f.h, "E %s=%s\n", k, d.env.get(k))
	}
	for _, n := range []string{"go", "python3", "python", "rustc"} {
		if b, err := d.env.lookPath(n); err == nil {
			if real, err := filepath.EvalSymlinks(b); err == nil {
				b = real
			}
			f.stat(b)
		}
	}
	fpPyenv(f)
	f.file(d.path("node_modules", "@types", "node", "package.json"))
	f.file(d.path("rust-toolchain.toml"))
	f.file(d.path("rust-toolchain"))
	if home := d.env.get("RUSTUP_HOME"); home != "" || runtime.GOOS != "windows" {
		if home == "" {
			home = filepath.Join(d.env.home(), ".rustup")
		}
		f.file(filepath.Join(home, "settings.toml"))
		f.stat(filepath.Join(home, "toolchains"))
		// rustup rewrites a toolchain's component list when rust-src is
		// added or removed.
		comps, _ := filepath.Glob(filepath.Join(home, "toolchains", "*", "lib", "rustlib", "components"))
		for _, c := range comps {
			f.stat(c)
		}
	}
}

// fpPyenv adds what decides the interpreter a pyenv shim runs (python3 on
// PATH is one under pyenv, and the stat of the shim never changes):
// PYENV_VERSION, else the nearest .python-version in the project or a
// folder above it, else pyenv's global version file; and Poetry's record
// of the environment `poetry env use` chose. A project without either
// reads a few absent files.
func fpPyenv(f *fpHasher) {
	d := f.d
	for _, k := range []string{"PYENV_VERSION", "PYENV_ROOT"} {
		fmt.Fprintf(f.h, "E %s=%s\n", k, d.env.get(k))
	}
	for dir := d.dir; ; {
		p := filepath.Join(dir, ".python-version")
		f.stat(p)
		if exists(p) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// `poetry env use` records the environment it switched to here.
	if dir := d.poetryVenvsDir(); dir != "" {
		f.stat(filepath.Join(dir, "envs.toml"))
	}
	root := d.env.get("PYENV_ROOT")
	if root == "" && d.env.home() != "" {
		root = filepath.Join(d.env.home(), ".pyenv")
	}
	if root != "" {
		f.stat(filepath.Join(root, "version"))
	}
}
