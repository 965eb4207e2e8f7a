package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/postgres"
)

// staleSubs counts the blocks of more than one sub-block whose
// sub-bounds are missing or differ from their postings' (recomputed here
// as the upgrade's fill does).
const staleSubs = `SELECT count(*) FROM fts_blocks b WHERE b.n > 128 AND (b.sub_n IS DISTINCT FROM b.n OR NOT EXISTS
	(SELECT 1 FROM (SELECT array_agg(s.mw ORDER BY s.j) AS w, array_agg(s.ml ORDER BY s.j) AS l, array_agg(s.fi ORDER BY s.j) AS f
	FROM (SELECT (u.o - 1) / 128 AS j, max(u.f) AS mw, min(u.l::float8 / u.f) AS ml, min(u.i) AS fi
		FROM unnest(b.ids, b.wfs, b.lens) WITH ORDINALITY AS u(i, f, l, o) GROUP BY 1) s) r
	WHERE r.w = b.sub_wf AND r.l = b.sub_lr AND r.f = b.sub_first))`

// subDocs is n one-chunk documents, in collection col from number from,
// each with "the" a varying number of times among words of varying
// length (more in later ones, so the sub-blocks' bounds differ).
func subDocs(col string, from, n int, h string) []*store.Document {
	var out []*store.Document
	for i := from; i < from+n; i++ {
		words := strings.Repeat("the ", 1+(i%1000)/25) + strings.Repeat("alpha beta ", (i*5)%11) + "gamma" + h
		out = append(out, &store.Document{Collection: col, RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i, h), Title: "t", NoLinks: true,
			Chunks: []chunk.Chunk{{Text: words, StartLine: 1, EndLine: 1}}})
	}
	return out
}

