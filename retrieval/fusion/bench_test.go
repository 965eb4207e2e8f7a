package fusion

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDefaultMode times what the default query mode does per query:
// fuse a 100-hit BM25 list and a 100-hit vector list (chunk level, ~3
// chunks per document), blend 30 rerank scores, protect the top hit and
// normalise.
func BenchmarkDefaultMode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(name string, w float64) List {
		l := List{Name: name, Weight: w}
		for i := range 100 {
			d := int64(rng.IntN(300))
			l.Hits = append(l.Hits, Hit{DocID: d, ChunkID: d*10 + int64(rng.IntN(3)), Score: float64(100 - i)})
		}
		return l
	}
	lists := []List{mk("bm25", 2), mk("vec", 2), mk("lex1", 1), mk("hyde", 1)}
	rerank := map[int64]float64{}
	for _, f := range RRF(lists, 60)[:30] {
		rerank[f.DocID] = rng.Float64()
	}
	top := lists[0].Hits[0].DocID
	b.ReportAllocs()
	for b.Loop() {
		f := RRF(lists, 60)
		f = Blend(f, rerank, nil)
		f = Protect(f, map[int64]bool{top: true}, 3)
		Normalize(f, 1)
	}
}
