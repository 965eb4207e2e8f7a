package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// TestCutMatchesFTS5 writes the same documents to SQLite and Postgres
// through small batches without EndBulk (a daemon's syncs): replaced
// documents, the same path twice in a batch, Put then Remove in one
// batch, many Removes in one batch (cut once at the flush), a Cleanup of
// a collection, CJK words. After each stage every search matches FTS5's
// to the bit, the blocks' postings are exactly the chunks' tsvector
// terms, and no emptied block is left.
func TestCutMatchesFTS5(t *testing.T) {
	ctx := context.Background()
	pg, sq := bothStores(t)
	rng := rand.New(rand.NewPCG(3, 9))
	vocab := []string{"the", "of", "and", "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "東京大学", "日本語の検索", "北京"}
	text := func(n int) string {
		var w []string
		for range n {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		return strings.Join(w, " ")
	}
	mk := func(col string, i int, h string) *store.Document {
		d := &store.Document{Collection: col, RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i) + h, Title: text(2), NoLinks: true}
		for j := range 1 + rng.IntN(3) {
			d.Chunks = append(d.Chunks, chunk.Chunk{Text: text(3 + rng.IntN(20)), StartLine: j + 1, EndLine: j + 1})
		}
		return d
	}
	var docs []*store.Document
	for i := range 300 {
		col := "a"
		if i%2 == 0 {
			col = "b"
		}
		docs = append(docs, mk(col, i, ""))
	}
	// one batch per 100 docs; no EndBulk on pg (daemon path)
	batch := func(st store.Backend, f func(b store.WriteBatch)) {
		b, err := st.Begin(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		f(b)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	changed1, changed2 := map[int]*store.Document{}, map[int]*store.Document{}
	for i := 0; i < 300; i += 7 {
		changed1[i] = mk(docs[i].Collection, i, "x")
		changed2[i] = mk(docs[i].Collection, i, "y")
	}
	newDoc := mk("a", 1000, "")
	d1001 := mk("a", 1001, "")
	again := map[int]*store.Document{}
	for i := 5; i < 300; i += 13 {
		again[i] = mk(docs[i].Collection, i, "z")
	}
	for _, st := range []store.Backend{sq, pg} {
		for i := 0; i < 300; i += 100 {
			batch(st, func(b store.WriteBatch) {
				for _, d := range docs[i : i+100] {
					if err := b.Put(ctx, d); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
		batch(st, func(b store.WriteBatch) {
			for i := 0; i < 300; i += 7 {
				if err := b.Put(ctx, changed1[i]); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 300; i += 7 {
				if err := b.Put(ctx, changed2[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Put(ctx, newDoc); err != nil {
				t.Fatal(err)
			}
		})
	}
	qs := []query.Keywords{{Terms: []string{"the"}}, {Terms: []string{"the", "alpha"}}, {Terms: []string{"kappa", "of", "the", "and"}}, {Terms: []string{"iota", "zeta"}, All: true}, {Terms: []string{"th*"}}, {Terms: []string{"東京"}}, {Terms: []string{"検索", "the"}}}
	cmp := func(stage string) {
		for _, lim := range []int{1, 5, 20, 400} {
			for _, q := range qs {
				for _, f := range []store.Filter{{}, {Collections: []string{"a"}}} {
					a, err := sq.SearchFTS(ctx, q, f, lim)
					if err != nil {
						t.Fatal(err)
					}
					b, err := pg.SearchFTS(ctx, q, f, lim)
					if err != nil {
						t.Fatal(err)
					}
					norm := func(st store.Backend, h []store.ChunkHit) string {
						var o []string
						for _, x := range h {
							ms, err := st.Docs(ctx, []int64{x.DocID})
							if err != nil {
								t.Fatal(err)
							}
							m := ms[x.DocID]
							o = append(o, fmt.Sprintf("%s/%s#%d %v", m.Collection, m.RelPath, x.ChunkID&0xffff, x.Score))
						}
						return strings.Join(o, "; ")
					}
					if na, nb := norm(sq, a), norm(pg, b); na != nb {
						t.Errorf("%s %v %v lim %d:\nsq %v\npg %v", stage, q, f, lim, na, nb)
					}
				}
			}
		}
		var bad int
		if err := pg.OneForTest(ctx, `WITH p AS (SELECT b.ix, b.term, x.i FROM fts_blocks b, unnest(b.ids) x(i)),
			c AS (SELECT 0::smallint AS ix, t AS term, id AS i FROM chunks, unnest(tsvector_to_array(tsv)) t)
			, c1 AS (SELECT 1::smallint AS ix, t AS term, id AS i FROM chunks, unnest(tsvector_to_array(seg)) t WHERE seg IS NOT NULL)
			SELECT count(*) FROM ((SELECT * FROM p EXCEPT ALL (SELECT * FROM c UNION ALL SELECT * FROM c1)) UNION ALL ((SELECT * FROM c UNION ALL SELECT * FROM c1) EXCEPT ALL SELECT * FROM p)) z`, &bad); err != nil {
			t.Fatal(err)
		}
		var nb, ne int
		if err := pg.OneForTest(ctx, "SELECT count(*), count(*) FILTER (WHERE n = 0 OR cardinality(ids) = 0) FROM fts_blocks", &nb, &ne); err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%s: %d postings differ from the chunks' tsvectors", stage, bad)
		}
		// Every block's range, count and score bounds are those of its
		// arrays (a loose bound would only slow the top-k, a tight one
		// lose hits; neither shows in the searches above), its ids in
		// order and once each.
		var off int
		if err := pg.OneForTest(ctx, `SELECT count(*) FROM fts_blocks b, LATERAL (SELECT min(i) AS mi, max(i) AS ma, count(*) AS c,
				max(f) AS mf, min(l::float8 / f) AS ml, array_agg(DISTINCT i ORDER BY i) AS s FROM unnest(b.ids, b.wfs, b.lens) u(i, f, l)) x
			WHERE b.first <> x.mi OR b.last <> x.ma OR b.n <> x.c OR b.max_wf <> x.mf OR abs(b.min_lr - x.ml) > 1e-12 * x.ml OR b.ids <> x.s`, &off); err != nil {
			t.Fatal(err)
		}
		if off != 0 {
			t.Errorf("%s: %d blocks whose range, count or bounds are not their arrays'", stage, off)
		}
		if ne != 0 {
			t.Errorf("%s: %d of %d blocks left empty", stage, ne, nb)
		}
	}
	cmp("after changes")
	for _, st := range []store.Backend{sq, pg} {
		m, err := st.DocByPath(ctx, "a", "1000.md")
		if err != nil {
			t.Fatal(err)
		}
		batch(st, func(b store.WriteBatch) {
			if err := b.Put(ctx, d1001); err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
		})
		// Remove, then Put the same path again, in one batch: the
		// removal's cut runs first at the flush, and must not take the
		// new version's postings.
		batch(st, func(b store.WriteBatch) {
			for i := 5; i < 300; i += 13 {
				m, err := st.DocByPath(ctx, docs[i].Collection, docs[i].RelPath)
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Remove(ctx, m.ID); err != nil {
					t.Fatal(err)
				}
				if err := b.Put(ctx, again[i]); err != nil {
					t.Fatal(err)
				}
			}
		})
		batch(st, func(b store.WriteBatch) {
			for i := 3; i < 300; i += 11 {
				m, err := st.DocByPath(ctx, docs[i].Collection, docs[i].RelPath)
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Remove(ctx, m.ID); err != nil {
					t.Fatal(err)
				}
			}
		})
		if _, err := st.Cleanup(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
	}
	cmp("after cleanup")
}
