// Package graph holds the link graph of an index in memory, in compact
// adjacency lists, and answers the questions that need the whole graph at
// once: shortest paths, degrees, PageRank and orphans. Questions about one
// note's links go to SQLite; this package is for the rest.
//
// It owns the graph algorithms; it must not import anything of gno (the
// engine's Graph part feeds it from the store).
package graph

import (
	"math"
	"slices"
	"sort"
)

// Edge is a resolved link from one document to another.
type Edge struct{ Src, Dst int64 }

// Graph is an immutable directed graph over document ids. Parallel links
// between two notes count once; self-links are dropped.
//
// It is laid out for a million notes in a long-running daemon: the ids
// sorted (a node is found by binary search, no map) and the links in two
// flat arrays with offsets per node (compressed rows), so the graph is a
// few large allocations (~8 bytes a node and 8 a link) instead of a map
// entry and two slices per node (~100 bytes a node, and the heap
// fragmentation of a million small slices: bench/RESULTS.md, issue 30).
type Graph struct {
	ids    []int64 // node index -> document id, ascending
	outOff []int32 // node i's links are out[outOff[i]:outOff[i+1]]
	out    []int32
	inOff  []int32
	in     []int32
}

// New builds a graph over nodes (every document, linked or not) and edges.
// Edges naming a document not in nodes are ignored.
func New(nodes []int64, edges []Edge) *Graph {
	ids := slices.Clone(nodes)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	g := &Graph{ids: ids}
	n := len(ids)
	// Resolve each edge once, dropping the ones outside, then sort by
	// (source, target) to lay the rows out and drop parallel links.
	pairs := make([][2]int32, 0, len(edges))
	for _, e := range edges {
		if s, d := g.index(e.Src), g.index(e.Dst); s >= 0 && d >= 0 && s != d {
			pairs = append(pairs, [2]int32{s, d})
		}
	}
	pairs = sortPairs(pairs)
	g.outOff = make([]int32, n+1)
	g.out = make([]int32, len(pairs))
	for i, p := range pairs {
		g.outOff[p[0]+1]++
		g.out[i] = p[1]
	}
	for i := range n {
		g.outOff[i+1] += g.outOff[i]
	}
	g.fillIn()
	return g
}

// sortPairs sorts links by (source, target) and drops parallel ones.
func sortPairs(pairs [][2]int32) [][2]int32 {
	slices.SortFunc(pairs, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		return int(a[1]) - int(b[1])
	})
	return slices.Compact(pairs)
}

// index is the node index of document id, -1 when it is not a node.
func (g *Graph) index(id int64) int32 {
	i, ok := slices.BinarySearch(g.ids, id)
	if !ok {
		return -1
	}
	return int32(i)
}

// outOf and inOf are node i's links out and in, ascending.
func (g *Graph) outOf(i int32) []int32 { return g.out[g.outOff[i]:g.outOff[i+1]] }
func (g *Graph) inOf(i int32) []int32  { return g.in[g.inOff[i]:g.inOff[i+1]] }

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// Edges is the number of distinct edges.
func (g *Graph) Edges() int { return len(g.out) }

// Has reports whether id is a node.
func (g *Graph) Has(id int64) bool { return g.index(id) >= 0 }

// InDegree is the number of documents linking to id.
func (g *Graph) InDegree(id int64) int {
	if i := g.index(id); i >= 0 {
		return len(g.inOf(i))
	}
	return 0
}

// OutDegree is the number of documents id links to.
func (g *Graph) OutDegree(id int64) int {
	if i := g.index(id); i >= 0 {
		return len(g.outOf(i))
	}
	return 0
}

