package layout_test

import (
	"context"
	"os"
	"testing"

	"github.com/gnosearch/gno/retrieval/graph/layout"
)

func TestSweep(t *testing.T) {
	if os.Getenv("GNO_LAYOUT_SWEEP") == "" {
		t.Skip()
	}
	real, big := inputs(t)
	sr, _, _ := layout.Build(context.Background(), real, layout.Options{Iterations: 1})
	sb, _, _ := layout.Build(context.Background(), big, layout.Options{Iterations: 1})
	graphs := []struct {
		name string
		g    layout.Graph
	}{{"grid", layout.GridGraph(100, 100)}, {"real", graphOf(sr)}, {"big", graphOf(sb)}}
	type cfg struct {
		theta, fineTheta, step float64
		it, extra              int
	}
	cfgs := []cfg{
		{1, 0, 0.15, 40, 20},
		{1, 0, 0.3, 20, 20},
		{1, 0, 0.3, 10, 20},
		{1, 1.5, 0.3, 20, 20},
		{1, 2, 0.3, 20, 20},
		{1.5, 0, 0.3, 20, 20},
		{1, 0, 0.5, 20, 20},
		{1, 0, 0.3, 20, 40},
	}
	for _, gr := range graphs {
		for _, c := range cfgs {
			layout.Knobs(c.step, c.extra, c.fineTheta)
			res, _ := layout.Layout(context.Background(), gr.g, layout.Options{Theta: c.theta, Iterations: c.it})
			q := layout.Measure(gr.g, res.Pos, 300)
			t.Logf("%s %+v: work=%.1fn %v np=%.3f stress=%.3f cv=%.3f", gr.name, c, float64(layout.Work())/float64(gr.g.N), res.Elapsed, q.NP, q.Stress, q.CV)
		}
	}
	layout.Knobs(0.15, 20, 0)
}
