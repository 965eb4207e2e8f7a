package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// testSnapshot: reads with a snapshot's context see the index as it was
// when the snapshot began, while a batch commits beside them.
func testSnapshot(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("c", "a.md", "A", "old"))
	err := st.Read(ctx, func(rctx context.Context) error {
		a, err := st.DocByPath(rctx, "c", "a.md")
		if err != nil {
			return err
		}
		put(t, st, 2, doc("c", "a.md", "A", "new"), doc("c", "b.md", "B", "bee"))
		if c, err := st.Content(rctx, a.ID); err != nil || c != "old" {
			t.Errorf("inside the snapshot: %q, %v", c, err)
		}
		if _, err := st.DocByPath(rctx, "c", "b.md"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("inside the snapshot, a later document: %v", err)
		}
		if _, err := st.Begin(rctx, 3); err == nil {
			t.Error("Begin inside a read: no error")
		}
		// Detached, a read sees the new state.
		if c, err := st.Content(st.Detach(rctx), a.ID); err != nil || c != "new" {
			t.Errorf("detached: %q, %v", c, err)
		}
		return nil
	})
	check(t, err)
	sctx, end, err := st.Snapshot(ctx)
	check(t, err)
	end()
	if l, err := st.List(sctx, nil, "", 0, 0); err != nil || len(l) != 2 {
		t.Errorf("after the snapshot ended: %d, %v", len(l), err)
	}
	for col, want := range map[string]int{"c": 2, "other": 0} {
		if n, err := st.DocCount(ctx, col); err != nil || n != want {
			t.Errorf("DocCount(%s) = %d, %v; want %d", col, n, err, want)
		}
	}
}

func testSkips(t *testing.T, st store.Backend) {
	ctx := context.Background()
	b, err := st.Begin(ctx, 1)
	check(t, err)
	check(t, b.PutSkip(ctx, "c", "x.pdf", store.SkipState{Hash: "h", Size: 3, MtimeNS: 4, Reason: "convert", Detail: "bad"}))
	check(t, b.PutSkip(ctx, "c", "y.pdf", store.SkipState{Hash: "h", Reason: "convert"}))
	check(t, b.PutSkip(ctx, "c", "y.pdf", store.SkipState{Hash: "h2", Reason: "size"}))
	check(t, b.Commit())
	s, err := st.SkipStates(ctx, "c")
	check(t, err)
	if len(s) != 2 || s["x.pdf"].Detail != "bad" || s["y.pdf"].Reason != "size" {
		t.Errorf("SkipStates: %+v", s)
	}
	b, err = st.Begin(ctx, 2)
	check(t, err)
	check(t, b.DeleteSkip(ctx, "c", "x.pdf"))
	check(t, b.Commit())
	n, err := st.SkipCounts(ctx, "c")
	check(t, err)
	if !reflect.DeepEqual(n, map[string]int{"size": 1}) {
		t.Errorf("SkipCounts: %v", n)
	}
}

func testTags(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("c", "a.md", "A", "a", "proj"), doc("c", "b.md", "B", "b", "proj", "idea"))
	a, _ := st.DocByPath(ctx, "c", "a.md")
	check(t, st.AddUserTag(ctx, a.ID, "mine"))
	check(t, st.AddUserTag(ctx, a.ID, "mine"))
	tc, err := st.TagCounts(ctx, "", "")
	check(t, err)
	if !reflect.DeepEqual(tc, []store.TagCount{{Tag: "proj", Count: 2}, {Tag: "idea", Count: 1}, {Tag: "mine", Count: 1}}) {
		t.Errorf("TagCounts: %v", tc)
	}
	if tc, _ := st.TagCounts(ctx, "c", "i"); len(tc) != 1 || tc[0].Tag != "idea" {
		t.Errorf("TagCounts prefix i: %v", tc)
	}
	// A user tag survives re-indexing; a front-matter one follows the file.
	put(t, st, 2, doc("c", "a.md", "A", "a"))
	all, err := st.DocTags(ctx)
	check(t, err)
	if !reflect.DeepEqual(all[a.ID], []string{"mine"}) {
		t.Errorf("tags after re-index: %v", all[a.ID])
	}
	b, _ := st.DocByPath(ctx, "c", "b.md")
	// Unsorted, repeated, and long enough to be read in parts: each
	// document's tags once.
	long := []int64{b.ID, a.ID}
	for i := range int64(1200) {
		long = append(long, b.ID+1000+i)
	}
	long = append(long, a.ID, b.ID)
	for _, ids := range [][]int64{nil, {a.ID}, {b.ID}, {a.ID, b.ID, b.ID + 1000}, {b.ID, a.ID, b.ID}, long} {
		want := map[int64][]string{}
		for _, id := range ids {
			if tags, ok := all[id]; ok {
				want[id] = tags
			}
		}
		some, err := st.DocTagsOf(ctx, ids)
		check(t, err)
		if !reflect.DeepEqual(some, want) {
			t.Errorf("DocTagsOf(%v) = %v, want %v", ids[:min(len(ids), 8)], some, want)
		}
	}
	if ok, err := st.RemoveTag(ctx, a.ID, "mine"); err != nil || !ok {
		t.Errorf("RemoveTag: %v, %v", ok, err)
	}
	if ok, _ := st.RemoveTag(ctx, a.ID, "mine"); ok {
		t.Error("RemoveTag twice: removed")
	}
	check(t, st.RestoreUserTags(ctx, []store.UserTag{{Collection: "c", RelPath: "a.md", Tag: "back"}, {Collection: "c", RelPath: "gone.md", Tag: "x"}}))
	if m, _ := st.DocByPath(ctx, "c", "a.md"); !reflect.DeepEqual(m.Tags, []string{"back"}) {
		t.Errorf("restored: %v", m.Tags)
	}
}

func testCleanup(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("keep", "a.md", "A", "apple"), doc("gone", "b.md", "B", "apple"), doc("gone", "c.md", "C", "apple"))
	n, err := st.Cleanup(ctx, []string{"keep"})
	check(t, err)
	if n != 2 {
		t.Errorf("Cleanup dropped %d, want 2", n)
	}
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"apple"}}, store.Filter{}, 10)
	check(t, err)
	if len(hits) != 1 {
		t.Errorf("after cleanup: %d hits", len(hits))
	}
	if names, _ := st.CollectionNames(ctx); !reflect.DeepEqual(names, []string{"keep"}) {
		t.Errorf("collections: %v", names)
	}
}

// testManySnapshots: more open snapshots than a pool of single reads has
// connections, each reader waiting while it holds one, starve neither
// the reads nor a write batch they wait for.
func testManySnapshots(t *testing.T, st store.Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	put(t, st, 1, doc("c", "a.md", "A", "alpha"))
	var ends []func()
	for range 12 {
		sctx, end, err := st.Snapshot(ctx)
		check(t, err)
		ends = append(ends, end)
		if _, err := st.DocByPath(sctx, "c", "a.md"); err != nil {
			t.Fatal(err)
		}
		// A read beside the snapshots, on the pool of single reads.
		if _, err := st.Docs(st.Detach(sctx), []int64{1}); err != nil {
			t.Fatal(err)
		}
	}
	put(t, st, 2, doc("c", "b.md", "B", "beta"))
	for _, end := range ends {
		end()
	}
	if l, err := st.List(ctx, nil, "", 0, 0); err != nil || len(l) != 2 {
		t.Errorf("after the snapshots: %d documents, %v", len(l), err)
	}
}
