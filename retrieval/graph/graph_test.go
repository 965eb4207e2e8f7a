package graph

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestGraph(t *testing.T) {
	// 1 -> 2 -> 3 -> 4, 1 -> 3, 5 isolated, 2 -> 2 self, 4 -> 1 twice.
	g := New([]int64{5, 4, 3, 2, 1}, []Edge{{1, 2}, {2, 3}, {3, 4}, {1, 3}, {2, 2}, {4, 1}, {4, 1}, {9, 1}})
	if g.Len() != 5 || g.Edges() != 5 {
		t.Fatalf("len %d edges %d", g.Len(), g.Edges())
	}
	if p := g.ShortestPath(1, 4, false, 0); !reflect.DeepEqual(p, []int64{1, 3, 4}) {
		t.Errorf("path %v", p)
	}
	if p := g.ShortestPath(4, 3, false, 1); p != nil {
		t.Errorf("bounded path %v", p)
	}
	if p := g.ShortestPath(4, 3, false, 2); !reflect.DeepEqual(p, []int64{4, 1, 3}) {
		t.Errorf("path %v", p)
	}
	if p := g.ShortestPath(3, 1, true, 0); !reflect.DeepEqual(p, []int64{3, 1}) {
		t.Errorf("undirected path %v", p)
	}
	if p := g.ShortestPath(1, 5, true, 0); p != nil {
		t.Errorf("path to isolated %v", p)
	}
	if g.InDegree(3) != 2 || g.OutDegree(4) != 1 || g.InDegree(2) != 1 {
		t.Errorf("degrees")
	}
	if o := g.Orphans(); !reflect.DeepEqual(o, []int64{5}) {
		t.Errorf("orphans %v", o)
	}
	pr := g.PageRank(0.85)
	sum := 0.0
	for _, v := range pr {
		sum += v
	}
	if sum < 0.999999 || sum > 1.000001 || !(pr[3] > pr[2] && pr[2] > pr[5]) {
		t.Errorf("pagerank %v (sum %g)", pr, sum)
	}
	ranks := g.Ranks(0.85)
	for i, id := range g.Nodes() {
		if g.Rank(ranks, id) != pr[id] || ranks[i] != pr[id] {
			t.Errorf("rank of %d: %g, want the map's %g", id, g.Rank(ranks, id), pr[id])
		}
	}
	if g.Rank(ranks, 9) != 0 {
		t.Errorf("rank of a missing id %g", g.Rank(ranks, 9))
	}
	if n := g.Neighbors(1, true, true); !reflect.DeepEqual(n, []int64{2, 3, 4}) {
		t.Errorf("neighbours %v", n)
	}
}

// TestGraphMatchesMaps checks the compressed rows against the plain
// reading of a random graph (maps of sets): every node's degrees and
// neighbours, the orphans and the edge count, with parallel links,
// self-links and edges to ids outside the nodes among the input.
func TestGraphMatchesMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 20 {
		n := 1 + r.IntN(60)
		nodes := make([]int64, n)
		for i := range nodes {
			nodes[i] = int64(r.IntN(1000)) * 7 // gaps and no order
		}
		slices.Sort(nodes)
		nodes = slices.Compact(nodes)
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		pick := func() int64 {
			if r.IntN(10) == 0 {
				return -1 // not a node
			}
			return nodes[r.IntN(len(nodes))]
		}
		var edges []Edge
		out, in := map[int64]map[int64]bool{}, map[int64]map[int64]bool{}
		for range r.IntN(4 * n) {
			e := Edge{pick(), pick()}
			edges = append(edges, e)
			if e.Src < 0 || e.Dst < 0 || e.Src == e.Dst {
				continue
			}
			if out[e.Src] == nil {
				out[e.Src] = map[int64]bool{}
			}
			if in[e.Dst] == nil {
				in[e.Dst] = map[int64]bool{}
			}
			out[e.Src][e.Dst], in[e.Dst][e.Src] = true, true
		}
		g := New(nodes, edges)
		sorted := slices.Sorted(slices.Values(nodes))
		if !reflect.DeepEqual(g.Nodes(), sorted) || g.Len() != len(nodes) {
			t.Fatalf("round %d: nodes %v, want %v", round, g.Nodes(), sorted)
		}
		keys := func(m map[int64]bool) []int64 { return slices.Sorted(maps.Keys(m)) }
		edgeCount := 0
		var orphans []int64
		for _, id := range sorted {
			edgeCount += len(out[id])
			if g.OutDegree(id) != len(out[id]) || g.InDegree(id) != len(in[id]) {
				t.Fatalf("round %d: node %d degrees %d/%d, want %d/%d", round, id, g.OutDegree(id), g.InDegree(id), len(out[id]), len(in[id]))
			}
			both := maps.Clone(out[id])
			if both == nil {
				both = map[int64]bool{}
			}
			maps.Copy(both, in[id])
			for _, c := range []struct {
				got  []int64
				want []int64
			}{{g.Neighbors(id, true, false), keys(out[id])}, {g.Neighbors(id, false, true), keys(in[id])}, {g.Neighbors(id, true, true), keys(both)}} {
				if len(c.got) != 0 || len(c.want) != 0 {
					if !reflect.DeepEqual(c.got, c.want) {
						t.Fatalf("round %d: node %d neighbours %v, want %v", round, id, c.got, c.want)
					}
				}
			}
			if len(both) == 0 {
				orphans = append(orphans, id)
			}
		}
		if g.Edges() != edgeCount {
			t.Fatalf("round %d: %d edges, want %d", round, g.Edges(), edgeCount)
		}
		if o := g.Orphans(); len(o) != 0 || len(orphans) != 0 {
			if !reflect.DeepEqual(o, orphans) {
				t.Fatalf("round %d: orphans %v, want %v", round, o, orphans)
			}
		}
		if g.Has(-1) || g.OutDegree(-1) != 0 || g.Neighbors(-1, true, true) != nil || g.ShortestPath(-1, sorted[0], true, 0) != nil {
			t.Fatalf("round %d: a missing id answered", round)
		}
	}
}
