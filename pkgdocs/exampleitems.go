package pkgdocs

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval"
)

// examplesAsItems shows an example hit as the API item it exemplifies, when that item is not among the
// results at all: the item's hit shows its doc and its first example
// (hits.go), so it answers what the example does and says which API to
// call, where the example alone is code. Code embeds close to a
// question that describes a task, so in fast mode examples take first
// places whose items the lists ranked lower or not at all
// (singleflight's ExampleGroup for "collapse duplicate concurrent
// calls", once_cell's unsync::OnceCell examples for "a global value
// computed on first use"): bench/RESULTS.md, "pkgrank7". An item that
// is among the results is moved up by liftItems instead; an example of
// a whole Go package, or a program (chi's _examples), stays as it is.
// The item takes the example's score. It looks at the whole candidate
// pool (candidatePool), not at the first results asked for, so that a
// search asked for 3 returns the first 3 of one asked for 10.
func (x *Index) examplesAsItems(ctx context.Context, s *scoped, results []retrieval.Result) ([]retrieval.Result, error) {
	byKey := map[string]int64{}
	for _, v := range s.versions {
		byKey[v.Key] = v.ID
	}
	have := map[string]bool{}
	for _, r := range results {
		if key, example := itemKey(r); key != "" && !example {
			have[key] = true
		}
	}
	out := results
	copied := false
	for i := range out {
		key, example := itemKey(out[i])
		if !example || have[key] {
			continue
		}
		have[key] = true // one lookup per item; a second example of it folds
		r := out[i]
		vid, ok := byKey[retrieval.PackageKey(r.Package.Ecosystem, r.Package.Name, r.Package.Version)]
		if !ok {
			continue
		}
		name := key[strings.IndexByte(key, 0)+1:]
		us, err := x.pk.Symbol(ctx, vid, name)
		if err != nil {
			return nil, err
		}
		var doc int64
		for _, u := range us {
			if u.Symbol == name && u.Kind == "api" {
				doc = u.DocID
				break
			}
		}
		if doc == 0 {
			continue
		}
		rs, err := x.pk.UnitResults(ctx, []int64{doc}, []float64{r.Score})
		if err != nil {
			return nil, err
		}
		if len(rs) != 1 {
			continue
		}
		if !copied {
			out = append([]retrieval.Result(nil), results...)
			copied = true
		}
		out[i] = rs[0]
	}
	return out, nil
}