// Neighbors returns the documents id links to (out), that link to it (in),
// or both, in id order.
func (g *Graph) Neighbors(id int64, out, in bool) []int64 {
	i := g.index(id)
	if i < 0 {
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
		add(g.outOf(i))
	}
	if in {
		add(g.inOf(i))
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
	s, d := g.index(src), g.index(dst)
	if s < 0 || d < 0 {
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
			for _, v := range g.outOf(u) {
				if visit(v) {
					return g.walkBack(prev, s, d)
				}
			}
			if undirected {
				for _, v := range g.inOf(u) {
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
	s := g.index(src)
	if s < 0 {
		return nil
	}
	dist := map[int64]int{src: 0}
	seen := make([]bool, len(g.ids))
	seen[s] = true
	frontier := []int32{s}
	for depth := 1; len(frontier) > 0; depth++ {
		var next []int32
		for _, u := range frontier {
			for _, v := range g.outOf(u) {
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
// iteration until the total change of a round falls below rankTol, which
// puts the ranks within RankError of the fixed point. The rank of
// dangling notes (no outgoing links) is spread over every note, so ranks
// sum to 1.
func (g *Graph) PageRank(damping float64) map[int64]float64 {
	ranks := g.Ranks(damping)
	out := make(map[int64]float64, len(ranks))
	for i, id := range g.ids {
		out[id] = ranks[i]
	}
	return out
}

// Rank is document id's entry of ranks (from Ranks), 0 when id is not a
// node.
func (g *Graph) Rank(ranks []float64, id int64) float64 {
	if i := g.index(id); i >= 0 && int(i) < len(ranks) {
		return ranks[i]
	}
	return 0
}

// Ranks is PageRank as a slice in the order of Nodes: what a process
// that keeps the ranks holds (8 bytes a node; the map costs ~40 at a
// million).
func (g *Graph) Ranks(damping float64) []float64 {
	return g.RanksFrom(damping, nil, nil)
}

// RanksFrom is Ranks started from the ranks prevRanks of the nodes
// prevIDs (an earlier graph's Nodes and Ranks) instead of the uniform
// vector: a new node starts at 1/n, and the start is scaled to sum to 1.
// The iteration and its stopping rule are Ranks', so the result is,
// like Ranks', within RankError of the fixed point (which does not
// depend on the start), and after a small change to the graph it takes
// a few rounds instead of dozens.
func (g *Graph) RanksFrom(damping float64, prevIDs []int64, prevRanks []float64) []float64 {
	n := len(g.ids)
	if n == 0 {
		return nil
	}
	damping = dampingOf(damping)
	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	if len(prevIDs) > 0 && len(prevIDs) == len(prevRanks) {
		// Both id lists are ascending: merge them.
		sum, j := 0.0, 0
		for i, id := range g.ids {
			for j < len(prevIDs) && prevIDs[j] < id {
				j++
			}
			if j < len(prevIDs) && prevIDs[j] == id && prevRanks[j] > 0 {
				rank[i] = prevRanks[j]
			}
			sum += rank[i]
		}
		for i := range rank {
			rank[i] /= sum
		}
	}
	for range maxRounds(damping) {
		dangling := 0.0
		for i := range n {
			if g.outOff[i] == g.outOff[i+1] {
				dangling += rank[i]
			}
		}
		base := (1-damping)/float64(n) + damping*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for i := range int32(n) {
			o := g.outOf(i)
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
		if diff < rankTol {
			break
		}
	}
	return rank
}

// rankTol is the total change of a round at which PageRank stops.
const rankTol = 1e-9

// dampingOf is damping, or 0.85 when it is not in (0, 1).
func dampingOf(damping float64) float64 {
	if damping <= 0 || damping >= 1 {
		return 0.85
	}
	return damping
}

// maxRounds bounds PageRank's rounds for damping d, only against
// floating-point trouble: a round shrinks the total change by a factor
// of at least d (the iteration is a contraction by d), and the first
// change is at most 2 (two vectors summing to 1), so the change falls
// below rankTol within log(rankTol/2)/log(d) rounds from any start: 132
// at 0.85. Two-way links (rank swinging back and forth) and components
// apart (a warm start with their shares wrong) do take about that many;
// a fixed cap of 100 stopped them short of the rule.
func maxRounds(d float64) int {
	return int(math.Ceil(math.Log(rankTol/2)/math.Log(d))) + 1
}

// RankError bounds the total (L1) difference between Ranks (or
// RanksFrom, from any start) and the exact PageRank for damping: a last
// change below rankTol leaves at most d/(1-d) times it to go. Two
// results, say from a warm and a cold start, are within twice it.
func RankError(damping float64) float64 {
	d := dampingOf(damping)
	return d / (1 - d) * rankTol
}

// RankKey is rank r rounded to a grid of 1e-8 (ranks sum to 1): what to
// order notes by, then by id. Two computations of the same ranks, from
// different starts (a warm start follows the history of the index) or
// only summing in a different order, leave notes of equal rank ~1e-10
// apart either way; ordered on the raw rank their order would follow
// the history. The grid is far coarser than that and still finer than
// any difference worth ordering by (1% of the mean rank at a million
// notes); only ranks straddling a grid line can still differ.
func RankKey(r float64) float64 { return math.Round(r*1e8) / 1e8 }

// Orphans returns the documents with no link in or out, in id order.
func (g *Graph) Orphans() []int64 {
	var out []int64
	for i, id := range g.ids {
		if g.inOff[i] == g.inOff[i+1] && g.outOff[i] == g.outOff[i+1] {
			out = append(out, id)
		}
	}
	return out
}

// Nodes returns every document id, ascending.
func (g *Graph) Nodes() []int64 { return g.ids }
