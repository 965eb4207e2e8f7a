package pkgdocs

import (
	"sort"
	"strings"

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

// packageExampleWeight scales the score of an example of a whole package
// (a Go Example_name or Example function, an example program shipped in
// examples/ or _examples/): a whole program shares words and meaning
// with a question that describes a task, and in fast mode came first
// above the item that answers it (chi's _examples/limits/main.go over
// middleware.Throttle for "cap the number of requests processed at the
// same time"), while it names no item to call. 0.8 on the tuning half of
// the ranking set (bench/RESULTS.md, "pkgrank7": fast, package scope Go
// 0.78 → 0.80 hit@3, with the caller's file 0.80 → 0.83; 0.7 and 0.5
// measured the same, 0.9 less). An example of one item is left to
// liftItems and examplesAsItems.
const packageExampleWeight = 0.8

// demoteOverviews applies overviewWeight to package overviews and
// packageExampleWeight to examples of a whole package, and re-sorts.
func demoteOverviews(results []retrieval.Result) []retrieval.Result {
	changed := false
	for i := range results {
		r := &results[i]
		switch {
		case r.Symbol != nil && (r.Symbol.Kind == apidoc.SymPackage || r.Symbol.Kind == apidoc.SymNamespace):
			r.Score *= overviewWeight
			changed = true
		case packageExample(*r):
			r.Score *= packageExampleWeight
			changed = true
		}
	}
	if changed {
		sort.SliceStable(results, func(i, j int) bool { return results[i].Score > results[j].Score })
	}
	return results
}

// packageExample reports whether r is an example of no one item: a
// generated example unit ("example/…") whose item itemKey cannot name (a
// Go example of the whole package), or a file of an examples folder the
// package ships ("_examples/limits/main.go", "examples/regex.rs").
func packageExample(r retrieval.Result) bool {
	if r.Symbol != nil || r.Package == nil {
		return false
	}
	p := r.Source.RelPath
	if strings.HasPrefix(p, "example/") {
		key, _ := itemKey(r)
		return key == ""
	}
	return strings.HasPrefix(p, "examples/") || strings.HasPrefix(p, "_examples/")
}
