package layout

import (
	"context"
	"os"
	"testing"
)

func gridGraph(w, h int) Graph {
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

func TestExploreGrid(t *testing.T) {
	if os.Getenv("GNO_LAYOUT_EXPLORE") == "" {
		t.Skip()
	}
	g := gridGraph(60, 60)
	for _, o := range []Options{{}, {SingleLevel: true, Iterations: 300}} {
		res, err := Layout(context.Background(), g, o)
		if err != nil {
			t.Fatal(err)
		}
		q := Measure(g, res.Pos, 300)
		t.Logf("grid single=%v levels=%d iters=%d %v np=%.3f stress=%.3f cv=%.3f", o.SingleLevel, res.Levels, res.Iterations, res.Elapsed, q.NP, q.Stress, q.CV)
		DrawPNG(map[bool]string{true: "/tmp/gl-grid-single.png", false: "/tmp/gl-grid.png"}[o.SingleLevel], g, res.Pos, 600)
	}
}

func TestExploreLevels(t *testing.T) {
	if os.Getenv("GNO_LAYOUT_EXPLORE") == "" {
		t.Skip()
	}
	debugLevels = true
	defer func() { debugLevels = false }()
	g := gridGraph(140, 140)
	res, _ := Layout(context.Background(), g, Options{})
	t.Logf("%v", res.Elapsed)
}

// Knobs sets the tuning variables for exploration.
func Knobs(step float64, extra int, finestTheta float64) {
	refineStep, extraIters, fineTheta = step, extra, finestTheta
}

// Work is the node-iterations of the last layout.
func Work() int { return lastWork }

func GridGraph(w, h int) Graph { return gridGraph(w, h) }
