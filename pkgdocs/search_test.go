package pkgdocs

import (
	"context"
	"math"
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
	for _, c := range []struct{ want, pool int }{{1, 30}, {5, 30}, {10, 30}, {20, 60}, {900, 1000}, {math.MaxInt, retrieval.MaxLimit}, {math.MaxInt/poolFactor + 1, retrieval.MaxLimit}} {
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

// TestExampleOfSpecialMethod: an example hit of a Python special method
// ("example/Foo.__call__") beside its class shows as the class once,
// not as the method's item beside it (examplesAsItems runs before
// foldDunders). Real click, installed by pip.
func TestExampleOfSpecialMethod(t *testing.T) {
	needClients(t)
	ctx := context.Background()
	x := newIndex(t)
	dir := project(t, pkgtest.Project{Python: pkgtest.Default.Python})
	add(t, x, dir, AddOptions{})
	req := SearchRequest{Query: "call", Projects: []string{dir}}
	s, err := x.searchScope(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var method, class retrieval.PackageUnit
	var pkg *retrieval.PackageRef
	for _, v := range s.versions {
		us, err := x.Packages().Symbol(ctx, v.ID, "__call__")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			cls, ok := dunderClass(u.Symbol)
			if !ok {
				continue
			}
			cs, err := x.Packages().Symbol(ctx, v.ID, cls)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) > 0 && cs[0].Symbol == cls {
				method, class = u, cs[0]
				pkg = &retrieval.PackageRef{Ecosystem: v.Ecosystem, Name: v.Name, Version: v.Version}
				break
			}
		}
	}
	if pkg == nil {
		t.Fatalf("no special method __call__ of a stored class in %s", pkgtest.Default.Python)
	}
	rs, err := x.Packages().UnitResults(ctx, []int64{class.DocID}, []float64{0.9})
	if err != nil || len(rs) != 1 {
		t.Fatalf("class %s: %v %v", class.Symbol, rs, err)
	}
	example := retrieval.Result{URI: "gno://pkg/example", Score: 0.8, Package: pkg,
		Source: retrieval.Source{RelPath: "example/" + method.Symbol}}
	got, err := x.asItems(ctx, s, append(rs, example))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Symbol == nil || got[0].Symbol.Name != class.Symbol {
		t.Fatalf("class %s and an example of %s: got\n%s", class.Symbol, method.Symbol, describeResults(&SearchResults{Results: got}))
	}
	// An example alone becomes its item with the example's explanation
	// (the ranks the standard-library weighting reads), through the
	// special method's fold too.
	for _, sym := range []string{class.Symbol, method.Symbol} {
		ex := example
		ex.Source.RelPath = "example/" + sym
		ex.Explain = &retrieval.Explain{VectorRank: 7}
		got, err := x.asItems(ctx, s, []retrieval.Result{ex})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Symbol == nil || got[0].Symbol.Name != class.Symbol || got[0].Explain == nil || got[0].Explain.VectorRank != 7 {
			t.Fatalf("an example of %s alone: got %+v", sym, got)
		}
	}
}
