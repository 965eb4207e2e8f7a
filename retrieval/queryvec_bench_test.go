//go:build unix

package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkQueryVectorPrefetch compares fast queries with the query's
// embedding started beside BM25 (on) and embedded in the vector stage
// (off), in one warm process, alternating on and off query by query so
// that both see the same machine load. GNO_BENCH_HOME names a GNO_HOME
// whose index holds SciFact with its vectors (a copy: the first query
// saves the vector graph there); the claims come from
// $GNO_EVAL_DIR/scifact/queries.jsonl. It skips without them.
//
//	GNO_BENCH_HOME=/tmp/copy GNO_EVAL_DIR=/work/shared/eval go test -run '^$' -bench QueryVectorPrefetch -benchtime 300x ./retrieval/
func BenchmarkQueryVectorPrefetch(b *testing.B) {
	home, eval := os.Getenv("GNO_BENCH_HOME"), os.Getenv("GNO_EVAL_DIR")
	if home == "" || eval == "" {
		b.Skip("GNO_BENCH_HOME (an embedded SciFact GNO_HOME) or GNO_EVAL_DIR not set")
	}
	queries := readClaims(b, filepath.Join(eval, "scifact", "queries.jsonl"))
	ctx := context.Background()
	b.Setenv("GNO_HOME", home)
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	type side struct {
		lat, bm25, cpu []float64
		vectors        int
	}
	var sides [2]side // off, on
	run := func(on bool, q string) {
		prefetchQueryVector = on
		defer func() { prefetchQueryVector = true }()
		c0, t0 := cpuMS(), time.Now()
		res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: q, Limit: 10, Explain: true}, Fast: true})
		if err != nil {
			b.Fatal(err)
		}
		s := &sides[map[bool]int{false: 0, true: 1}[on]]
		s.lat = append(s.lat, ms(time.Since(t0)))
		s.cpu = append(s.cpu, cpuMS()-c0)
		s.bm25 = append(s.bm25, res.Meta.Timings["bm25"])
		if res.Meta.VectorsUsed {
			s.vectors++
		}
	}
	run(true, queries[0]) // loads the models and the vector graph
	sides = [2]side{}
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		first := i%2 == 0
		run(first, q)
		run(!first, q)
		i++
	}
	for k, name := range []string{"off", "on"} {
		s := sides[k]
		n := float64(len(s.lat))
		for _, xs := range [][]float64{s.lat, s.bm25, s.cpu} {
			slices.Sort(xs)
		}
		var cpu float64
		for _, c := range s.cpu {
			cpu += c
		}
		b.ReportMetric(s.lat[len(s.lat)/2], name+"-p50-ms")
		b.ReportMetric(s.lat[len(s.lat)*95/100], name+"-p95-ms")
		b.ReportMetric(s.bm25[len(s.bm25)/2], name+"-bm25-p50-ms")
		b.ReportMetric(cpu/n, name+"-cpu-ms/op")
		b.ReportMetric(100*float64(s.vectors)/n, name+"-%vectors")
	}
}

func readClaims(b *testing.B, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("SciFact not available: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct{ Text string }
		if json.Unmarshal(sc.Bytes(), &q) == nil && q.Text != "" {
			out = append(out, q.Text)
		}
	}
	if len(out) == 0 {
		b.Skipf("no claims in %s", path)
	}
	return out
}

// cpuMS is the process's user+system CPU time so far, in milliseconds.
func cpuMS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}
