package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
)

// BenchmarkCutScattered: one batch removing 1,000 scattered documents
// out of 32,768 or 131,072 that all hold the word "common" (a term of
// that many postings in blocks of 512), the postings cut out of its
// blocks (cutBlocks). Each op puts the removed documents back, off the
// clock. Run with GNO_TEST_PG_URL set.
func BenchmarkCutScattered(b *testing.B) {
	for _, n := range []int{32768, 131072} {
		b.Run(fmt.Sprint("postings=", n), func(b *testing.B) { benchCut(b, n) })
	}
}

func benchCut(b *testing.B, nDocs int) {
	u := pgtest.Fresh(b)
	ctx := context.Background()
	pg, err := postgres.Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	const nCut = 1000
	doc := func(i, gen int) *store.Document {
		return &store.Document{Collection: "c", RelPath: fmt.Sprintf("%05d.md", i), Hash: fmt.Sprintf("%d-%d", i, gen), NoLinks: true,
			Chunks: []chunk.Chunk{{Text: fmt.Sprintf("common w%d w%d", i, i%97), StartLine: 1, EndLine: 1}}}
	}
	put := func(is []int, gen int) {
		w, err := pg.Begin(ctx, int64(gen+1))
		if err != nil {
			b.Fatal(err)
		}
		for _, i := range is {
			if err := w.Put(ctx, doc(i, gen)); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	all := make([]int, nDocs)
	for i := range all {
		all[i] = i
	}
	put(all, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		cut := rng.Perm(nDocs)[:nCut]
		ids := make([]int64, 0, nCut)
		for _, i := range cut {
			m, err := pg.DocByPath(ctx, "c", doc(i, 0).RelPath)
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, m.ID)
		}
		b.StartTimer()
		w, err := pg.Begin(ctx, int64(2*n+2))
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			if err := w.Remove(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		put(cut, 2*n+3)
		b.StartTimer()
	}
}
