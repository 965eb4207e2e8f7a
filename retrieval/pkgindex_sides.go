package retrieval

import (
	"fmt"
	"slices"

	"github.com/gnosearch/gno/retrieval/fusion"
)

// vectorLists is the vector list of the i-th vector text (0: the
// user's query, named "vector"; expansion variants "vec1"…), or, for the
// query of a split search, its sides' lists (sideLists).
func (r *queryRun) vectorLists(i int, text string, pre *queryVector, vecW float64, bm []hit) ([]fusion.List, error) {
	if i == 0 && len(r.req.sides) > 0 {
		if lists, split, err := r.sideLists(text, pre, vecW, bm); err != nil || split {
			return lists, err
		}
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
// other side's documents on the fused scale). The split applies only
// where it can change the answer: when a side past the first has
// vectors (sidesEmbedded). Otherwise sideLists returns split false, and
// the caller searches as without sides (one list, unfiltered by side):
// a search over a standard library without vectors pays one read of
// BM25's documents, not a vector search per side.
func (r *queryRun) sideLists(text string, pre *queryVector, vecW float64, bm []hit) (lists []fusion.List, split bool, err error) {
	if ok, err := r.sidesEmbedded(bm); err != nil || !ok {
		return nil, false, err
	}
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
			return nil, false, err
		}
		others = append(others, in.allow)
		h, err := r.e.vectorHitsIn(r.ctx, r.base, text, pre, f, r.depth, in)
		if err != nil {
			return nil, false, err
		}
		if len(h) == 0 {
			continue
		}
		w := vecW
		if sd.Weight > 0 {
			w *= sd.Weight
		}
		name := sd.Name
		if i == 0 || name == "" {
			name = "vector"
		}
		allow := in.allow
		lists = append(lists, fusion.List{Name: name, Weight: w, Hits: toFusion(h),
			Reachable: func(f *fusion.Fused) bool { return allow(f.DocID) }})
	}
	return lists, true, nil
}

// sidesSampled is how many of BM25's documents from the sides past the
// first sidesEmbedded asks for vectors.
const sidesSampled = 3

// sidesEmbedded reports whether a side past the first has vectors, from
// the first sidesSampled of BM25's documents that belong to one: a side
// embedded (`gno packages add --embed-stdlib`) has vectors for all its
// documents, one not embedded for none. A side BM25 does not reach has
// nothing to add to a search that found none of it by its words but its
// vectors' first hits, and is left out.
func (r *queryRun) sidesEmbedded(bm []hit) (bool, error) {
	later := map[string]bool{}
	for _, sd := range r.req.sides[1:] {
		for _, v := range sd.Versions {
			later[v] = true
		}
	}
	if len(later) == 0 || len(bm) == 0 {
		return false, nil
	}
	ids := make([]int64, len(bm))
	for i, h := range bm {
		ids[i] = h.DocID
	}
	st, err := r.e.store(r.base)
	if err != nil {
		return false, err
	}
	docs, err := st.Docs(r.base, ids)
	if err != nil {
		return false, err
	}
	model := r.e.models.EmbedModel()
	asked := 0
	for _, id := range ids {
		if d := docs[id]; d == nil || !later[d.Collection] {
			continue
		}
		vs, err := st.DocVectors(r.base, id)
		if err != nil {
			return false, err
		}
		for _, v := range vs {
			if v.Model == model {
				return true, nil
			}
		}
		if asked++; asked == sidesSampled {
			break
		}
	}
	return false, nil
}

// vectorNames are the names of the lists of the query's own vector
// search: "vector", and a split search's other sides.
func (r *queryRun) vectorNames() []string {
	names := []string{"vector"}
	for i, sd := range r.req.sides {
		if i > 0 && sd.Name != "" {
			names = append(names, sd.Name)
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
