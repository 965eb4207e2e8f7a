package packages

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// stdlibOf returns the standard library entry of eco, failing the test
// when there is none.
func stdlibOf(t *testing.T, p *Project, eco Ecosystem) Package {
	t.Helper()
	for _, pk := range p.Packages {
		if pk.Ecosystem == eco && pk.IsStdlib() {
			return pk
		}
	}
	t.Fatalf("no %s standard library in %s", eco, describe(p))
	return Package{}
}

// fakeBin writes executable scripts into a new folder and returns it,
// for the toolchains that cannot be made to fail for real.
func fakeBin(t *testing.T, scripts map[string]string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake toolchain is a shell script")
	}
	dir := t.TempDir()
	for name, body := range scripts {
		write(t, filepath.Join(dir, name), "#!/bin/sh\n"+body+"\n")
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestStdlibGo(t *testing.T) {
	if _, err := newEnviron(nil).lookPath("go"); err != nil {
		t.Skipf("%v: the test reads the go toolchain's GOROOT", err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	goroot := strings.TrimSpace(run(t, dir, []string{"GOWORK=off"}, "go", "env", "GOROOT"))
	version := strings.TrimSpace(run(t, dir, []string{"GOWORK=off"}, "go", "env", "GOVERSION"))

	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Go}})
	s := stdlibOf(t, p, Go)
	want, err := filepath.EvalSymlinks(filepath.Join(goroot, "src"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != version || s.Dir != want || s.Missing != "" || !s.Direct {
		t.Fatalf("go stdlib = %+v, want version %s in %s", s, version, want)
	}
	if off := discover(t, dir, Options{Ecosystems: []Ecosystem{Go}}); len(off.Packages) != 0 {
		t.Fatalf("stdlib off still lists %s", describe(off))
	}
}

func TestStdlibPython(t *testing.T) {
	need(t, "python3")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "requirements.txt"), "")
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python}, Env: env("VIRTUAL_ENV=")})
	s := stdlibOf(t, p, Python)
	if s.Missing != "" {
		t.Fatalf("python stdlib missing: %s", s.Missing)
	}
	ver := strings.TrimSpace(run(t, dir, nil, s.Interpreter, "-I", "-S", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"))
	if s.Version != ver {
		t.Fatalf("python stdlib version %s, interpreter says %s", s.Version, ver)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "subprocess.py")); err != nil {
		t.Fatalf("python stdlib folder %s has no subprocess.py: %v", s.Dir, err)
	}
}

// A Python that cannot start is the standard library's missing reason,
// not a failed discovery.
func TestStdlibPythonCannotStart(t *testing.T) {
	bin := fakeBin(t, map[string]string{
		"python3": "echo 'fatal: broken interpreter' >&2; exit 1",
		"python":  "exit 1",
	})
	dir := t.TempDir()
	write(t, filepath.Join(dir, "requirements.txt"), "")
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python}, Env: env("PATH="+bin, "VIRTUAL_ENV=")})
	s := stdlibOf(t, p, Python)
	if s.Dir != "" || !strings.Contains(s.Missing, "cannot start") || !strings.Contains(s.Missing, "broken interpreter") {
		t.Fatalf("python stdlib = %+v, want missing: cannot start", s)
	}
}

func TestStdlibRustMissing(t *testing.T) {
	sysroot := t.TempDir() // a toolchain without rust-src
	bin := fakeBin(t, map[string]string{
		// as rustup's proxy: without RUSTUP_AUTO_INSTALL=0 it would install
		"rustc": `[ "$RUSTUP_AUTO_INSTALL" = 0 ] || { echo "would install a toolchain" >&2; exit 1; }
case "$1" in --version) echo "rustc 1.85.0 (4d91de4e4 2025-02-17)";; --print) echo "` + sysroot + `";; *) exit 1;; esac`,
	})
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Cargo.toml"), "[package]\nname = \"p\"\nversion = \"0.1.0\"\n")
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Rust}, Env: env("PATH=" + bin)})
	s := stdlibOf(t, p, Rust)
	if s.Dir != "" || s.Version != "1.85.0" || !strings.Contains(s.Missing, "rust-src") {
		t.Fatalf("rust stdlib = %+v, want missing rust-src", s)
	}

	// This machine's own toolchain, when rustc runs: rust-src is either
	// there (std's folder) or named as missing.
	if why := needRustc(); why != "" {
		t.Logf("real toolchain not checked: %s", why)
		return
	}
	p = discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Rust}})
	s = stdlibOf(t, p, Rust)
	if s.Dir == "" && !strings.Contains(s.Missing, "rust-src") {
		t.Fatalf("real rust stdlib = %+v: neither found nor missing rust-src", s)
	}
	if s.Dir != "" && filepath.Base(s.Dir) != "std" {
		t.Fatalf("real rust stdlib dir %s is not std's", s.Dir)
	}
}

