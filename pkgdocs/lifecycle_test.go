package pkgdocs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
)

// swiftOnly is a project whose one dependency is the checked-out Swift
// package: no client, no network.
var swiftOnly = pkgtest.Project{Swift: true}

// TestVersionBump: changing a dependency's version indexes only the new
// version; the old one stays until cleanup, which drops it.
func TestVersionBump(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Project{Go: []string{"github.com/spf13/cobra@v1.8.1"}, Swift: true})
	add(t, x, dir, AddOptions{})
	if x.Extracted() != 2 {
		t.Fatalf("extracted %d", x.Extracted())
	}
	gomod := filepath.Join(dir, "go.mod")
	data, _ := os.ReadFile(gomod)
	if err := os.WriteFile(gomod, []byte(strings.Replace(string(data), "v1.8.1", "v1.8.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := add(t, x, dir, AddOptions{})
	if res.Unchanged || refs(res.Indexed) != "go:github.com/spf13/cobra@v1.8.0" || res.Reused != 1 || x.Extracted() != 3 {
		t.Fatalf("bump: indexed %s, reused %d, extracted %d", refs(res.Indexed), res.Reused, x.Extracted())
	}
	d, err := x.Describe(ctx, DescribeRequest{Package: "cobra", Projects: []string{dir}})
	if err != nil || d.Package.Version != "v1.8.0" {
		t.Fatalf("describe after bump: %+v %v", d, err)
	}
	// The old version is still stored (another project may use it) and
	// answers when asked for by version.
	if d, err := x.Describe(ctx, DescribeRequest{Package: "cobra", Version: "v1.8.1", Projects: []string{dir}}); err != nil || d.Package.Version != "v1.8.1" {
		t.Errorf("old version by --version: %+v %v", d, err)
	}
	if n, err := x.Cleanup(ctx); n != 1 || err != nil {
		t.Errorf("cleanup dropped %d (%v), want the old cobra", n, err)
	}
	if _, err := x.Describe(ctx, DescribeRequest{Package: "cobra", Version: "v1.8.1", Projects: []string{dir}}); err == nil {
		t.Errorf("the dropped version still answers")
	}
}

// TestSharedVersion: two projects resolving to the same versions store
// them once; cleanup keeps what either still uses.
func TestSharedVersion(t *testing.T) {
	ctx := context.Background()
	x := newIndex(t)
	a, b := project(t, swiftOnly), project(t, swiftOnly)
	add(t, x, a, AddOptions{NoFetch: true})
	res := add(t, x, b, AddOptions{NoFetch: true})
	if len(res.Indexed) != 0 || res.Reused != 1 || x.Extracted() != 1 {
		t.Fatalf("second project: indexed %s, reused %d, extracted %d", refs(res.Indexed), res.Reused, x.Extracted())
	}
	st, _ := x.pk.Stats(ctx)
	if st.Versions != 1 || st.Projects != 2 {
		t.Errorf("stats %+v: want one version shared by two projects", st)
	}
	x.Remove(ctx, a)
	if n, _ := x.Cleanup(ctx); n != 0 {
		t.Errorf("cleanup dropped %d versions still used by the other project", n)
	}
	if r, err := x.Search(ctx, SearchRequest{Query: "circuit breaker", Projects: []string{b}, Mode: ModeSearch}); err != nil || len(r.Results) == 0 {
		t.Errorf("search of the remaining project: %v %v", r, err)
	}
	x.Remove(ctx, b)
	if n, _ := x.Cleanup(ctx); n != 1 {
		t.Errorf("cleanup dropped %d, want 1", n)
	}
}

// TestNetworkCut: with the clients offline and empty caches, declared
// packages are listed missing with the client's reason; the rest is
// indexed and the run succeeds. A later run retries them.
func TestNetworkCut(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	empty := t.TempDir()
	t.Setenv("GNO_HOME", t.TempDir())
	x, err := Open(ctx, Options{CacheDir: filepath.Join(empty, "fetched"), Env: append(os.Environ(),
		"GOMODCACHE="+filepath.Join(empty, "mod"), "GOFLAGS=-modcacherw", "GOPROXY=off", "GOWORK=off",
		"npm_config_cache="+filepath.Join(empty, "npm"), "PIP_FIND_LINKS=", "PIP_NO_CACHE_DIR=1", "PIP_INDEX_URL=http://127.0.0.1:9/simple",
		"CARGO_HOME="+filepath.Join(empty, "cargo"))})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	dir := project(t, pkgtest.Project{Go: []string{"github.com/google/uuid@v1.6.0"}, NPM: []string{"nanoid@5.1.5"},
		Python: []string{"six==1.16.0"}, Rust: []string{"hex@0.4.3"}, Swift: true})
	res, err := x.Add(ctx, dir, AddOptions{Offline: true, NoStdlib: true}) // the standard libraries are local: TestStdlib*
	if err != nil {
		t.Fatalf("an offline run failed: %v", err)
	}
	if refs(res.Indexed) != "swift:swift-retry@1.2.0" || len(res.Missing) != 4 {
		t.Fatalf("indexed %s, missing %+v", refs(res.Indexed), res.Missing)
	}
	for _, m := range res.Missing {
		if m.Reason == "" || len(m.Reason) > 400 {
			t.Errorf("missing %s: reason %q", m.Name, m.Reason)
		}
		t.Logf("%s %s: %s", m.Ecosystem, m.Name, m.Reason)
	}
	list, _ := x.List(ctx, []string{dir})
	if len(list) != 1 || len(list[0].Missing) != 4 || len(list[0].Packages) != 1 {
		t.Errorf("list: %+v", list)
	}
	// Missing packages make the next run look again (the network may be
	// back), even though nothing changed.
	again, err := x.Add(ctx, dir, AddOptions{Offline: true, NoStdlib: true})
	if err != nil || again.Unchanged {
		t.Errorf("re-run with missing packages: %+v %v", again, err)
	}
}

// TestCorruptInputs: a broken go.mod, a corrupt package.json, a venv with
// a dangling symlink and a binary README are warnings; the rest is
// indexed.
func TestCorruptInputs(t *testing.T) {
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, swiftOnly)
	files := map[string]string{
		"go.mod":                                 "module x\n\nrequire (\n\tgithub.com/a/b v1\n",
		"package.json":                           "{\"dependencies\": {\"left-pad\": ",
		".build/checkouts/swift-retry/README.md": "\x00\x01\x02binary\xff\xfe",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := filepath.Join(dir, ".venv", "lib", "python3.12", "site-packages")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(dir, ".venv", "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644)
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(site, "ghost-1.0.dist-info"))
	res, err := x.Add(ctx, dir, AddOptions{NoFetch: true})
	if err != nil {
		t.Fatalf("corrupt inputs failed the run: %v", err)
	}
	if refs(res.Indexed) != "swift:swift-retry@1.2.0" {
		t.Errorf("indexed %s", refs(res.Indexed))
	}
	all := strings.Join(res.Warnings, "\n")
	for _, want := range []string{"go.mod", "package.json", "README"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning naming %s:\n%s", want, all)
		}
	}
	if r, err := x.Search(ctx, SearchRequest{Query: "timeout", Projects: []string{dir}, Mode: ModeSearch}); err != nil || len(r.Results) == 0 {
		t.Errorf("search after corrupt inputs: %v", err)
	}
}

// TestAutoIndexOnRead: a read of a project never added indexes it (no
// fetch), and a change to its manifests re-indexes it on the next read.
func TestAutoIndexOnRead(t *testing.T) {
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, swiftOnly)
	r, err := x.Search(ctx, SearchRequest{Query: "circuit breaker", Projects: []string{dir}, Mode: ModeSearch, Auto: true})
	if err != nil || len(r.Results) == 0 || !strings.Contains(strings.Join(r.Meta.Notes, " "), "indexed on first use") {
		t.Fatalf("first read: %+v %v", r, err)
	}
	r, _ = x.Search(ctx, SearchRequest{Query: "circuit breaker", Projects: []string{dir}, Mode: ModeSearch, Auto: true})
	if len(r.Meta.Notes) != 0 || x.Extracted() != 1 {
		t.Errorf("second read re-indexed: %v, extracted %d", r.Meta.Notes, x.Extracted())
	}
	os.Remove(filepath.Join(dir, "Package.resolved"))
	os.RemoveAll(filepath.Join(dir, ".build"))
	// Reads in a burst trust the check of the last freshFor; later ones
	// look again.
	if r, _ := x.Search(ctx, SearchRequest{Query: "circuit breaker", Projects: []string{dir}, Mode: ModeSearch, Auto: true}); len(r.Results) == 0 {
		t.Errorf("a read right after a check looked again")
	}
	x.lastCheck = nil
	r, err = x.Search(ctx, SearchRequest{Query: "circuit breaker", Projects: []string{dir}, Mode: ModeSearch, Auto: true})
	if err != nil || len(r.Results) != 0 || !strings.Contains(strings.Join(r.Meta.Notes, " "), "re-indexed") {
		t.Errorf("after the dependency went: %+v %v", r, err)
	}
}
