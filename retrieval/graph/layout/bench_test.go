package layout_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/graph/layout/layouttest"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

// The benchmarks lay out the real vault (the Obsidian developer docs,
// 1,320 notes, when the evaluation data is there) and the generated
// 20,000-note / 100,000-link vault, and report the layout's quality next
// to its speed, so a speed-up that yields a hairball shows:
//
//	np      neighbourhood preservation (higher is better)
//	stress  normalised stress against link distances (lower is better)
//	purity  share of a note's 10 nearest notes in its own folder
//	        (higher: folders, which are topics here, form clusters)
//
// GNO_LAYOUT_PNG=dir also draws each layout into dir.

var (
	inputsOnce sync.Once
	realIn     *layout.Input
	bigIn      *layout.Input
)

func inputs(tb testing.TB) (real, big *layout.Input) {
	inputsOnce.Do(func() {
		if p := layouttest.RealVault(); p != "" {
			in, err := layouttest.ScanVault(p, "docs")
			if err != nil {
				tb.Fatal(err)
			}
			realIn = in
		}
		v, err := vaultgen.Clustered("", vaultgen.Options{Notes: 20000, Links: 100000, Seed: 1})
		if err != nil {
			tb.Fatal(err)
		}
		bigIn = layouttest.FromVault(v, "gen")
	})
	return realIn, bigIn
}

// graphOf is the layout graph of a scene.
func graphOf(s *layout.Scene) layout.Graph {
	g := layout.Graph{N: s.Len()}
	for i := 0; i < len(s.Edges); i += 2 {
		g.Edges = append(g.Edges, [2]int32{int32(s.Edges[i]), int32(s.Edges[i+1])})
	}
	return g
}

// purity is, over sampled documents, the share of their 10 nearest
// documents in the drawing that are in the same folder.
func purity(s *layout.Scene, samples int) float64 {
	n := s.Len()
	type nd struct {
		d float32
		j int
	}
	buf := make([]nd, 0, n)
	tot, cnt := 0.0, 0
	for k := 0; k < samples; k++ {
		i := (k*7919 + 13) % n
		if s.Flags[i] != 0 {
			continue
		}
		buf = buf[:0]
		for j := 0; j < n; j++ {
			if j != i && s.Flags[j] == 0 {
				dx, dy := s.Pos[2*i]-s.Pos[2*j], s.Pos[2*i+1]-s.Pos[2*j+1]
				buf = append(buf, nd{dx*dx + dy*dy, j})
			}
		}
		if len(buf) < 10 {
			continue
		}
		sort.Slice(buf, func(a, b int) bool { return buf[a].d < buf[b].d })
		same := 0
		for _, x := range buf[:10] {
			if s.Folder[x.j] == s.Folder[i] {
				same++
			}
		}
		tot += float64(same) / 10
		cnt++
	}
	if cnt == 0 {
		return 0
	}
	return tot / float64(cnt)
}

func benchBuild(b *testing.B, in *layout.Input, o layout.Options) {
	if in == nil {
		b.Skip("no evaluation vault (shared/eval/obsidian-developer-docs)")
	}
	o.MaxTime = time.Minute // measure the algorithm, not the guard
	var s *layout.Scene
	var res *layout.Result
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if s, res, err = layout.Build(context.Background(), in, o); err != nil {
			b.Fatal(err)
		}
		if _, err := s.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	q := layout.Measure(graphOf(s), s.Pos, 300)
	b.ReportMetric(q.NP, "np")
	b.ReportMetric(q.Stress, "stress")
	b.ReportMetric(purity(s, 300), "purity")
	b.ReportMetric(float64(res.Iterations), "iterations")
	if dir := os.Getenv("GNO_LAYOUT_PNG"); dir != "" {
		name := fmt.Sprintf("%s/%s.png", dir, b.Name())
		if err := layout.DrawPNG(name, graphOf(s), s.Pos, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildReal is the real vault: layout and encoding.
func BenchmarkBuildReal(b *testing.B) {
	real, _ := inputs(b)
	benchBuild(b, real, layout.Options{})
}

// BenchmarkBuildRealExact repels with the exact O(n²) sum, not the
// quadtree.
func BenchmarkBuildRealExact(b *testing.B) {
	real, _ := inputs(b)
	benchBuild(b, real, layout.Options{Exact: true})
}

// BenchmarkBuildRealSingleLevel is the real vault without coarsening,
// given the iterations that take about as long.
func BenchmarkBuildRealSingleLevel(b *testing.B) {
	real, _ := inputs(b)
	benchBuild(b, real, layout.Options{SingleLevel: true, Iterations: 60})
}

// BenchmarkBuildGen20k is 20,000 notes and 100,000 links.
func BenchmarkBuildGen20k(b *testing.B) {
	_, big := inputs(b)
	benchBuild(b, big, layout.Options{})
}

// BenchmarkBuildGen20kSingleLevel is the same without coarsening, with
// the iterations that take about the time of the multilevel layout.
func BenchmarkBuildGen20kSingleLevel(b *testing.B) {
	_, big := inputs(b)
	benchBuild(b, big, layout.Options{SingleLevel: true, Iterations: 40})
}

// BenchmarkBuildGen20kLong is a long run (five times the iterations, a
// finer Barnes–Hut): the reference the default is compared to.
func BenchmarkBuildGen20kLong(b *testing.B) {
	_, big := inputs(b)
	benchBuild(b, big, layout.Options{Iterations: 75, Theta: 0.8})
}

// BenchmarkDecodeGen20k decodes the 20k scene (what the fuzz target
// guards).
func BenchmarkDecodeGen20k(b *testing.B) {
	_, big := inputs(b)
	s, _, err := layout.Build(context.Background(), big, layout.Options{})
	if err != nil {
		b.Fatal(err)
	}
	buf, _ := s.MarshalBinary()
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var d layout.Scene
		if err := d.UnmarshalBinary(buf); err != nil {
			b.Fatal(err)
		}
	}
}