// needRustc says why rustc cannot run here, or "".
func needRustc() string {
	e := newEnviron(nil)
	bin, err := e.lookPath("rustc")
	if err != nil {
		return err.Error()
	}
	c := &client{bin: bin, env: e.list, timeout: stdlibTimeout}
	if _, err := c.run(context.Background(), "--version"); err != nil {
		return err.Error()
	}
	return ""
}

func TestStdlibNodeMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), `{"name": "p", "version": "1.0.0", "devDependencies": {"@types/node": "^22.1.0"}}`)
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{NPM}})
	s := stdlibOf(t, p, NPM)
	if s.Dir != "" || !strings.Contains(s.Missing, "@types/node") {
		t.Fatalf("node stdlib = %+v, want missing @types/node", s)
	}
	write(t, filepath.Join(dir, "node_modules", "@types", "node", "package.json"), `{"name": "@types/node", "version": "22.1.0"}`)
	p = discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{NPM}})
	if s := stdlibOf(t, p, NPM); s.Version != "node-types-22.1.0" || s.Dir == "" {
		t.Fatalf("node stdlib = %+v", s)
	}
	// Node's API is stored once, as the stdlib, not also as @types/node.
	for _, pk := range p.Packages {
		if pk.Name == "@types/node" {
			t.Errorf("@types/node listed besides the stdlib read from it: %+v", pk)
		}
	}
}

// Turning the standard library on or off, or a new @types/node, changes
// the fingerprint.
func TestStdlibFingerprint(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), `{"name": "p", "version": "1.0.0"}`)
	ctx := context.Background()
	fp := func(opt Options) string {
		f, err := Fingerprint(ctx, dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	off, on := fp(Options{}), fp(Options{Stdlib: true})
	if off == on {
		t.Fatal("the stdlib option does not change the fingerprint")
	}
	write(t, filepath.Join(dir, "node_modules", "@types", "node", "package.json"), `{"name": "@types/node", "version": "22.1.0"}`)
	if fp(Options{Stdlib: true}) == on {
		t.Fatal("installing @types/node does not change the fingerprint")
	}
}

// A toolchain that answers without end is cut off, not read into memory.
func TestStdlibQueryBounded(t *testing.T) {
	bin := fakeBin(t, map[string]string{
		// 10 MB from shell builtins alone: PATH holds only this folder
		"rustc": `s=xxxxxxxxxx; for i in 1 2 3 4 5 6; do s=$s$s$s$s$s$s$s$s$s$s; done; echo "$s"`,
	})
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Cargo.toml"), "[package]\nname = \"p\"\nversion = \"0.1.0\"\n")
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Rust}, Env: env("PATH=" + bin)})
	if s := stdlibOf(t, p, Rust); s.Dir != "" || !strings.Contains(s.Missing, "answer larger than") || len(s.Missing) > 200 {
		t.Fatalf("rust stdlib = %.300q, want missing: answer too large", s.Missing)
	}
}

// A venv whose python is a file inside the project (committed with it)
// is not run: python3 on PATH answers instead, with a warning.
func TestStdlibPythonProjectInterpreter(t *testing.T) {
	need(t, "python3")
	real, err := exec.LookPath("python3")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	write(t, filepath.Join(dir, "requirements.txt"), "")
	write(t, filepath.Join(dir, ".venv", "pyvenv.cfg"), "home = /usr/bin\nversion = 3.11.0\n")
	write(t, filepath.Join(dir, ".venv", "bin", "python"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, ".venv", "bin", "python"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python}, Env: env("VIRTUAL_ENV=")})
	s := stdlibOf(t, p, Python)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's own interpreter ran")
	}
	if s.Missing != "" || s.Dir == "" {
		t.Fatalf("python stdlib = %+v, want python3 on PATH's", s)
	}
	warnedInside := false
	for _, w := range p.Warnings {
		warnedInside = warnedInside || strings.Contains(w.Message, "inside the project: not run")
	}
	if !warnedInside {
		t.Errorf("no warning about the project's interpreter: %v", p.Warnings)
	}

	// The usual venv: bin/python links to an installed interpreter.
	if err := os.Remove(filepath.Join(dir, ".venv", "bin", "python")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, ".venv", "bin", "python")); err != nil {
		t.Fatal(err)
	}
	p = discover(t, dir, Options{Stdlib: true, Ecosystems: []Ecosystem{Python}, Env: env("VIRTUAL_ENV=")})
	if s := stdlibOf(t, p, Python); s.Missing != "" {
		t.Fatalf("linked venv interpreter: %+v", s)
	}
	for _, w := range p.Warnings {
		if strings.Contains(w.Message, "inside the project") {
			t.Errorf("linked venv interpreter warned: %v", w)
		}
	}
}
