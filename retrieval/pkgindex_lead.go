package retrieval

import (
	"math"
	"slices"

	"github.com/gnosearch/gno/retrieval/fusion"
)

// The lead of BM25's first hit in a package-docs index (fusion.Lead).
// At k = 60 and the vector list weighing twice BM25's, any item the
// vectors rank near the top passes BM25's first hit, and on the judged
// set's tuning half BM25's was the right one more often where the two
// disagreed: a sibling (pflag's DurationSliceP over DurationP, chi's
// example program over middleware.Recoverer), or, project-wide, another
// ecosystem's item on the same topic (tokio's Semaphore over Go's
// TryAcquire, tenacity's stop_* over Swift's CircuitBreaker), so that
// fast scored below search for Go and Swift (bench/RESULTS.md, "fast
// below search").
const (
	// pkgBM25Lead is the lead, in BM25 first-rank votes (fusion.Lead
	// scales it by the list's weight, so a configured BM25 weight does
	// too).
	pkgBM25Lead = 0.5
	// pkgLeadReach is how far down the vector list BM25's first hit may
	// be, counted among its own package version's items, for the lead:
	// the vectors must still find it among the best of its package. A
	// hit they rank lower is a keyword accident the meaning does not
	// back (requests' ChunkedEncodingError for "raise when the server answers
	// 404"). Counted within its version, so that another ecosystem
	// filling the vector list's top does not count against it.
	pkgLeadReach = 5
)

// nearInVersion is fusion.Lead's test for BM25's first hit: whether the
// vector list ranks it within pkgLeadReach of its own version's
// documents. False when it cannot tell (no vector list, a store error).
func (r *queryRun) nearInVersion(lists []fusion.List) func(f *fusion.Fused) bool {
	return func(f *fusion.Fused) bool {
		var vec []fusion.Hit
		for _, l := range lists {
			if slices.Contains(r.vectorNames(), l.Name) {
				vec = append(vec, l.Hits...)
			}
		}
		ids := []int64{f.DocID}
		seen := map[int64]bool{f.DocID: true}
		for _, h := range vec {
			if !seen[h.DocID] {
				seen[h.DocID] = true
				ids = append(ids, h.DocID)
			}
		}
		st, err := r.e.store(r.base)
		if err != nil {
			return false
		}
		docs, err := st.Docs(r.base, ids)
		if err != nil || docs[f.DocID] == nil {
			return false
		}
		return rankInGroup(vec, f.DocID, func(id int64) string {
			if d := docs[id]; d != nil {
				return d.Collection
			}
			return ""
		}) <= pkgLeadReach
	}
}

// rankInGroup is the 1-based rank of doc among the documents of hits
// (each counted once, at its first hit) that group puts with it;
// math.MaxInt when hits does not hold it.
func rankInGroup(hits []fusion.Hit, doc int64, group func(int64) string) int {
	g := group(doc)
	seen := map[int64]bool{}
	n := 0
	for _, h := range hits {
		if seen[h.DocID] || group(h.DocID) != g {
			continue
		}
		seen[h.DocID] = true
		n++
		if h.DocID == doc {
			return n
		}
	}
	return math.MaxInt
}
