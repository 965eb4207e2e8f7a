package retrieval

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
)

// freeEmbedder costs nothing: with it, a run measures what embedding
// costs besides the model (reading the backlog, storing vectors), the
// part that could grow with the index.
type freeEmbedder struct{ vec []float32 }

func (f freeEmbedder) Embed(_ context.Context, texts []string, _ inference.TextKind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f.vec
	}
	return out, nil
}
func (f freeEmbedder) Dim() int        { return len(f.vec) }
func (f freeEmbedder) ModelID() string { return "bench-free" }
func (f freeEmbedder) Close() error    { return nil }

// BenchmarkEmbedBacklog embeds a whole index's backlog with freeEmbedder
// (384 dimensions, as bge-small) and reports the overhead per chunk over
// the first and the last tenth of the run (flat when nothing degrades as
// the vectors table fills) and the process's peak RSS. It runs on a COPY
// of an index named by GNO_EMBED_BENCH_HOME (its vectors are dropped
// first):
//
//	GNO_EMBED_BENCH_HOME=/tmp/h100k go test -run '^$' -bench EmbedBacklog -benchtime 1x ./retrieval/
func BenchmarkEmbedBacklog(b *testing.B) {
	home := os.Getenv("GNO_EMBED_BENCH_HOME")
	if home == "" {
		b.Skip("set GNO_EMBED_BENCH_HOME to a copy of an index's GNO_HOME")
	}
	b.Setenv("GNO_HOME", home)
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	emb := freeEmbedder{vec: make([]float32, 384)}
	emb.vec[0] = 1
	for range b.N {
		st, err := e.store(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.DropVectors(ctx, ""); err != nil {
			b.Fatal(err)
		}
		w, err := e.Writer(ctx, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		var stamps []time.Time
		var dones []int
		start := time.Now()
		// Cancelled after the last batch: the vector graph built at the
		// end is another benchmark's.
		run, cancel := context.WithCancel(ctx)
		res, err := w.embed(run, emb, EmbedOptions{Progress: func(done, total int) {
			stamps, dones = append(stamps, time.Now()), append(dones, done)
			if done == total {
				cancel()
			}
		}}, start)
		cancel()
		w.Close()
		if err != nil && !errors.Is(err, context.Canceled) {
			b.Fatal(err)
		}
		n := len(stamps)
		if n < 20 {
			b.Fatalf("only %d batches", n)
		}
		tenth := n / 10
		rate := func(i, j int) float64 {
			return float64(stamps[j].Sub(stamps[i]).Nanoseconds()) / float64(dones[j]-dones[i])
		}
		b.ReportMetric(float64(res.Embedded), "chunks")
		b.ReportMetric(float64(stamps[0].Sub(start).Milliseconds()), "ms-to-first-batch")
		b.ReportMetric(rate(0, tenth), "ns/chunk-first-tenth")
		b.ReportMetric(rate(n-1-tenth, n-1), "ns/chunk-last-tenth")
		b.ReportMetric(float64(stamps[n-1].Sub(start).Milliseconds()), "ms-all-batches")
	}
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/1024, "MB-peak-RSS")
	}
}

// peakRSS is the process's peak resident set in KiB (Linux), 0 elsewhere.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
