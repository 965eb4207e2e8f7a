package inproc

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/retrieval"
)

// BenchmarkQueryFast runs `gno query --fast` in process over the SciFact
// claims on a warm engine with vectors, reporting the median and p95
// latency and the process's CPU per query (user+system: on a shared
// machine the load-independent figure). Embedding SciFact takes long, so
// the benchmark does not build the index: GNO_BENCH_HOME names a GNO_HOME
// whose index holds SciFact with its vectors (use a copy: the first query
// saves the vector graph there). It skips without one.
//
//	GNO_BENCH_HOME=/tmp/copy go test -run '^$' -bench QueryFast -benchtime 300x ./bench/inproc/
func BenchmarkQueryFast(b *testing.B) {
	home := os.Getenv("GNO_BENCH_HOME")
	if home == "" {
		b.Skip("GNO_BENCH_HOME (an embedded SciFact GNO_HOME) not set")
	}
	ctx := context.Background()
	ds, err := beir.Load(ctx, filepath.Join(evalDir(), "scifact"))
	if err != nil {
		b.Skipf("SciFact not available: %v", err)
	}
	b.Setenv("GNO_HOME", home)
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	used := 0
	query := func(i int) {
		req := retrieval.QueryRequest{SearchRequest: retrieval.SearchRequest{Query: ds.Queries[i%len(ds.Queries)].Text, Limit: 10}, Fast: true}
		res, err := e.Query(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if res.Meta.VectorsUsed {
			used++
		} else if i == 0 {
			b.Fatalf("no vectors used: %+v", res.Meta)
		}
	}
	query(0) // loads the models and the vector graph
	used = 0
	var lat []float64
	c0 := cpuMS()
	i := 0
	for b.Loop() {
		t0 := time.Now()
		query(i)
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		i++
	}
	cpu := (cpuMS() - c0) / float64(len(lat))
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[len(lat)*95/100], "p95-ms")
	b.ReportMetric(cpu, "cpu-ms/op")
	// A query whose budget (50 ms in fast mode) ran out before the vector
	// stage answers from BM25 alone, at less CPU: say how many did not.
	b.ReportMetric(100*float64(used)/float64(len(lat)), "%vectors")
}

// cpuMS is the process's user+system CPU time so far, in milliseconds.
func cpuMS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}
