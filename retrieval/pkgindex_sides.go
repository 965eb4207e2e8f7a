package retrieval

import (
	"github.com/gnosearch/gno/retrieval/fusion"
)

// sideLists runs the query's vector search once per side of a split
// search (PackageSearch.Sides): each side's own nearest-neighbour list,
// r.depth deep, weighted vecW × the side's weight, and reachable only by
// its side's documents (fusion.Cover then scores a document over the
// lists it could be in, so a side's list neither lifts nor lowers the
// other side's documents on the fused scale). The split applies only
// where it can change the answer: when a side past the first has
// vectors. Otherwise sideLists returns no lists and split false, and the
// caller searches as without sides (one list, unfiltered by side).
func (r *queryRun) sideLists(text string, pre *queryVector, vecW float64) (lists []fusion.List, split bool, err error) {
	sides := r.req.sides
	found := make([][]hit, len(sides))
	// The later sides first: without their vectors there is no split.
	for i := len(sides) - 1; i >= 0; i-- {
		if i == 0 && !split {
			return nil, false, nil
		}
		f := r.f
		if f.Collections = sides[i].Versions; len(f.Collections) == 0 {
			continue
		}
		if found[i], err = r.e.vectorHitsFor(r.ctx, r.base, text, pre, f, r.depth); err != nil {
			return nil, false, err
		}
		split = split || len(found[i]) > 0
	}
	for i, sd := range sides {
		if len(found[i]) == 0 {
			continue
		}
		f := r.f
		f.Collections = sd.Versions
		allow, _, err := r.e.allowed(r.base, f)
		if err != nil {
			return nil, false, err
		}
		w := vecW
		if sd.Weight > 0 {
			w *= sd.Weight
		}
		name := sd.Name
		if i == 0 || name == "" {
			name = "vector"
		}
		lists = append(lists, fusion.List{Name: name, Weight: w, Hits: toFusion(found[i]),
			Reachable: func(f *fusion.Fused) bool { return allow(f.DocID) }})
	}
	return lists, true, nil
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
