// Package graph holds the link graph of an index in memory, in compact
// adjacency lists, and answers the questions that need the whole graph at
// once: shortest paths, degrees, PageRank and orphans. Questions about one
// note's links go to SQLite; this package is for the rest.
//
// It owns the graph algorithms; it must not import anything of gno (the
// engine's Graph part feeds it from the store).
package graph

import (
	"sort"
)

// Edge is a resolved link from one document to another.
type Edge struct{ Src, Dst int64 }

// Graph is an immutable directed graph over document ids. Parallel links
// between two notes count once; self-links are dropped.
type Graph struct {
	ids []int64         // node index -> document id
	idx map[int64]int32 // document id -> node index
	out [][]int32
	in  [][]int32
}

// New builds a graph over nodes (every document, linked or not) and edges.
// Edges naming a document not in nodes are ignored.
func New(nodes []int64, edges []Edge) *Graph {
	g := &Graph{ids: append([]int64(nil), nodes...), idx: make(map[int64]int32, len(nodes))}
	sort.Slice(g.ids, func(i, j int) bool { return g.ids[i] < g.ids[j] })
	for i, id := range g.ids {
		g.idx[id] = int32(i)
	}
	g.out = make([][]int32, len(g.ids))
	g.in = make([][]int32, len(g.ids))
	for _, e := range edges {
		s, ok1 := g.idx[e.Src]
		d, ok2 := g.idx[e.Dst]
		if !ok1 || !ok2 || s == d {
			continue
		}
		g.out[s] = append(g.out[s], d)
	}
	for s := range g.out {
		g.out[s] = dedup(g.out[s])
		for _, d := range g.out[s] {
			g.in[d] = append(g.in[d], int32(s))
		}
	}
	return g
}

func dedup(a []int32) []int32 {
	if len(a) < 2 {
		return a
	}
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	n := 1
	for i := 1; i < len(a); i++ {
		if a[i] != a[n-1] {
			a[n] = a[i]
			n++
		}
	}
	return a[:n:n]
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// Edges is the number of distinct edges.
func (g *Graph) Edges() int {
	n := 0
	for _, o := range g.out {
		n += len(o)
	}
	return n
}

// Has reports whether id is a node.
func (g *Graph) Has(id int64) bool { _, ok := g.idx[id]; return ok }

// InDegree is the number of documents linking to id.
func (g *Graph) InDegree(id int64) int {
	if i, ok := g.idx[id]; ok {
		return len(g.in[i])
	}
	return 0
}

// OutDegree is the number of documents id links to.
func (g *Graph) OutDegree(id int64) int {
	if i, ok := g.idx[id]; ok {
		return len(g.out[i])
	}
	return 0
}

// Neighbors returns the documents id links to (out), that link to it (in),
// or both, in id order.
func (g *Graph) Neighbors(id int64, out, in bool) []int64 {
	i, ok := g.idx[id]
	if !ok {
		return nil
	}
	seen := map[int32]bool{}
	var res []int64
	add := func(l []int32) {
		for _, n := range l {
			if !seen[n] {
				seen[n] = true
				res = append(res, g.ids[n])
			}
		}
	}
	if out {
		add(g.out[i])
	}
	if in {
		add(g.in[i])
	}
	sort.Slice(res, func(a, b int) bool { return res[a] < res[b] })
	return res
}

// ShortestPath returns a shortest path from src to dst (both included) by
// breadth-first search, following links forwards, or both ways when
// undirected. It gives up past maxDepth edges (0: no bound) and returns
// nil when there is no path. Among equal-length paths it returns the one
// through the lowest document ids, so answers are stable.
func (g *Graph) ShortestPath(src, dst int64, undirected bool, maxDepth int) []int64 {
	s, ok1 := g.idx[src]
	d, ok2 := g.idx[dst]
	if !ok1 || !ok2 {
		return nil
	}
	if s == d {
		return []int64{src}
	}
	prev := make([]int32, len(g.ids))
	for i := range prev {
		prev[i] = -1
	}
	prev[s] = s
	frontier := []int32{s}
	for depth := 1; len(frontier) > 0 && (maxDepth <= 0 || depth <= maxDepth); depth++ {
		var next []int32
		for _, u := range frontier {
			visit := func(v int32) bool {
				if prev[v] >= 0 {
					return false
				}
				prev[v] = u
				next = append(next, v)
				return v == d
			}
			for _, v := range g.out[u] {
				if visit(v) {
					return g.walkBack(prev, s, d)
				}
			}
			if undirected {
				for _, v := range g.in[u] {
					if visit(v) {
						return g.walkBack(prev, s, d)
					}
				}
			}
		}
		frontier = next
	}
	return nil
}

func (g *Graph) walkBack(prev []int32, s, d int32) []int64 {
	var rev []int64
	for v := d; ; v = prev[v] {
		rev = append(rev, g.ids[v])
		if v == s {
			break
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// Distances returns the BFS distance (in edges, following links forwards)
// from src to every node it reaches, by document id.
func (g *Graph) Distances(src int64) map[int64]int {
	s, ok := g.idx[src]
	if !ok {
		return nil
	}
	dist := map[int64]int{src: 0}
	seen := make([]bool, len(g.ids))
	seen[s] = true
	frontier := []int32{s}
	for depth := 1; len(frontier) > 0; depth++ {
		var next []int32
		for _, u := range frontier {
			for _, v := range g.out[u] {
				if !seen[v] {
					seen[v] = true
					dist[g.ids[v]] = depth
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	return dist
}

// PageRank computes PageRank with the given damping (0.85 if 0) by power
// iteration until the total change falls below 1e-9 or 100 rounds. The
// rank of dangling notes (no outgoing links) is spread over every note,
// so ranks sum to 1.
func (g *Graph) PageRank(damping float64) map[int64]float64 {
	n := len(g.ids)
	if n == 0 {
		return map[int64]float64{}
	}
	if damping <= 0 || damping >= 1 {
		damping = 0.85
	}
	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	for round := 0; round < 100; round++ {
		dangling := 0.0
		for i, o := range g.out {
			if len(o) == 0 {
				dangling += rank[i]
			}
		}
		base := (1-damping)/float64(n) + damping*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for i, o := range g.out {
			if len(o) == 0 {
				continue
			}
			share := damping * rank[i] / float64(len(o))
			for _, d := range o {
				next[d] += share
			}
		}
		diff := 0.0
		for i := range rank {
			if d := next[i] - rank[i]; d > 0 {
				diff += d
			} else {
				diff -= d
			}
		}
		rank, next = next, rank
		if diff < 1e-9 {
			break
		}
	}
	out := make(map[int64]float64, n)
	for i, id := range g.ids {
		out[id] = rank[i]
	}
	return out
}

// Orphans returns the documents with no link in or out, in id order.
func (g *Graph) Orphans() []int64 {
	var out []int64
	for i, id := range g.ids {
		if len(g.in[i]) == 0 && len(g.out[i]) == 0 {
			out = append(out, id)
		}
	}
	return out
}

// Nodes returns every document id, ascending.
func (g *Graph) Nodes() []int64 { return g.ids }
