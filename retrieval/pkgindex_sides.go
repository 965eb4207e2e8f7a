package retrieval

import (
	"fmt"
	"slices"

	"github.com/gnosearch/gno/retrieval/fusion"
)

// vectorLists is the vector list of the i-th vector text (0: the
// user's query, named "vector"; expansion variants "vec1"…), or, for the
// query of a split search, its sides' lists (sideLists).
func (r *queryRun) vectorLists(i int, text string, pre *queryVector, vecW float64) ([]fusion.List, error) {
	if i == 0 && len(r.req.sides) > 0 {
		return r.sideLists(text, pre, vecW)
	}
	h, err := r.e.vectorHitsFor(r.ctx, r.base, text, pre, r.f, r.depth)
	if err != nil {
		return nil, err
	}
	name, w := "vector", vecW
	if i > 0 {
		name, w = fmt.Sprintf("vec%d", i), expansionWeight
	}
	return []fusion.List{{Name: name, Weight: w, Hits: toFusion(h)}}, nil
}

// sideLists runs the query's vector search once per side of a split
// search (PackageSearch.Sides): each side's own nearest-neighbour list,
// r.depth deep, weighted vecW × the side's weight, and reachable only by
// its side's documents (fusion.Cover then scores a document over the
// lists it could be in, so a side's list neither lifts nor lowers the
// other side's documents on the fused scale). The caller names a side
// past the first only when its versions have vectors
// (Packages.VersionsEmbedded), so each side is its own list whatever
// BM25 found.
func (r *queryRun) sideLists(text string, pre *queryVector, vecW float64) (lists []fusion.List, err error) {
	var others []func(int64) bool
	for i, sd := range r.req.sides {
		f := r.f
		if f.Collections = sd.Versions; len(f.Collections) == 0 {
			continue
		}
		in := &admittedDocs{}
		if last := i == len(r.req.sides)-1; last && i > 0 && r.f.Empty() {
			// The search is over every version, so the last side is
			// every document the others do not hold: no read of its
			// ids (a standard library's 23k, half the split's cost).
			prev := others[:len(others):len(others)]
			in.allow = func(doc int64) bool {
				for _, o := range prev {
					if o(doc) {
						return false
					}
				}
				return true
			}
		} else if in.allow, in.n, err = r.e.allowed(r.base, f); err != nil {
			return nil, err
		}
		others = append(others, in.allow)
		h, err := r.e.vectorHitsIn(r.ctx, r.base, text, pre, f, r.depth, in)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 {
			continue
		}
		w := vecW
		if sd.Weight > 0 {
			w *= sd.Weight
		}
		allow := in.allow
		lists = append(lists, fusion.List{Name: sideName(i, sd), Weight: w, Hits: toFusion(h),
			Reachable: func(f *fusion.Fused) bool { return allow(f.DocID) }})
	}
	return lists, nil
}

// sideName is the name of the i-th side's list: "vector" for the first,
// the side's own past it, "vector<i>" for one unnamed (or named "vector"),
// so no two lists share a name.
func sideName(i int, sd VectorSide) string {
	switch {
	case i == 0:
		return "vector"
	case sd.Name == "" || sd.Name == "vector":
		return fmt.Sprintf("vector%d", i)
	}
	return sd.Name
}

// vectorNames are the names of the lists of the query's own vector
// search: "vector", and a split search's other sides.
func (r *queryRun) vectorNames() []string {
	names := []string{"vector"}
	for i, sd := range r.req.sides {
		if i > 0 {
			names = append(names, sideName(i, sd))
		}
	}
	return names
}

// vectorRank is a fused document's rank and score in the query's own
// vector list (a split search's side that holds it); 0 when none has it.
func (r *queryRun) vectorRank(fd fusion.Fused) (int, float64) {
	for _, name := range r.vectorNames() {
		if rk, ok := fd.Ranks[name]; ok {
			return rk, round4(fd.Scores[name])
		}
	}
	return 0, 0
}

// withoutVector is how many of fused no vector list could hold, for the
// note on them: covered, fusion.Cover's count, in a search with one
// vector list; in a split search Cover rescales every document (none
// could be in every side's list), so those that no side's list could
// hold are counted.
func (r *queryRun) withoutVector(fused []fusion.Fused, lists []fusion.List, covered int) int {
	var vec []fusion.List
	for _, l := range lists {
		if slices.Contains(r.vectorNames(), l.Name) {
			vec = append(vec, l)
		}
	}
	if len(vec) < 2 {
		return covered
	}
	n := 0
	for i := range fused {
		if !slices.ContainsFunc(vec, func(l fusion.List) bool { return l.Reachable == nil || l.Reachable(&fused[i]) }) {
			n++
		}
	}
	return n
}

// bothReach is the test of a document that must pass a and b (nil: any).
func bothReach(a, b func(*fusion.Fused) bool) func(*fusion.Fused) bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(f *fusion.Fused) bool { return a(f) && b(f) }
}
