package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// converged is PageRank iterated far past Ranks' stopping rule (until a
// round changes nothing, as floats go): the fixed point the tests
// measure Ranks against.
func converged(g *Graph, damping float64) []float64 {
	n := len(g.ids)
	rank := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	for range 5000 {
		next := make([]float64, n)
		dangling := 0.0
		for i := range int32(n) {
			if o := g.outOf(i); len(o) == 0 {
				dangling += rank[i]
			} else {
				for _, d := range o {
					next[d] += damping * rank[i] / float64(len(o))
				}
			}
		}
		diff := 0.0
		for i := range next {
			next[i] += (1-damping)/float64(n) + damping*dangling/float64(n)
			diff += math.Abs(next[i] - rank[i])
		}
		rank = next
		if diff < 1e-15 {
			break
		}
	}
	return rank
}

// l1 is the sum of the differences of a and b.
func l1(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d += math.Abs(a[i] - b[i])
	}
	return d
}

// TestRanksConverge: on graphs where the iteration converges slowest
// (two-way links, whose rank swings back and forth, shrinking only by
// the damping a round; components apart, whose share of the rank a warm
// start may have wrong), Ranks and RanksFrom from any start are within
// RankError of the fixed point.
func TestRanksConverge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var nodes []int64
	var edges []Edge
	// Two-way pairs, one end of each fed by its own star of notes.
	for p := range int64(20) {
		a, b := 1000*p+1, 1000*p+2
		nodes = append(nodes, a, b)
		edges = append(edges, Edge{a, b}, Edge{b, a})
		for leaf := range 1 + p*3 {
			nodes = append(nodes, a+10+leaf)
			edges = append(edges, Edge{a + 10 + leaf, a})
		}
	}
	g := New(nodes, edges)
	for _, damping := range []float64{0.85, 0.5, 0.95} {
		want := converged(g, damping)
		bound := RankError(damping)
		if d := l1(g.Ranks(damping), want); d > bound {
			t.Errorf("damping %g: ranks from the uniform start %g from the fixed point, above %g", damping, d, bound)
		}
		for try := range 20 {
			start := make([]float64, g.Len())
			for i := range start {
				start[i] = r.Float64()
				if try%2 == 0 && i%7 != 0 {
					start[i] = 0 // all on a few nodes
				}
			}
			if d := l1(g.RanksFrom(damping, g.Nodes(), start), want); d > bound {
				t.Errorf("damping %g: ranks from start %d %g from the fixed point, above %g", damping, try, d, bound)
			}
		}
	}
}
