package retrieval

import (
	"context"
	"slices"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/fusion"
)

// A standard library's look-alikes of leadCorpus's flags, for the side
// of a split vector search.
var sideCorpus = map[string]string{
	"duration.md":      "# time.Duration\n\ntype\n\nA Duration represents the elapsed time between two instants as an int64 nanosecond count.\n",
	"parseduration.md": "# time.ParseDuration\n\nfunc\n\nParseDuration parses a duration string such as \"300ms\", \"-1.5h\" or \"2h45m\".\n",
	"since.md":         "# time.Since\n\nfunc\n\nSince returns the time elapsed since t.\n",
}

// TestSideLists: a split vector search (PackageSearch.Sides) gives each
// side its own list, as deep as the one list, holding only its side's
// documents and weighted by the side's weight; a side past the first
// without vectors is left out, the others still split. Real SQLite, the installed
// embedder.
func TestSideLists(t *testing.T) {
	e := pkgEngine(t, leadCorpus)
	embedNew(t, e)
	ctx := context.Background()
	// The second side's documents come in after the embedding: no
	// vectors yet.
	std := t.TempDir()
	for name, body := range sideCorpus {
		write(t, std, name, body)
	}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "Std", Path: std, Include: []string{"**/*.md"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	e.pkgs = true
	const q = "a time duration"
	// A split search none of whose sides has vectors fuses no vector
	// list, and says so.
	qr := QueryRequest{SearchRequest: SearchRequest{Query: q, Limit: 2}, Fast: true}
	qr.sides = []VectorSide{{Name: "vector", Versions: []string{"std"}}}
	res, err := e.Query(ctx, qr)
	if err != nil || res.Meta.VectorsUsed || res.Meta.Mode != "bm25_only" {
		t.Fatalf("sides without vectors: %+v %v; want bm25_only, no vectors used", res.Meta, err)
	}
	r, err := e.newQueryRun(ctx, QueryRequest{SearchRequest: SearchRequest{Query: q, Limit: 2}, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	r.ctx, r.depth = ctx, 2
	r.req.sides = []VectorSide{{Name: "vector", Versions: []string{"notes"}}, {Name: "vector-stdlib", Versions: []string{"std"}, Weight: 0.25}}
	// A second side without vectors yet: the search is still split
	// (the caller names a side only when its versions are embedded, not
	// from what BM25 found), and the empty side is left out.
	lists, err := r.sideLists(q, nil, 2)
	if err != nil || len(lists) != 1 || lists[0].Name != "vector" || lists[0].Reachable == nil {
		t.Fatalf("std without vectors: %d lists, %v; want the first side's alone", len(lists), err)
	}
	embedNew(t, e)
	if lists, err = r.sideLists(q, nil, 2); err != nil || len(lists) != 2 {
		t.Fatalf("split: %d lists, %v; want 2", len(lists), err)
	}
	st, err := e.store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		name, coll string
		weight     float64
	}{{"vector", "notes", 2}, {"vector-stdlib", "std", 0.5}} {
		l := lists[i]
		if l.Name != want.name || l.Weight != want.weight || len(l.Hits) != 2 {
			t.Fatalf("list %d: %s weight %v, %d hits; want %s weight %v, 2 hits", i, l.Name, l.Weight, len(l.Hits), want.name, want.weight)
		}
		for _, h := range l.Hits {
			docs, err := st.Docs(ctx, []int64{h.DocID})
			if err != nil || docs[h.DocID] == nil || docs[h.DocID].Collection != want.coll {
				t.Fatalf("list %s holds doc %d of %+v (%v), want only %s", l.Name, h.DocID, docs[h.DocID], err, want.coll)
			}
			if !l.Reachable(&fusion.Fused{DocID: h.DocID}) || lists[1-i].Reachable(&fusion.Fused{DocID: h.DocID}) {
				t.Fatalf("doc %d of %s: reachable in its own list only", h.DocID, want.coll)
			}
		}
	}
	// An unnamed side past the first gets a name of its own.
	r.req.sides[1].Name = ""
	if lists, err = r.sideLists(q, nil, 2); err != nil || len(lists) != 2 || lists[1].Name != "vector1" {
		t.Fatalf("unnamed side: %d lists, %v; want the second named vector1", len(lists), err)
	}
	if names := r.vectorNames(); !slices.Equal(names, []string{"vector", "vector1"}) {
		t.Fatalf("vectorNames %v", names)
	}
}

// TestWithoutVector: the note's count of documents without a vector is
// fusion.Cover's with one vector list; in a split search, the documents
// no side's list could hold (Cover rescales every one there).
func TestWithoutVector(t *testing.T) {
	side := func(name string, docs ...int64) fusion.List {
		return fusion.List{Name: name, Reachable: func(f *fusion.Fused) bool { return slices.Contains(docs, f.DocID) }}
	}
	fused := []fusion.Fused{{DocID: 1}, {DocID: 2}, {DocID: 3}}
	bm := fusion.List{Name: "bm25"}
	r := &queryRun{req: QueryRequest{SearchRequest: SearchRequest{sides: []VectorSide{{Name: "vector"}, {Name: "vector-stdlib"}}}}}
	if n := r.withoutVector(fused, []fusion.List{bm, side("vector", 1), side("vector-stdlib", 2)}, 3); n != 1 {
		t.Errorf("split: %d without a vector, want 1 (doc 3)", n)
	}
	if n := r.withoutVector(fused, []fusion.List{bm, side("vector", 1)}, 2); n != 2 {
		t.Errorf("one vector list: %d, want Cover's 2", n)
	}
}

// TestListsFor: a package search asking for a pool of results to
// re-order (PackageSearch.ListsFor) makes its fused lists as deep as its
// own limit would, not as the pool.
func TestListsFor(t *testing.T) {
	e, _ := newEngine(t, map[string]string{"a.txt": "alpha"})
	ctx := context.Background()
	for _, c := range []struct{ limit, listsFor, depth int }{{90, 10, 50}, {90, 0, 90}, {300, 100, 100}, {10, 0, 50}} {
		q := QueryRequest{SearchRequest: SearchRequest{Query: "alpha", Limit: c.limit}, Fast: true}
		q.listsFor = c.listsFor
		r, err := e.newQueryRun(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if r.depth != c.depth {
			t.Errorf("limit %d, lists for %d: depth %d, want %d", c.limit, c.listsFor, r.depth, c.depth)
		}
	}
}
