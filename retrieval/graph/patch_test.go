package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sameGraph reports whether a and b hold the same nodes and rows.
func sameGraph(a, b *Graph) bool {
	return slices.Equal(a.ids, b.ids) && slices.Equal(a.outOff, b.outOff) && slices.Equal(a.out, b.out) &&
		slices.Equal(a.inOff, b.inOff) && slices.Equal(a.in, b.in)
}

// TestPatchEqualsNew: a graph patched by random changes (nodes added and
// removed, links of the changed sources replaced, parallel and self
// links, links to nodes that are gone) equals New over the whole new
// graph, and ranks started from the old ranks, like ranks from the
// uniform start, are within RankError of the fixed point.
func TestPatchEqualsNew(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 7))
		// The graph as sets: nodes and each source's links.
		nodes := map[int64]bool{}
		links := map[int64][]int64{}
		for id := int64(1); id <= 300; id++ {
			if r.IntN(5) > 0 {
				nodes[id] = true
			}
		}
		randomLinks := func(src int64) []int64 {
			var out []int64
			for range r.IntN(6) {
				out = append(out, int64(1+r.IntN(340)))
			}
			if r.IntN(8) == 0 {
				out = append(out, src, src)
			}
			return out
		}
		for id := range nodes {
			links[id] = randomLinks(id)
		}
		build := func() *Graph {
			var ns []int64
			var es []Edge
			for id := range nodes {
				ns = append(ns, id)
				for _, d := range links[id] {
					es = append(es, Edge{id, d})
				}
			}
			return New(ns, es)
		}
		g := build()
		ranks := g.Ranks(0.85)
		for step := range 40 {
			var changed []int64
			for range 1 + r.IntN(12) {
				id := int64(1 + r.IntN(340))
				changed = append(changed, id)
				switch r.IntN(3) {
				case 0:
					delete(nodes, id)
					delete(links, id)
				default:
					if !nodes[id] {
						// Its links in are resolved again (the index's
						// overlay touches their sources).
						for src, ls := range links {
							if slices.Contains(ls, id) {
								changed = append(changed, src)
							}
						}
					}
					nodes[id] = true
					links[id] = randomLinks(id)
				}
			}
			slices.Sort(changed)
			changed = slices.Compact(changed)
			var ns []int64
			var es []Edge
			for _, id := range changed {
				if nodes[id] {
					ns = append(ns, id)
					for _, d := range links[id] {
						es = append(es, Edge{id, d})
					}
				}
			}
			// Links from unchanged sources are ignored.
			es = append(es, Edge{-1, 3})
			if p := g.Patch(changed, ns, es); true {
				want := build()
				if !sameGraph(p, want) {
					t.Fatalf("seed %d step %d: patched graph differs from New", seed, step)
				}
				if cap(p.out) != len(p.out) {
					t.Fatalf("seed %d step %d: links with room for %d more", seed, step, cap(p.out)-len(p.out))
				}
				warm := p.RanksFrom(0.85, g.Nodes(), ranks)
				exact := converged(want, 0.85)
				if d := l1(warm, exact); d > RankError(0.85) {
					t.Fatalf("seed %d step %d: warm ranks %g from the fixed point", seed, step, d)
				}
				if d := l1(want.Ranks(0.85), exact); d > RankError(0.85) {
					t.Fatalf("seed %d step %d: cold ranks %g from the fixed point", seed, step, d)
				}
				g, ranks = p, warm
			}
		}
	}
}
