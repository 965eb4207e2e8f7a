package packages

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
)

// shared is a folder kept for the whole test run: client caches (module
// cache, npm cache, CARGO_HOME, pip downloads) are filled once and reused
// by every test, which keeps the run to a few network round trips.
var shared string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gno-packages-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = dir
	code := m.Run()
	removeAll(dir)
	os.Exit(code)
}

// need skips a test whose client is absent or cannot run, saying which.
// A client can be on PATH and still unusable: rustup's cargo shim with no
// default toolchain (an empty $HOME) fails every command, which is the
// machine's state, not a fault of gno's.
func need(t testing.TB, clients ...string) {
	t.Helper()
	for _, c := range clients {
		if err := pkgtest.Usable(c); err != nil {
			t.Skipf("%v: this test installs real packages with it", err)
		}
	}
}

// slow skips under -short: the test installs packages over the network.
func slow(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("installs packages over the network; skipped with -short")
	}
}

// run runs a command in dir with extra environment variables; failure
// ends the test with its output.
func run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// write creates a file and its folders.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// onceDir builds a fixture folder under shared once per run.
type onceDir struct {
	once sync.Once
	dir  string
	err  error
}

func (o *onceDir) get(t testing.TB, name string, build func(dir string) error) string {
	t.Helper()
	o.once.Do(func() {
		o.dir = filepath.Join(shared, name)
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			o.err = err
			return
		}
		o.err = build(o.dir)
	})
	if o.err != nil {
		t.Fatalf("fixture %s: %v", name, o.err)
	}
	return o.dir
}

// find returns the package of that ecosystem and name, failing the test
// when absent.
func find(t testing.TB, p *Project, eco Ecosystem, name string) Package {
	t.Helper()
	for _, x := range p.Packages {
		if x.Ecosystem == eco && x.Name == name {
			return x
		}
	}
	t.Fatalf("%s package %s not found; have:\n%s", eco, name, describe(p))
	return Package{}
}

// has reports whether a package of that name (and version, when given) is
// listed.
func has(p *Project, eco Ecosystem, name, version string) bool {
	for _, x := range p.Packages {
		if x.Ecosystem == eco && x.Name == name && (version == "" || x.Version == version) {
			return true
		}
	}
	return false
}

func describe(p *Project) string {
	var b strings.Builder
	for _, x := range p.Packages {
		fmt.Fprintf(&b, "  %s %s@%s direct=%v dir=%s missing=%q\n", x.Ecosystem, x.Name, x.Version, x.Direct, x.Dir, x.Missing)
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	return b.String()
}

// warned returns the first warning whose text contains all the parts.
func warned(p *Project, parts ...string) (Warning, bool) {
	for _, w := range p.Warnings {
		s := w.String()
		ok := true
		for _, x := range parts {
			ok = ok && strings.Contains(s, x)
		}
		if ok {
			return w, true
		}
	}
	return Warning{}, false
}

// env is the test process's environment with overrides.
func env(kv ...string) []string {
	return (&environ{list: os.Environ()}).with(kv...)
}

// discover runs Discover, failing the test on error.
func discover(t testing.TB, dir string, opt Options) *Project {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := Discover(ctx, dir, opt)
	if err != nil {
		t.Fatalf("Discover(%s): %v", dir, err)
	}
	return p
}

// snapshot lists every path under dir with size and mtime, to prove a
// run wrote nothing there.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		out[p] = fmt.Sprintf("%d %d %v", fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
		return nil
	})
	return out
}
