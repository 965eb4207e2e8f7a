package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// The contract of pages and of large batches.

// testListAfter: pages by id visit every document of one collection
// once, in id order, and none of another.
func testListAfter(t *testing.T, st store.Backend) {
	ctx := context.Background()
	var docs []*store.Document
	for i := range 7 {
		docs = append(docs, doc("c", fmt.Sprintf("%d.md", 7-i), "T", "text"), doc("other", fmt.Sprintf("%d.md", i), "T", "text"))
	}
	put(t, st, 1, docs...)
	var seen []string
	var last int64
	for after := int64(0); ; {
		page, err := st.ListAfter(ctx, "c", after, 3)
		check(t, err)
		if len(page) == 0 {
			break
		}
		if len(page) > 3 {
			t.Fatalf("page of %d, limit 3", len(page))
		}
		for _, m := range page {
			if m.Collection != "c" || m.ID <= last {
				t.Fatalf("page %v after id %d: %s/%s id %d", page, after, m.Collection, m.RelPath, m.ID)
			}
			last = m.ID
			seen = append(seen, m.RelPath)
		}
		after = page[len(page)-1].ID
	}
	if want := []string{"7.md", "6.md", "5.md", "4.md", "3.md", "2.md", "1.md"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("pages saw %v, want %v (insertion order)", seen, want)
	}
}

// testLargeBatch: a batch of more documents than a backend writes at once
// (Postgres flushes every few hundred), with a path put twice and a
// document put and removed in the same batch, indexes and scores what
// small batches do.
func testLargeBatch(t *testing.T, st store.Backend) {
	ctx := context.Background()
	const n = 600
	mk := func(col string, i int) *store.Document {
		return doc(col, fmt.Sprintf("d%04d.md", i), fmt.Sprintf("title %d", i), fmt.Sprintf("word%d common\n\nsecond part %d common", i%37, i), fmt.Sprintf("t%d", i%3))
	}
	put(t, st, 1, doc("c", "old.md", "O", "old durian"))
	old, err := st.DocByPath(ctx, "c", "old.md")
	check(t, err)
	b, err := st.Begin(ctx, 2)
	check(t, err)
	defer b.Rollback()
	// d0005 again, changed, while the first is still held (Postgres): the
	// second version wins.
	again := doc("c", "d0005.md", "title 5", "replaced kiwi", "new")
	for i := range n {
		check(t, b.Put(ctx, mk("c", i)))
		if i == 10 {
			check(t, b.Put(ctx, again))
		}
	}
	check(t, b.Put(ctx, doc("c", "gone.md", "G", "durian")))
	gone, err := st.DocByPath(ctx, "c", "gone.md")
	if err == nil && gone != nil {
		// A backend that shows its open batch to reads (SQLite's
		// connection does not); only its id is needed.
		check(t, b.Remove(ctx, gone.ID))
	}
	// Removed after documents the batch may still hold.
	check(t, b.Remove(ctx, old.ID))
	check(t, b.Commit())
	if m, _ := st.DocByPath(ctx, "c", "old.md"); m != nil {
		t.Errorf("old.md removed, still there")
	}
	if gone != nil {
		if m, _ := st.DocByPath(ctx, "c", "gone.md"); m != nil {
			t.Errorf("gone.md removed in its batch, still there")
		}
	}
	stats, err := st.Stats(ctx, "")
	check(t, err)
	wantDocs := n + 1
	if gone != nil {
		wantDocs = n
	}
	if c := stats["c"]; c == nil || c.Docs != wantDocs || c.Chunks != 2*n-1+(wantDocs-n) {
		t.Fatalf("stats %+v, want %d documents, %d chunks", stats["c"], wantDocs, 2*n-1+(wantDocs-n))
	}
	m, err := st.DocByPath(ctx, "c", "d0005.md")
	check(t, err)
	if !reflect.DeepEqual(m.Tags, []string{"new"}) {
		t.Errorf("d0005.md tags %v, want [new]", m.Tags)
	}
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"kiwi"}}, store.Filter{}, 10)
	check(t, err)
	if len(hits) != 1 || hits[0].DocID != m.ID {
		t.Errorf("kiwi: %v, want d0005.md (%d)", hits, m.ID)
	}
	if hits, _ := st.SearchFTS(ctx, query.Keywords{Terms: []string{"word5"}}, store.Filter{}, 100); len(hits) != 16 {
		// i%37 == 5 for 17 of 0..599, less d0005 replaced.
		t.Errorf("word5: %d hits, want 16", len(hits))
	}
	// The scores equal those of the same documents written in small
	// batches (less than a flush), in another collection of the same
	// index (same statistics, same rows).
	var small []*store.Document
	for i := range n {
		d := mk("ref", i)
		if i == 5 {
			d = doc("ref", "d0005.md", "title 5", "replaced kiwi", "new")
		}
		if small = append(small, d); len(small) == 40 || i == n-1 {
			put(t, st, 3, small...)
			small = nil
		}
	}
	kw := query.Keywords{Terms: []string{"common", "part"}}
	got, err := st.SearchFTS(ctx, kw, store.Filter{Collections: []string{"c"}}, 20)
	check(t, err)
	want, err := st.SearchFTS(ctx, kw, store.Filter{Collections: []string{"ref"}}, 20)
	check(t, err)
	if len(got) != 20 || len(want) != 20 {
		t.Fatalf("%d hits, %d in small batches", len(got), len(want))
	}
	for i := range got {
		if got[i].Score != want[i].Score {
			t.Errorf("hit %d: score %v, small batches %v", i, got[i].Score, want[i].Score)
		}
	}
}
