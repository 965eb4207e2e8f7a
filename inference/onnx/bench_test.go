package onnx

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
)

// Benchmarks for MODELS.md and bench/RESULTS.md. They skip where the
// runtime or a model is not installed. Run with:
//
//	go test -run '^$' -bench . -benchtime 1x ./inference/onnx/

// layerFLOPs is the forward cost of one token through one encoder layer,
// excluding attention scores: 2 x (4 d^2 + 2 d ff) multiply-adds.
func layerFLOPs(d, ff int) float64 { return 2 * float64(4*d*d+2*d*ff) }

// arch gives layers, width and feed-forward size of each shipped model.
var arch = map[string][3]int{
	"bge-small-en-v1.5-q": {12, 384, 1536}, "bge-small-en-v1.5": {12, 384, 1536},
	"e5-small-v2-q": {12, 384, 1536}, "e5-small-v2": {12, 384, 1536},
	"all-minilm-l6-v2-q": {6, 384, 1536}, "all-minilm-l6-v2": {6, 384, 1536},
	"paraphrase-minilm-l3-v2": {3, 384, 1536}, "bge-small-zh-v1.5-q": {4, 512, 2048},
	"gno-test-cross-encoder": {6, 384, 1536},
}

// flopsPerToken includes attention (QK^T and AV: 4 d seq per layer).
func flopsPerToken(model string, seq float64) float64 {
	a := arch[model]
	return float64(a[0]) * (layerFLOPs(a[1], a[2]) + 4*float64(a[1])*seq)
}

// benchChunks are SciFact abstracts when the eval data is beside the repo,
// else a fixed English text cut to similar lengths.
func benchChunks(b *testing.B, n int) []string {
	f, err := os.Open("../../../shared/eval/scifact/corpus.jsonl")
	if err == nil {
		defer f.Close()
		var out []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() && len(out) < n {
			var d struct{ Title, Text string }
			if json.Unmarshal(sc.Bytes(), &d) == nil {
				out = append(out, d.Title+"\n"+d.Text)
			}
		}
		if len(out) == n {
			return out
		}
	}
	b.Logf("SciFact not found; using synthetic chunks")
	base := strings.Repeat("Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities. ", 12)
	out := make([]string, n)
	for i := range out {
		out[i] = base[:len(base)*(50+i%50)/100]
	}
	return out
}

var benchModels = []string{"bge-small-en-v1.5-q", "bge-small-en-v1.5", "all-minilm-l6-v2-q", "all-minilm-l6-v2",
	"e5-small-v2-q", "e5-small-v2", "paraphrase-minilm-l3-v2", "bge-small-zh-v1.5-q"}

// BenchmarkEmbedChunks reports documents per second for 64 chunks at each
// threading layout, with the achieved GFLOP/s and the padded share.
func BenchmarkEmbedChunks(b *testing.B) {
	c := testCache(b)
	chunks := benchChunks(b, 64)
	for _, name := range benchModels {
		for _, lay := range []struct{ threads, parallel int }{{1, 1}, {2, 1}, {1, 2}} {
			b.Run(fmt.Sprintf("%s/threads=%d/parallel=%d", name, lay.threads, lay.parallel), func(b *testing.B) {
				spec, err := c.Resolve(models.Builtin(), name)
				if err != nil {
					b.Skipf("skipping: %v", err)
				}
				e, err := OpenEmbedder(context.Background(), Options{ModelDir: c.ModelDir(name), Spec: spec,
					Threads: lay.threads, Parallel: lay.parallel, MaxTokens: 256})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				if _, err := e.Embed(context.Background(), chunks[:2], inference.Document); err != nil {
					b.Fatal(err)
				}
				before := e.Stats()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := e.Embed(context.Background(), chunks, inference.Document); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds()
				st := e.Stats()
				tok := float64(st.Tokens - before.Tokens)
				seq := tok / float64(st.Texts-before.Texts)
				b.ReportMetric(float64(len(chunks)*b.N)/sec, "chunks/s")
				b.ReportMetric(seq, "tokens/chunk")
				b.ReportMetric(tok*flopsPerToken(name, seq)/sec/1e9, "GFLOP/s")
				b.ReportMetric(100*float64(st.Padded-before.Padded)/float64(st.Padded-before.Padded+st.Tokens-before.Tokens), "%padded")
			})
		}
	}
}

