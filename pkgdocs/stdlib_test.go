package pkgdocs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/packages"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval"
)

// stdIndex opens an empty package index with standard libraries on (the
// default), in the environment env (nil: the process's).
func stdIndex(t *testing.T, env []string) *Index {
	t.Helper()
	t.Setenv("GNO_HOME", t.TempDir())
	x, err := Open(context.Background(), Options{CacheDir: filepath.Join(shared, "fetched"), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// needStdTools skips when this machine's go or python3 cannot run.
func needStdTools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("%v: the test indexes go's standard library", err)
	}
	if err := pkgtest.Usable("python3"); err != nil {
		t.Skipf("%v: the test indexes Python's standard library", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stdProject is a Go and Python project without dependencies: what it
// indexes is the two standard libraries.
func stdProject(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	writeFile(t, filepath.Join(dir, "requirements.txt"), "")
	return dir
}

func stdKeys(res *AddResult) []string {
	var out []string
	for _, r := range res.Indexed {
		if r.Name == "stdlib" {
			out = append(out, r.Ecosystem+":"+r.Version)
		}
	}
	return out
}

// Go's and Python's standard libraries are indexed by the first project
// and shared by the second; describe and search find their API.
func TestStdlibShared(t *testing.T) {
	needStdTools(t)
	ctx := context.Background()
	x := stdIndex(t, append(os.Environ(), "VIRTUAL_ENV="))
	a, b := stdProject(t), stdProject(t)
	res := add(t, x, a, AddOptions{NoFetch: true})
	if got := stdKeys(res); len(got) != 2 || !strings.HasPrefix(got[0], "go:go1.") || !strings.HasPrefix(got[1], "python:3.") {
		t.Fatalf("first project indexed %v, want go and python stdlib (missing %v)", res.Indexed, res.Missing)
	}
	if n := x.Extracted(); n != 2 {
		t.Fatalf("%d versions extracted, want 2", n)
	}
	res = add(t, x, b, AddOptions{NoFetch: true})
	if len(res.Indexed) != 0 || res.Reused != 2 || x.Extracted() != 2 {
		t.Fatalf("second project: indexed %v, reused %d: the standard libraries were extracted again", res.Indexed, res.Reused)
	}
	if again := add(t, x, a, AddOptions{NoFetch: true}); !again.Unchanged {
		t.Fatalf("re-run of an unchanged project was not unchanged: %+v", again)
	}

	for _, c := range []struct{ eco, symbol, sig, doc string }{
		{"go", "os/exec.Command", "func Command(name string, arg ...string) *Cmd", "Command returns the"},
		{"go", "context.WithTimeout", "func WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc)", "WithTimeout returns WithDeadline"},
		{"python", "re.findall", "def findall(pattern, string, flags=0)", "Return a list of all non-overlapping matches"},
		{"python", "str.split", "def split(self, /, sep=None, maxsplit=-1)", "Return a list of the substrings in the string"},
		{"python", "dict.items", "D.items() -> a set-like object providing a view on D's items", ""},
	} {
		d, err := x.Describe(ctx, DescribeRequest{Package: "stdlib", Ecosystem: c.eco, Symbol: c.symbol, Projects: []string{a}})
		if err != nil {
			t.Fatalf("describe %s %s: %v", c.eco, c.symbol, err)
		}
		if d.Package.Name != "stdlib" || !d.Package.Direct || d.Symbol == nil || d.Symbol.Name != c.symbol || d.Symbol.Signature != c.sig || !strings.Contains(d.Symbol.Doc, c.doc) {
			t.Errorf("describe %s %s: package %+v symbol %+v", c.eco, c.symbol, d.Package, d.Symbol)
		}
	}
	sr, err := x.Search(ctx, SearchRequest{Query: "WithTimeout", Projects: []string{b}, Mode: "search", Ecosystem: "go"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range sr.Results {
		found = found || r.Package != nil && r.Package.Name == "stdlib" && r.Symbol != nil && r.Symbol.Name == "context.WithTimeout"
	}
	if !found {
		t.Errorf("search WithTimeout: no context.WithTimeout among %d results", len(sr.Results))
	}
	if sr.Meta.TotalResults != len(sr.Results) {
		t.Errorf("search WithTimeout: total %d for %d results", sr.Meta.TotalResults, len(sr.Results))
	}
	// The file being edited picks the standard library of its language.
	for path, eco := range map[string]string{"tool.py": "python", "cmd/main.go": "go"} {
		sr, err = x.Search(ctx, SearchRequest{Query: "split a string on whitespace", Projects: []string{b}, Mode: "search", Path: path, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sr.Results {
			if r.Package == nil || r.Package.Ecosystem != eco || r.Explain != nil {
				t.Errorf("path %s: result %s (%+v), want %s only, no explain", path, r.URI, r.Package, eco)
			}
		}
		if len(sr.Results) == 0 {
			t.Errorf("path %s: no results", path)
		}
	}
	ps, err := x.List(ctx, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	if text := ListText(ps); !strings.Contains(text, "go     stdlib go1.") || strings.Contains(text, "transitive") {
		t.Errorf("list does not show the standard libraries as such:\n%s", text)
	}
}

// --no-stdlib leaves them out; turning it off re-runs the project.
func TestStdlibOff(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("%v: the test indexes go's standard library", err)
	}
	x := stdIndex(t, nil)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	res := add(t, x, dir, AddOptions{NoFetch: true, NoStdlib: true})
	if res.Packages != 0 || len(res.Indexed) != 0 {
		t.Fatalf("--no-stdlib indexed %v", res.Indexed)
	}
	if again := add(t, x, dir, AddOptions{NoFetch: true, NoStdlib: true}); !again.Unchanged {
		t.Fatal("unchanged re-run with --no-stdlib re-ran")
	}
	res = add(t, x, dir, AddOptions{NoFetch: true})
	if res.Unchanged || len(stdKeys(res)) != 1 {
		t.Fatalf("stdlib turned on: unchanged %v, indexed %v", res.Unchanged, res.Indexed)
	}
}

// A standard library that cannot be read (no rust-src, a Python that
// cannot start) is listed missing with its reason; the add goes on, and
// an unchanged re-run does not retry it.
func TestStdlibMissing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake toolchain is a shell script")
	}
	sysroot := t.TempDir()
	bin := t.TempDir()
	for name, body := range map[string]string{
		"rustc":   `case "$1" in --version) echo "rustc 1.85.0 (4d91de4e4 2025-02-17)";; --print) echo "` + sysroot + `";; *) exit 1;; esac`,
		"python3": "echo 'Fatal Python error: failed to get the Python codec of the filesystem encoding' >&2; exit 1",
	} {
		writeFile(t, filepath.Join(bin, name), "#!/bin/sh\n"+body+"\n")
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	x := stdIndex(t, append(os.Environ(), "PATH="+bin, "VIRTUAL_ENV="))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Cargo.toml"), "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	writeFile(t, filepath.Join(dir, "requirements.txt"), "")
	res, err := x.Add(context.Background(), dir, AddOptions{NoFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, m := range res.Missing {
		if m.Name == "stdlib" {
			reasons[m.Ecosystem] = m.Reason
		}
	}
	if !strings.Contains(reasons["rust"], "rust-src") || !strings.Contains(reasons["python"], "cannot start") || !strings.Contains(reasons["python"], "filesystem encoding") {
		t.Fatalf("missing reasons %v", reasons)
	}
	again, err := x.Add(context.Background(), dir, AddOptions{NoFetch: true})
	if err != nil || !again.Unchanged || len(again.Missing) != 2 {
		t.Fatalf("re-run: %+v, %v", again, err)
	}
}

// Node's API from an @types/node that npm installed in the project.
func TestStdlibNode(t *testing.T) {
	if testing.Short() {
		t.Skip("installs @types/node with npm; skipped with -short")
	}
	if err := pkgtest.Usable("npm"); err != nil {
		t.Skipf("%v: the test installs @types/node with it", err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "package.json"), `{"name": "p", "version": "1.0.0", "private": true}`)
	cmd := exec.Command("npm", "install", "--save-dev", "--no-audit", "--no-fund", "@types/node@22.10.2")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install @types/node: %v\n%s", err, out)
	}
	x := stdIndex(t, nil)
	res := add(t, x, dir, AddOptions{NoFetch: true, All: true})
	if got := stdKeys(res); len(got) != 1 || got[0] != "npm:node-types-22.10.2" {
		t.Fatalf("indexed %v", res.Indexed)
	}
	for _, r := range res.Indexed {
		if r.Name == "@types/node" {
			t.Errorf("indexed %v: want Node's API once, as the stdlib", res.Indexed)
		}
	}
	d, err := x.Describe(context.Background(), DescribeRequest{Package: "stdlib", Ecosystem: "npm", Symbol: "fs/promises.readFile", Projects: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Symbol == nil || !strings.Contains(d.Symbol.Signature, "function readFile(") {
		t.Fatalf("fs/promises.readFile: %+v", d.Symbol)
	}
}

// A standard-library result the query does not name in code form yields
// to a dependency's; one it names keeps its score.
func TestWeighStdlib(t *testing.T) {
	res := func(name, sym string, score float64) retrieval.Result {
		return retrieval.Result{Score: score, Package: &retrieval.PackageRef{Ecosystem: "go", Name: name, Version: "1"}, Symbol: &retrieval.Symbol{Name: sym}}
	}
	in := func() []retrieval.Result {
		return []retrieval.Result{res("stdlib", "context.WithTimeout", 1), res("stdlib", "os/exec.Command", 0.9), res("cobra", "Command.Execute", 0.7)}
	}
	order := func(rs []retrieval.Result) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Symbol.Name)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"run a command with a timeout", "Command.Execute context.WithTimeout os/exec.Command"},
		{"context.WithTimeout", "context.WithTimeout Command.Execute os/exec.Command"},
		{"how does WithTimeout work?", "context.WithTimeout Command.Execute os/exec.Command"},
		{"`exec.Command()` usage", "os/exec.Command Command.Execute context.WithTimeout"},
	} {
		if got := order(weighStdlib(c.query, in(), false)); got != c.want {
			t.Errorf("%q: %s, want %s", c.query, got, c.want)
		}
	}
	// A standard-library result the vector search found (an embedded
	// standard library) keeps stdlibVectorWeight of its score, a
	// keyword-only one stdlibWeight: 0.9 → 0.675 stays above the
	// keyword-only 1 → 0.5, below the dependency's 0.7.
	found := in()
	found[1].Explain = &retrieval.Explain{BM25Rank: 2, VectorRank: 1}
	found[0].Explain = &retrieval.Explain{BM25Rank: 1}
	got := weighStdlib("run a command with a timeout", found, false)
	if order(got) != "Command.Execute os/exec.Command context.WithTimeout" || got[1].Score != 0.9*stdlibVectorWeight || got[2].Score != stdlibWeight {
		t.Errorf("embedded result: %s %v, want Command.Execute os/exec.Command context.WithTimeout, scores 0.7 %v %v", order(got), got, 0.9*stdlibVectorWeight, stdlibWeight)
	}
	// In a vector-only search (vsearch) a result the vectors found keeps
	// its whole score, as before the split: there every result has a
	// vector rank.
	found = in()
	found[1].Explain = &retrieval.Explain{VectorRank: 1}
	found[0].Explain = &retrieval.Explain{VectorRank: 2}
	if got := weighStdlib("run a command with a timeout", found, true); got[0].Score != 1 || got[1].Score != 0.9 {
		t.Errorf("vsearch: %s %v, want the vector-found standard-library results at 1 and 0.9", order(got), got)
	}
	if got := codeTokens("how to split a String with str.split() or os/exec"); strings.Join(got, " ") != "str.split os/exec" {
		t.Errorf("code tokens %q", got)
	}
}

// TestVectorSides: a scope with an embedded standard library and
// dependencies splits its vector search into the dependencies' side
// (named "vector", first) and the embedded standard libraries',
// weighted stdlibVectorListWeight; with none embedded, no split.
func TestVectorSides(t *testing.T) {
	s := &scoped{versions: []retrieval.ProjectVersion{
		{PkgVersion: retrieval.PackageVersion{Key: "go:stdlib@go1.26", Name: packages.StdlibName}},
		{PkgVersion: retrieval.PackageVersion{Key: "go:github.com/spf13/cobra@v1.8.1", Name: "github.com/spf13/cobra"}},
		{PkgVersion: retrieval.PackageVersion{Key: "python:stdlib@3.11", Name: packages.StdlibName}},
		{PkgVersion: retrieval.PackageVersion{Key: "python:click@8.1.7", Name: "click"}},
	}}
	got := s.vectorSides(map[string]bool{"go:stdlib@go1.26": true, "python:stdlib@3.11": false})
	want := []retrieval.VectorSide{
		{Name: "vector", Versions: []string{"go:github.com/spf13/cobra@v1.8.1", "python:click@8.1.7"}},
		{Name: "vector-stdlib", Versions: []string{"go:stdlib@go1.26"}, Weight: stdlibVectorListWeight},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sides %+v, want %+v", got, want)
	}
	if got := s.vectorSides(map[string]bool{"python:stdlib@3.11": false}); got != nil {
		t.Fatalf("no standard library embedded: sides %+v, want none", got)
	}
}

// TestStdlibWeighingHidesExplain: the standard-library weighting reads
// the engine's explanation, and an answer that did not ask for one
// carries none (no per-result scores, no timings).
func TestStdlibWeighingHidesExplain(t *testing.T) {
	needStdTools(t)
	ctx := context.Background()
	x := stdIndex(t, append(os.Environ(), "VIRTUAL_ENV="))
	dir := stdProject(t)
	if err := (pkgtest.Project{Swift: true}).Write(dir); err != nil {
		t.Fatal(err)
	}
	add(t, x, dir, AddOptions{NoFetch: true})
	for _, explain := range []bool{false, true} {
		// Weighed: a dependency beside standard libraries.
		res, err := x.Search(ctx, SearchRequest{Query: "retry with a timeout", Projects: []string{dir}, Mode: ModeSearch, Limit: 10, Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if (r.Explain != nil) != explain {
				t.Errorf("explain %v: result %s has explain %+v", explain, r.URI, r.Explain)
			}
		}
		if len(res.Results) == 0 || res.Scope.Packages < 3 {
			t.Errorf("want the dependency and both standard libraries searched (%d), got\n%s", res.Scope.Packages, describeResults(res))
		}
		if (res.Meta.Timings != nil) != explain {
			t.Errorf("explain %v: timings %v", explain, res.Meta.Timings)
		}
	}
}
