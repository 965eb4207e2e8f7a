package pkgdocs

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval"
)

func TestEcosystemOfPath(t *testing.T) {
	for in, want := range map[string]string{
		"cmd/gno/main.go":         "go",
		"go.mod":                  "go",
		"/work/app/src/index.ts":  "npm",
		"web/App.tsx":             "npm",
		"lib/util.mjs":            "npm",
		"package.json":            "npm",
		"app/models.py":           "python",
		"stubs/x.pyi":             "python",
		"pyproject.toml":          "python",
		"requirements-dev.txt":    "python",
		"src/main.rs":             "rust",
		"Cargo.toml":              "rust",
		"Sources/App/main.swift":  "swift",
		"Package.swift":           "swift",
		`C:\work\proj\src\lib.rs`: "rust",
		"README.md":               "",
		"Makefile":                "",
		"notes.txt":               "",
		"":                        "",
		"  main.go ":              "go",
		"archive.tar.gz":          "",
		"requirements":            "",
		"some/dir.go/readme.md":   "",
	} {
		if got := EcosystemOfPath(in); got != want {
			t.Errorf("EcosystemOfPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchPathHint: the file being edited narrows a search to its
// language's packages, says so, and never empties a search: a language
// with no package in scope (or a named package of another ecosystem)
// searches everything, with a note.
func TestSearchPathHint(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Default)
	add(t, x, dir, AddOptions{})
	ecosystems := func(res *SearchResults) map[string]bool {
		out := map[string]bool{}
		for _, r := range res.Results {
			if r.Package != nil {
				out[r.Package.Ecosystem] = true
			}
		}
		return out
	}
	q := "add a subcommand with its own flags"
	all, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: ModeSearch, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(ecosystems(all)) < 2 {
		t.Fatalf("want several ecosystems without a hint, got\n%s", describeResults(all))
	}
	for path, eco := range map[string]string{"cmd/root.go": "go", "src/cli.ts": "npm", "cli.py": "python", "src/main.rs": "rust"} {
		res, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: ModeSearch, Limit: 20, Path: path})
		if err != nil {
			t.Fatal(err)
		}
		got := ecosystems(res)
		if len(res.Results) == 0 || len(got) != 1 || !got[eco] {
			t.Errorf("path %s: want only %s results, got %v\n%s", path, eco, got, describeResults(res))
		}
		if !strings.Contains(strings.Join(res.Meta.Notes, "\n"), "searched the "+eco+" packages only") {
			t.Errorf("path %s: no note of the hint in %q", path, res.Meta.Notes)
		}
	}
	// An explicit ecosystem wins over the path.
	res, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: ModeSearch, Limit: 20, Path: "main.go", Ecosystem: "python"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ecosystems(res); len(got) != 1 || !got["python"] {
		t.Errorf("ecosystem python with path main.go: got %v", got)
	}
	// A path that names no language changes nothing.
	res, err = x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: ModeSearch, Limit: 20, Path: "README.md"})
	if err != nil {
		t.Fatal(err)
	}
	if describeResults(res) != describeResults(all) {
		t.Errorf("README.md as path changed the answer:\n%s\nagainst\n%s", describeResults(res), describeResults(all))
	}
	// A named package of another ecosystem than the file's is still found.
	res, err = x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: ModeSearch, Limit: 5, Package: "cobra", Path: "cli.py"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ecosystems(res); len(got) != 1 || !got["go"] {
		t.Errorf("cobra with path cli.py: got %v\n%s", got, describeResults(res))
	}
	if !strings.Contains(strings.Join(res.Meta.Notes, "\n"), "no python package in scope") {
		t.Errorf("cobra with path cli.py: no fallback note in %q", res.Meta.Notes)
	}
}

// TestSearchPrefixStable: the re-orderings after the engine (examples,
// special methods, siblings, the standard-library weight) draw on one
// pool of candidates whatever the limit, so a search asked for 3 results
// returns the first 3 of one asked for 10.
func TestSearchPrefixStable(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Default)
	add(t, x, dir, AddOptions{})
	uris := func(res *SearchResults) []string {
		var out []string
		for _, r := range res.Results {
			out = append(out, r.URI)
		}
		return out
	}
	for _, q := range []string{"add a subcommand with its own flags", "retry with exponential backoff", "an example of a flag", "errors.Is"} {
		for _, mode := range []string{ModeSearch, ModeFast} {
			three, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: mode, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			ten, err := x.Search(ctx, SearchRequest{Query: q, Projects: []string{dir}, Mode: mode, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			a, b := uris(three), uris(ten)
			if len(a) != 3 || len(b) < 3 || strings.Join(a, " ") != strings.Join(b[:3], " ") {
				t.Errorf("%s %q: limit 3 gave %v, limit 10 began %v", mode, q, a, b[:min(3, len(b))])
			}
		}
	}
}

func TestCandidatePool(t *testing.T) {
	for _, c := range []struct{ want, pool int }{{1, 30}, {5, 30}, {10, 30}, {20, 60}, {900, 1000}} {
		if got := candidatePool(c.want); got != c.pool {
			t.Errorf("candidatePool(%d) = %d, want %d", c.want, got, c.pool)
		}
	}
}

// TestExamplesAsItems: an example hit among the first results whose
// item is not among the results shows as its item (commander's
// Command.parse for its example, found by "an example of a flag");
// none of the first results is then an example of a stored item.
func TestExamplesAsItems(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Default)
	add(t, x, dir, AddOptions{})
	const limit = 5
	res, err := x.Search(ctx, SearchRequest{Query: "an example of a flag", Projects: []string{dir}, Mode: ModeSearch, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Results {
		found = found || strings.HasSuffix(r.URI, "/commander@14.0.0/api/Command.parse")
		key, example := itemKey(r)
		if !example {
			continue
		}
		vs, err := x.Packages().Versions(ctx, []string{retrieval.PackageKey(r.Package.Ecosystem, r.Package.Name, r.Package.Version)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			us, err := x.Packages().Symbol(ctx, v.ID, key[strings.IndexByte(key, 0)+1:])
			if err != nil {
				t.Fatal(err)
			}
			if len(us) > 0 {
				t.Errorf("%s: an example of a stored item in the first %d results\n%s", r.URI, limit, describeResults(res))
			}
		}
	}
	if !found {
		t.Errorf("commander's Command.parse is not among the first %d results:\n%s", limit, describeResults(res))
	}
}
