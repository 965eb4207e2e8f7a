package vector

import (
	"reflect"
	"testing"
)

// TestReleasePages: a graph whose mapped pages were dropped answers as
// before (they come back from the file), also while dropped again
// between searches; a graph read into memory is left alone.
func TestReleasePages(t *testing.T) {
	all := clustered(1100, 10, 32, 5)
	_, g, _ := savedGraph(t, all[:1000])
	exact := exactOf(all[:1000])
	var before [][]Hit
	for _, q := range all[1000:1020] {
		h, err := g.Search(Query{Vector: q, K: 10, Exact: exact})
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, h)
	}
	if !g.file.mapped {
		t.Skip("the graph file was read, not mapped, here")
	}
	for i, q := range all[1000:1020] {
		g.ReleasePages()
		h, err := g.Search(Query{Vector: q, K: 10, Exact: exact})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(h, before[i]) {
			t.Fatalf("query %d after the release: %v, before %v", i, h, before[i])
		}
	}
	mem := GraphOf(New(32, "m", Params{}))
	mem.ReleasePages() // nothing mapped: nothing to do
}
