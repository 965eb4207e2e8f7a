package vector

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// BenchmarkHNSW100k builds an index of 100,000 clustered 384-dimension
// vectors (bge-small's width) and reports build time, recall@10 against
// exact search, search and exact-scan latency, export save/load time, and
// the saved graph's open and search (int8 codes, memory-mapped, the best
// candidates re-scored exactly). bench/cmd/gnovecbench measures the same
// at a million, a process per phase.
//
//	go test -run '^$' -bench HNSW100k -benchtime 200x ./retrieval/vector/
func BenchmarkHNSW100k(b *testing.B) {
	const n, dims = 100_000, 384
	var (
		once    sync.Once
		vecs    [][]float32
		ix      *Index
		queries [][]float32
		build   time.Duration
	)
	setup := func() {
		once.Do(func() {
			// Queries are held-out points of the same clusters, as real
			// queries land near real documents.
			all := clustered(n+200, 2000, dims, 11)
			vecs = all[:n]
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
	b.Run("graph-open-search-k10", func(b *testing.B) {
		setup()
		path := filepath.Join(b.TempDir(), "v.hnsw")
		if err := ix.Save(path); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		g, err := Open(path, dims, "test-model", Params{})
		if err != nil {
			b.Fatal(err)
		}
		open := time.Since(t0)
		exact := exactOf(vecs)
		recall := graphRecall(b, ix, g, queries, 10, Query{Exact: exact})
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := g.Search(Query{Vector: queries[i%len(queries)], K: 10, Exact: exact}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(recall, "recall@10")
		b.ReportMetric(float64(open.Microseconds()), "open-µs")
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
