package layout_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/graph/layout/layouttest"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

var (
	inputsOnce sync.Once
	realIn     *layout.Input
	bigIn      *layout.Input
)

// inputs returns the real vault's graph (nil without the data) and the
// generated 20,000-note / 100,000-link vault's.
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

// graphOf is the layout graph Build gives a scene.
func graphOf(s *layout.Scene) layout.Graph {
	g := layout.Graph{N: s.Len()}
	for i := 0; i < len(s.Edges); i += 2 {
		g.Edges = append(g.Edges, [2]int32{int32(s.Edges[i]), int32(s.Edges[i+1])})
	}
	return g
}

func TestExplore(t *testing.T) {
	if os.Getenv("GNO_LAYOUT_EXPLORE") == "" {
		t.Skip("set GNO_LAYOUT_EXPLORE=1")
	}
	real, big := inputs(t)
	for name, in := range map[string]*layout.Input{"real": real, "big": big} {
		if in == nil {
			continue
		}
		for _, o := range []layout.Options{{}, {SingleLevel: true, Iterations: 150}} {
			start := time.Now()
			s, res, err := layout.Build(context.Background(), in, o)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			g := graphOf(s)
			q := layout.Measure(g, s.Pos, 300)
			t.Logf("%s single=%v: n=%d e=%d comps=%d levels=%d iters=%d build=%v layout=%v np=%.3f stress=%.3f cv=%.3f",
				name, o.SingleLevel, g.N, len(g.Edges), res.Components, res.Levels, res.Iterations, el, res.Elapsed, q.NP, q.Stress, q.CV)
			if err := layout.DrawPNG("/tmp/gl-"+name+map[bool]string{true: "-single", false: ""}[o.SingleLevel]+".png", g, s.Pos, 1000); err != nil {
				t.Fatal(err)
			}
		}
	}
}
