package pkgdocs

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval"
)

// asItems shows example hits as their items (examplesAsItems), then
// special methods as their classes (foldDunders), in that order: an
// example of a special method ("example/Foo.__call__") becomes its
// item, and then its class, not an item beside the class already shown.
func (x *Index) asItems(ctx context.Context, s *scoped, results []retrieval.Result) ([]retrieval.Result, error) {
	results, err := x.examplesAsItems(ctx, s, results)
	if err != nil {
		return nil, err
	}
	return x.foldDunders(ctx, s, results)
}

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
	// The items found, then their results in one read.
	type swap struct {
		at  int
		key string // version key, NUL, the item's name
	}
	var swaps []swap
	var docs []int64
	var scores []float64
	for i, r := range results {
		key, example := itemKey(r)
		if !example || have[key] {
			continue
		}
		have[key] = true // one lookup per item; a second example of it folds
		vkey := retrieval.PackageKey(r.Package.Ecosystem, r.Package.Name, r.Package.Version)
		vid, ok := byKey[vkey]
		if !ok {
			continue
		}
		name := key[strings.IndexByte(key, 0)+1:]
		us, err := x.pk.Symbol(ctx, vid, name)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if u.Symbol == name && u.Kind == "api" {
				swaps = append(swaps, swap{i, vkey + "\x00" + name})
				docs, scores = append(docs, u.DocID), append(scores, r.Score)
				break
			}
		}
	}
	if len(swaps) == 0 {
		return results, nil
	}
	rs, err := x.pk.UnitResults(ctx, docs, scores)
	if err != nil {
		return nil, err
	}
	// A unit removed meanwhile is left out of rs: match by item.
	items := map[string]retrieval.Result{}
	for _, u := range rs {
		if u.Package != nil && u.Symbol != nil {
			items[retrieval.PackageKey(u.Package.Ecosystem, u.Package.Name, u.Package.Version)+"\x00"+u.Symbol.Name] = u
		}
	}
	out := append([]retrieval.Result(nil), results...)
	for _, sw := range swaps {
		u, ok := items[sw.key]
		if !ok {
			continue
		}
		// The example's explanation (its lists' ranks, the vector rank
		// weighStdlib read) is the evidence the item's score stands on.
		u.Explain = out[sw.at].Explain
		out[sw.at] = u
	}
	return out, nil
}
