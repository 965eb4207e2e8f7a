package pkgdocs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
)

// shared keeps the clients' caches (module cache, CARGO_HOME, npm and pip
// fetches) for the whole test run, so each package crosses the network
// once however many projects and indexes the tests make.
var shared string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gno-pkgdocs-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needClients skips a test when a client it installs packages with is
// absent, or under -short (the tests fetch over the network).
func needClients(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("installs packages over the network; skipped with -short")
	}
	for _, c := range []string{"go", "npm", "pip3", "cargo"} {
		if err := pkgtest.Usable(c); err != nil {
			t.Skipf("%v: this test installs real packages with it", err)
		}
	}
}

// newIndex opens an empty package index of a fresh gno home, fetching
// into the run's shared caches. Standard libraries are left out (tens
// of thousands of units per test); stdlib_test.go opens its own.
func newIndex(t testing.TB) *Index {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GNO_HOME", home)
	x, err := Open(context.Background(), Options{CacheDir: filepath.Join(shared, "fetched"), Env: pkgtest.Env(shared), NoStdlib: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// project writes p into a new folder.
func project(t testing.TB, p pkgtest.Project) string {
	t.Helper()
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// add adds dir and fails the test on an error or a missing package.
func add(t testing.TB, x *Index, dir string, opt AddOptions) *AddResult {
	t.Helper()
	res, err := x.Add(context.Background(), dir, opt)
	if err != nil {
		t.Fatalf("add %s: %v", dir, err)
	}
	if len(res.Missing) > 0 && !opt.NoFetch && !opt.Offline {
		t.Fatalf("add %s: missing %+v (warnings %v)", dir, res.Missing, res.Warnings)
	}
	return res
}

func refs(rs []Ref) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Ecosystem+":"+r.Name+"@"+r.Version)
	}
	return strings.Join(out, " ")
}

// rankOf is the 1-based rank of the first result whose symbol is name
// in package pkg (short name), 0 when absent.
func rankOf(res *SearchResults, pkg, name string) int {
	for i, r := range res.Results {
		if r.Package != nil && nameMatches(r.Package.Name, pkg) && r.Symbol != nil && r.Symbol.Name == name {
			return i + 1
		}
	}
	return 0
}

func describeResults(res *SearchResults) string {
	var b strings.Builder
	for i, r := range res.Results {
		sym := ""
		if r.Symbol != nil {
			sym = r.Symbol.Name
		}
		fmt.Fprintf(&b, "%d. %s %s [%s] %.3f\n", i+1, r.URI, sym, r.Title, r.Score)
	}
	return b.String()
}
