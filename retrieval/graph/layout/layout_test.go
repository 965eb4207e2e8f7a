package layout

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// grid is a w×h grid graph.
func grid(w, h int) Graph {
	g := Graph{N: w * h}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := int32(y*w + x)
			if x+1 < w {
				g.Edges = append(g.Edges, [2]int32{i, i + 1})
			}
			if y+1 < h {
				g.Edges = append(g.Edges, [2]int32{i, i + int32(w)})
			}
		}
	}
	return g
}

func checkPlaced(t *testing.T, g Graph, res *Result) {
	t.Helper()
	if len(res.Pos) != 2*g.N {
		t.Fatalf("%d coordinates for %d nodes", len(res.Pos), g.N)
	}
	for i, v := range res.Pos {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1e6 {
			t.Fatalf("coordinate %d is %v", i, v)
		}
	}
	// No two nodes on the same spot.
	seen := map[[2]float32]int{}
	for i := 0; i < g.N; i++ {
		p := [2]float32{res.Pos[2*i], res.Pos[2*i+1]}
		if j, ok := seen[p]; ok {
			t.Fatalf("nodes %d and %d both at %v", j, i, p)
		}
		seen[p] = i
	}
}

func TestSmallGraphs(t *testing.T) {
	for _, g := range []Graph{
		{N: 0},
		{N: 1},
		{N: 2},
		{N: 2, Edges: [][2]int32{{0, 1}}},
		{N: 3, Edges: [][2]int32{{0, 1}, {1, 2}}},
		{N: 3, Edges: [][2]int32{{0, 1}, {1, 2}, {2, 0}}},
		// Self-loops, duplicates and ends out of range are ignored.
		{N: 4, Edges: [][2]int32{{0, 0}, {0, 1}, {1, 0}, {0, 1}, {2, 9}, {-1, 2}, {3, 2}}},
	} {
		res, err := Layout(context.Background(), g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkPlaced(t, g, res)
	}
	res, _ := Layout(context.Background(), Graph{N: 2, Edges: [][2]int32{{0, 1}}}, Options{})
	if d := math.Hypot(float64(res.Pos[0]-res.Pos[2]), float64(res.Pos[1]-res.Pos[3])); math.Abs(d-1) > 1e-6 {
		t.Errorf("a linked pair is %v apart, want 1", d)
	}
	if _, err := Layout(context.Background(), Graph{N: MaxNodes + 1}, Options{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	g := grid(20, 15)
	g.N += 5 // isolated nodes too
	a, _ := Layout(context.Background(), g, Options{Seed: 7})
	b, _ := Layout(context.Background(), g, Options{Seed: 7})
	c, _ := Layout(context.Background(), g, Options{Seed: 8})
	same := func(x, y []float32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a.Pos, b.Pos) {
		t.Error("same seed, different layouts")
	}
	if same(a.Pos, c.Pos) {
		t.Error("another seed gave the same layout")
	}
	checkPlaced(t, g, a)
}

// TestComponents checks that components are packed apart: the discs
// around them do not overlap, isolated nodes lie outside the largest.
func TestComponents(t *testing.T) {
	g := grid(12, 12)
	base := int32(g.N)
	// Two triangles, a pair, five isolated nodes.
	g.Edges = append(g.Edges, [2]int32{base, base + 1}, [2]int32{base + 1, base + 2}, [2]int32{base + 2, base},
		[2]int32{base + 3, base + 4}, [2]int32{base + 4, base + 5}, [2]int32{base + 5, base + 3},
		[2]int32{base + 6, base + 7})
	g.N += 13
	res, err := Layout(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlaced(t, g, res)
	if res.Components != 9 {
		t.Errorf("%d components, want 9", res.Components)
	}
	comps := [][]int32{{}, {base, base + 1, base + 2}, {base + 3, base + 4, base + 5}, {base + 6, base + 7}}
	for i := int32(0); i < base; i++ {
		comps[0] = append(comps[0], i)
	}
	for i := base + 8; i < int32(g.N); i++ {
		comps = append(comps, []int32{i})
	}
	type disc struct{ x, y, r float64 }
	var discs []disc
	for _, c := range comps {
		var d disc
		for _, v := range c {
			d.x += float64(res.Pos[2*v]) / float64(len(c))
			d.y += float64(res.Pos[2*v+1]) / float64(len(c))
		}
		for _, v := range c {
			d.r = max(d.r, math.Hypot(float64(res.Pos[2*v])-d.x, float64(res.Pos[2*v+1])-d.y))
		}
		discs = append(discs, d)
	}
	for i := range discs {
		for j := i + 1; j < len(discs); j++ {
			a, b := discs[i], discs[j]
			if gap := math.Hypot(a.x-b.x, a.y-b.y) - a.r - b.r; gap < 0.5 {
				t.Errorf("components %d and %d are %.2f apart", i, j, gap)
			}
		}
	}
}

// TestGridQuality guards the layout's quality on a graph with a known
// good drawing: a grid should come out as a grid, its neighbours near.
func TestGridQuality(t *testing.T) {
	g := grid(30, 30)
	res, err := Layout(context.Background(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := Measure(g, res.Pos, 200)
	single, _ := Layout(context.Background(), g, Options{SingleLevel: true, Iterations: 60})
	qs := Measure(g, single.Pos, 200)
	t.Logf("multilevel: np %.3f stress %.3f cv %.3f; single level: np %.3f stress %.3f", q.NP, q.Stress, q.CV, qs.NP, qs.Stress)
	if q.NP < 0.5 || q.Stress > 0.05 {
		t.Errorf("grid drawn badly: neighbourhood preservation %.3f, stress %.3f", q.NP, q.Stress)
	}
	if q.NP <= qs.NP {
		t.Errorf("multilevel (np %.3f) no better than single level (%.3f)", q.NP, qs.NP)
	}
}

func TestCancel(t *testing.T) {
	g := grid(150, 150)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Layout(ctx, g, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := Layout(ctx, g, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancel took %v", el)
	}
}

func TestMaxTime(t *testing.T) {
	g := grid(100, 100)
	res, err := Layout(context.Background(), g, Options{MaxTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated {
		t.Error("not truncated")
	}
	checkPlaced(t, g, res)
}
