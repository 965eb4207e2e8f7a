package graph

import (
	"reflect"
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
	if n := g.Neighbors(1, true, true); !reflect.DeepEqual(n, []int64{2, 3, 4}) {
		t.Errorf("neighbours %v", n)
	}
}
