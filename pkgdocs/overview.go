package pkgdocs

import (
	"sort"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/retrieval"
)

// overviewWeight scales the score of a package's overview (a Go package
// doc, a namespace): it shares words with every question about the
// package, and a question is about one of its items, so the overview
// keeps a first place only over items well behind it. 0.9 on the tuning
// half of the ranking set (bench/RESULTS.md: fast 0.56 → 0.58 hit@3
// project-wide, Go 0.74 → 0.80; 0.8 measured the same, 0.95 half of it).
const overviewWeight = 0.9

// demoteOverviews applies overviewWeight and re-sorts.
func demoteOverviews(results []retrieval.Result) []retrieval.Result {
	changed := false
	for i := range results {
		r := &results[i]
		if r.Symbol != nil && (r.Symbol.Kind == apidoc.SymPackage || r.Symbol.Kind == apidoc.SymNamespace) {
			r.Score *= overviewWeight
			changed = true
		}
	}
	if changed {
		sort.SliceStable(results, func(i, j int) bool { return results[i].Score > results[j].Score })
	}
	return results
}
