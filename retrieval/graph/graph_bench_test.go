package graph

import "testing"

// ring5k is the generated vault's shape: 5,000 notes, each linking to the
// next, to one of ten hubs and every third to a far note.
func ring5k() *Graph {
	const n, m = 5000, 4980
	nodes := make([]int64, n)
	var edges []Edge
	for i := 0; i < n; i++ {
		nodes[i] = int64(i + 1)
		if i >= m {
			continue
		}
		edges = append(edges, Edge{int64(i + 1), int64((i+1)%m + 1)})
		if i >= 10 {
			edges = append(edges, Edge{int64(i + 1), int64(i%10 + 1)})
		}
		if i%3 == 0 {
			edges = append(edges, Edge{int64(i + 1), int64((i*7+13)%m + 1)})
		}
	}
	return New(nodes, edges)
}

// BenchmarkPageRank is PageRank alone on 5,000 notes.
func BenchmarkPageRank(b *testing.B) {
	g := ring5k()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.PageRank(0.85)
	}
}

// BenchmarkShortestPath is one BFS across the ring.
func BenchmarkShortestPath(b *testing.B) {
	g := ring5k()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if g.ShortestPath(int64(i%4980+1), int64((i*2477)%4980+1), false, 0) == nil {
			b.Fatal("no path")
		}
	}
}
