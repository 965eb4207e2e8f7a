package pkgdocs

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
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
