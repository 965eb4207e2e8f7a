package vector

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// BenchmarkHNSW100k builds an index of 100,000 clustered 384-dimension
// vectors (bge-small's width) and reports build time, recall@10 against
// exact search, search and exact-scan latency, and export save/load time.
//
//	go test -run '^$' -bench HNSW100k -benchtime 200x ./retrieval/vector/
func BenchmarkHNSW100k(b *testing.B) {
	const n, dims = 100_000, 384
	var (
		once    sync.Once
		ix      *Index
		queries [][]float32
		build   time.Duration
	)
	setup := func() {
		once.Do(func() {
			// Queries are held-out points of the same clusters, as real
			// queries land near real documents.
			all := clustered(n+200, 2000, dims, 11)
			vecs := all[:n]
			queries = all[n:]
			t0 := time.Now()
			ix = build0(b, vecs)
			build = time.Since(t0)
		})
	}
	b.Run("build", func(b *testing.B) {
		setup()
		b.ReportMetric(build.Seconds(), "build-s")
		b.ReportMetric(float64(n)/build.Seconds(), "inserts/s")
	})
	b.Run("search-k10", func(b *testing.B) {
		setup()
		recall := recallAt(b, ix, queries, 10, nil)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := ix.Search(Query{Vector: queries[i%len(queries)], K: 10}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(recall, "recall@10") // after the loop: ResetTimer clears metrics
	})
	b.Run("search-k10-filter-half", func(b *testing.B) {
		setup()
		even := func(k int64) bool { return k%2 == 0 }
		recall := recallAt(b, ix, queries, 10, even)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ix.Search(Query{Vector: queries[i%len(queries)], K: 10, Filter: even})
		}
		b.ReportMetric(recall, "recall@10")
	})
	b.Run("exact-k10", func(b *testing.B) {
		setup()
		for i := 0; i < b.N; i++ {
			ix.SearchExact(Query{Vector: queries[i%len(queries)], K: 10})
		}
	})
	b.Run("save-load", func(b *testing.B) {
		setup()
		path := filepath.Join(b.TempDir(), "v.hnsw")
		var save, load time.Duration
		runs := min(b.N, 3) // seconds each at 100k; a few suffice
		for i := 0; i < runs; i++ {
			t0 := time.Now()
			if err := ix.Save(path); err != nil {
				b.Fatal(err)
			}
			save += time.Since(t0)
			t0 = time.Now()
			if _, err := Load(path, dims, "test-model", Params{}); err != nil {
				b.Fatal(err)
			}
			load += time.Since(t0)
		}
		b.ReportMetric(save.Seconds()/float64(runs), "save-s")
		b.ReportMetric(load.Seconds()/float64(runs), "load-s")
	})
}

func build0(b *testing.B, vecs [][]float32) *Index {
	ix := New(len(vecs[0]), "test-model", Params{})
	for i, v := range vecs {
		if err := ix.Add(int64(i), v); err != nil {
			b.Fatal(err)
		}
	}
	return ix
}