// BenchmarkQueryEmbed reports the latency of embedding one 12-word query.
func BenchmarkQueryEmbed(b *testing.B) {
	c := testCache(b)
	q := "does vitamin d supplementation reduce the risk of bone fractures in adults"
	for _, name := range benchModels {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", name, threads), func(b *testing.B) {
				spec, err := c.Resolve(models.Builtin(), name)
				if err != nil {
					b.Skipf("skipping: %v", err)
				}
				e, err := OpenEmbedder(context.Background(), Options{ModelDir: c.ModelDir(name), Spec: spec, Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				e.Embed(context.Background(), []string{q}, inference.Query)
				lat := latencies(b, func() error {
					_, err := e.Embed(context.Background(), []string{q}, inference.Query)
					return err
				})
				b.ReportMetric(lat[len(lat)/2], "p50-ms")
				b.ReportMetric(lat[len(lat)*95/100], "p95-ms")
			})
		}
	}
}

// latencies runs fn at least 50 times (and b.N times) and returns sorted
// milliseconds.
func latencies(b *testing.B, fn func() error) []float64 {
	var out []float64
	b.ResetTimer()
	for i := 0; i < max(b.N, 50); i++ {
		t0 := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(out)
	return out
}

// BenchmarkRerank30 scores 30 abstract-length candidates with the test
// cross-encoder (same graph size as ms-marco-MiniLM-L-6-v2) at 256 tokens.
func BenchmarkRerank30(b *testing.B) {
	c := testCache(b)
	name := "gno-test-cross-encoder"
	spec, err := c.Resolve(models.Builtin(), name)
	if err != nil {
		b.Skipf("skipping: %v", err)
	}
	passages := benchChunks(b, 30)
	for _, lay := range []struct{ threads, parallel, maxTok int }{{2, 1, 256}, {1, 2, 256}, {1, 2, 128}} {
		b.Run(fmt.Sprintf("threads=%d/parallel=%d/max=%d", lay.threads, lay.parallel, lay.maxTok), func(b *testing.B) {
			r, err := OpenReranker(context.Background(), Options{ModelDir: c.ModelDir(name), Spec: spec,
				Threads: lay.threads, Parallel: lay.parallel, MaxTokens: lay.maxTok})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			q := "vitamin d and fracture risk"
			r.Score(context.Background(), q, passages[:2])
			lat := latencies(b, func() error {
				_, err := r.Score(context.Background(), q, passages)
				return err
			})
			b.ReportMetric(lat[len(lat)/2], "p50-ms")
		})
	}
}

// BenchmarkLoad reports the time from open to a loaded model.
func BenchmarkLoad(b *testing.B) {
	c := testCache(b)
	for _, name := range benchModels {
		b.Run(name, func(b *testing.B) {
			spec, err := c.Resolve(models.Builtin(), name)
			if err != nil {
				b.Skipf("skipping: %v", err)
			}
			for i := 0; i < b.N; i++ {
				e, err := OpenEmbedder(context.Background(), Options{ModelDir: c.ModelDir(name), Spec: spec})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Load(); err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}

// BenchmarkMatmul measures this CPU's fp32 GEMM throughput through ONNX
// Runtime's own kernels (a 1024^3 MatMul): the ceiling the models'
// GFLOP/s are compared with.
func BenchmarkMatmul(b *testing.B) {
	testCache(b)
	const n = 1024
	a := make([]float32, n*n)
	for i := range a {
		a[i] = float32(i%7) / 7
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			so, err := ort.NewSessionOptions()
			if err != nil {
				b.Fatal(err)
			}
			defer so.Destroy()
			so.SetIntraOpNumThreads(threads)
			sess, err := ort.NewDynamicAdvancedSession("testdata/tiny/matmul/model.onnx", []string{"A", "B"}, []string{"C"}, so)
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Destroy()
			ta, _ := ort.NewTensor(ort.NewShape(n, n), a)
			tb, _ := ort.NewTensor(ort.NewShape(n, n), a)
			tc, _ := ort.NewEmptyTensor[float32](ort.NewShape(n, n))
			defer ta.Destroy()
			defer tb.Destroy()
			defer tc.Destroy()
			run := func() {
				if err := sess.Run([]ort.Value{ta, tb}, []ort.Value{tc}); err != nil {
					b.Fatal(err)
				}
			}
			run()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run()
			}
			b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