// inBatch writes docs and removes the documents at paths rm of
// collection col in one batch.
func inBatch(ctx context.Context, t *testing.T, st store.Backend, docs []*store.Document, col string, rm []string) {
	t.Helper()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range rm {
		m, err := st.DocByPath(ctx, col, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Remove(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// byPath is hits by their documents' paths (an edit gives a document a
// new id in one backend, not the other) and chunks, with their scores.
func byPath(ctx context.Context, t *testing.T, st store.Backend, hits []store.ChunkHit) string {
	t.Helper()
	var o []string
	for _, h := range hits {
		ms, err := st.Docs(ctx, []int64{h.DocID})
		if err != nil {
			t.Fatal(err)
		}
		o = append(o, fmt.Sprintf("%s/%s#%d %v", ms[h.DocID].Collection, ms[h.DocID].RelPath, h.ChunkID&0xffff, h.Score))
	}
	return strings.Join(o, "; ")
}

// sameAsFTS5 checks that Postgres's searches give SQLite's answers
// (compared byPath).
func sameAsFTS5(ctx context.Context, t *testing.T, stage string, pg *postgres.Store, sq store.Backend) {
	t.Helper()
	for _, q := range []query.Keywords{{Terms: []string{"the"}}, {Terms: []string{"the", "gamma"}}, {Terms: []string{"alpha", "the"}}} {
		for _, lim := range []int{1, 5, 20} {
			a, err := sq.SearchFTS(ctx, q, store.Filter{}, lim)
			if err != nil {
				t.Fatal(err)
			}
			b, err := pg.SearchFTS(ctx, q, store.Filter{}, lim)
			if err != nil {
				t.Fatal(err)
			}
			if na, nb := byPath(ctx, t, sq, a), byPath(ctx, t, pg, b); na != nb {
				t.Errorf("%s: %v limit %d:\nsq %v\npg %v", stage, q, lim, na, nb)
			}
		}
	}
}

// TestOldCutKeepsNoBadSubBounds: a gno opened before the upgrade to
// schema 5 cuts a block's arrays and n but keeps its sub-bounds (sub_n
// too, which it does not know); a search then bounds the block as one
// sub-block and gives FTS5's answer.
func TestOldCutKeepsNoBadSubBounds(t *testing.T) {
	ctx := context.Background()
	pg, sq := bothStores(t)
	postgres.SetFirstRead(t, 64) // the sub-blocks read, not the word whole
	docs := subDocs("a", 0, 500, "")
	var rm []string
	for i := 0; i < 100; i++ {
		rm = append(rm, fmt.Sprintf("%d.md", i*3))
	}
	var before string
	for _, st := range []store.Backend{sq, pg} {
		inBatch(ctx, t, st, docs, "a", nil)
		if st == pg {
			if err := pg.OneForTest(ctx, `SELECT string_agg(format('%s|%s|%s|%s|%s|%s', ix, term, sub_wf, sub_lr, sub_first, sub_n), ';') FROM fts_blocks WHERE sub_wf IS NOT NULL`, &before); err != nil || !strings.Contains(before, "|the|") {
				t.Fatalf("no sub-bounds for the: %q %v", before, err)
			}
		}
		inBatch(ctx, t, st, nil, "a", rm)
	}
	// The cut as an older gno does it: the sub-bounds (and sub_n) kept.
	var n int
	if err := pg.OneForTest(ctx, `WITH old AS (SELECT split_part(x, '|', 1)::smallint AS ix, split_part(x, '|', 2) AS term, split_part(x, '|', 3)::float8[] AS w,
			split_part(x, '|', 4)::float8[] AS l, split_part(x, '|', 5)::bigint[] AS f, split_part(x, '|', 6)::int AS n
			FROM unnest(string_to_array('`+before+`', ';')) AS x),
		u AS (UPDATE fts_blocks b SET (sub_wf, sub_lr, sub_first, sub_n) = (o.w, o.l, o.f, o.n) FROM old o WHERE b.ix = o.ix AND b.term = o.term RETURNING 1)
		SELECT count(*) FROM u`, &n); err != nil || n == 0 {
		t.Fatalf("put back the sub-bounds: %d, %v", n, err)
	}
	var kept int
	if err := pg.OneForTest(ctx, `SELECT count(*) FROM fts_blocks WHERE term = 'the' AND sub_n > n AND cardinality(sub_wf) = (n + 127) / 128`, &kept); err != nil || kept != 1 {
		t.Fatalf("the's block's stale sub-bounds cover as many sub-blocks as its postings: %d, %v", kept, err)
	}
	sameAsFTS5(ctx, t, "after an old cut", pg, sq)
}

// TestEditsKeepSubBounds: the blocks a flush cuts (a changed or removed
// document) or merges (a daemon's small syncs) get their sub-bounds
// again in the flush, so a live index keeps pruning.
func TestEditsKeepSubBounds(t *testing.T) {
	ctx := context.Background()
	pg, sq := bothStores(t)
	stale := func(stage string) {
		t.Helper()
		var bad, large int
		if err := pg.OneForTest(ctx, staleSubs, &bad); err != nil {
			t.Fatal(err)
		}
		if err := pg.OneForTest(ctx, "SELECT count(*) FROM fts_blocks WHERE n > 128", &large); err != nil {
			t.Fatal(err)
		}
		if bad != 0 || large == 0 {
			t.Fatalf("%s: %d of %d blocks of more than 128 postings without their sub-bounds", stage, bad, large)
		}
		sameAsFTS5(ctx, t, stage, pg, sq)
	}
	for _, st := range []store.Backend{sq, pg} {
		inBatch(ctx, t, st, subDocs("a", 0, 500, ""), "a", nil)
	}
	stale("written")
	for _, st := range []store.Backend{sq, pg} {
		inBatch(ctx, t, st, subDocs("a", 10, 1, "x"), "a", []string{"3.md", "200.md"})
	}
	stale("after an edit and removals")
	// Small syncs pile up small blocks; the merge makes one of them.
	for k := range 9 {
		for _, st := range []store.Backend{sq, pg} {
			inBatch(ctx, t, st, subDocs("b", 1000+k*30, 30, ""), "", nil)
		}
	}
	var blocks int
	if err := pg.OneForTest(ctx, "SELECT count(*) FROM fts_blocks WHERE ix = 0 AND term = 'the'", &blocks); err != nil || blocks >= 10 {
		t.Fatalf("the's 10 flushes left %d blocks (%v): not merged", blocks, err)
	}
	stale("after merges")
}
