package layout

import "testing"

func TestAround(t *testing.T) {
	// A path 0-1-2-3-4, a missing note named from 1 and from 3, 5 alone.
	in := &Input{
		Docs:       []Doc{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}, {ID: "f"}},
		Links:      []Link{{0, 1}, {2, 1}, {2, 3}, {3, 4}, {3, 3}, {9, 0}},
		Unresolved: []Unresolved{{1, "Gone"}, {3, "Later"}},
		Rank:       []float64{.1, .2, .3, .4, .5, .6},
	}
	got := Around(in, 2, 1, 100)
	ids := func(x *Input) (s string) {
		for _, d := range x.Docs {
			s += d.ID
		}
		return s
	}
	if ids(got) != "cbd" || len(got.Links) != 2 || len(got.Unresolved) != 0 || got.Rank[0] != .3 {
		t.Errorf("depth 1 of c: %s, links %v, unresolved %v, rank %v", ids(got), got.Links, got.Unresolved, got.Rank)
	}
	if got := Around(in, 2, 2, 100); ids(got) != "cbdae" || len(got.Unresolved) != 2 {
		t.Errorf("depth 2 of c: %s, unresolved %v", ids(got), got.Unresolved)
	}
	// Unresolved links at the edge of the depth are left out.
	if got := Around(in, 0, 1, 100); ids(got) != "ab" || len(got.Unresolved) != 0 {
		t.Errorf("depth 1 of a: %s, unresolved %v", ids(got), got.Unresolved)
	}
	if got := Around(in, 0, 3, 100); ids(got) != "abcd" {
		t.Errorf("depth 3 of a: %s", ids(got))
	}
	if got := Around(in, 0, 3, 2); ids(got) != "ab" {
		t.Errorf("at most 2: %s", ids(got))
	}
	if got := Around(in, 5, 3, 100); ids(got) != "f" || len(got.Links) != 0 {
		t.Errorf("alone: %s %v", ids(got), got.Links)
	}
	if Around(in, 6, 1, 10) != nil || Around(in, -1, 1, 10) != nil {
		t.Error("an invalid focus gave a graph")
	}
}
