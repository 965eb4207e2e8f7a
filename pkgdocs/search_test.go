package pkgdocs

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval"
)

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
