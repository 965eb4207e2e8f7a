package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
)

// testSearchVectors: a backend that searches vectors itself
// (store.VectorSearcher) finds the best chunk of each of the nearest
// documents by cosine, exactly scored, under a filter, as an exact scan
// does (at this size its index misses nothing).
func testSearchVectors(t *testing.T, st store.Backend) {
	vs, ok := st.(store.VectorSearcher)
	if !ok {
		t.Skip("this backend searches no vectors itself (the engine builds its own graph)")
	}
	ctx := context.Background()
	const n, dims = 300, 16
	var docs []*store.Document
	for i := range n {
		col := "c"
		if i%3 == 0 {
			col = "d"
		}
		docs = append(docs, doc(col, fmt.Sprintf("%d.md", i), "T", "one\n\ntwo", fmt.Sprintf("t%d", i%2)))
	}
	put(t, st, 1, docs...)
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	var ids []int64
	var vecs [][]float32
	col := map[int64]string{}
	for _, d := range docs {
		m, err := st.DocByPath(ctx, d.Collection, d.RelPath)
		check(t, err)
		col[m.ID] = d.Collection
		for c := range 2 {
			ids = append(ids, store.ChunkID(m.ID, c))
			vecs = append(vecs, vec())
		}
	}
	// Two writes: the index is made by the first and kept by the second.
	check(t, st.PutVectors(ctx, "m", ids[:100], vecs[:100]))
	check(t, st.PutVectors(ctx, "m", ids[100:], vecs[100:]))
	cos := func(a, b []float32) float64 {
		var ab, aa, bb float64
		for i := range a {
			ab += float64(a[i]) * float64(b[i])
			aa += float64(a[i]) * float64(a[i])
			bb += float64(b[i]) * float64(b[i])
		}
		return ab / math.Sqrt(aa*bb)
	}
	q := vec()
	// The exact answer: each document's best chunk, documents by score.
	exact := func(keep func(doc int64) bool, k int) []store.ChunkHit {
		best := map[int64]store.ChunkHit{}
		for i, id := range ids {
			doc := store.DocOfChunk(id)
			if !keep(doc) {
				continue
			}
			if s := cos(q, vecs[i]); s > best[doc].Score || best[doc].ChunkID == 0 {
				best[doc] = store.ChunkHit{ChunkID: id, DocID: doc, Score: s}
			}
		}
		var out []store.ChunkHit
		for _, h := range best {
			out = append(out, h)
		}
		return store.TopHits(out, k)
	}
	for _, tc := range []struct {
		name string
		f    store.Filter
		keep func(int64) bool
	}{
		{"all", store.Filter{}, func(int64) bool { return true }},
		{"collection d", store.Filter{Collections: []string{"d"}}, func(doc int64) bool { return col[doc] == "d" }},
	} {
		got, err := vs.SearchVectors(ctx, "m", q, tc.f, 10)
		check(t, err)
		want := exact(tc.keep, 10)
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits, want %d", tc.name, len(got), len(want))
		}
		for i := range got {
			if got[i].ChunkID != want[i].ChunkID || math.Abs(got[i].Score-want[i].Score) > 1e-5 {
				t.Errorf("%s: hit %d %+v, want %+v", tc.name, i, got[i], want[i])
			}
		}
	}
	if got, err := vs.SearchVectors(ctx, "other", q, store.Filter{}, 10); err != nil || len(got) != 0 {
		t.Errorf("another model: %v, %v", got, err)
	}
}
