// Package layout places the nodes of a whole link graph in the plane, on
// the server, so a browser only has to draw: the graph view of `gno
// serve`. It owns the layout algorithm, the scene a browser draws (nodes
// with their metadata, unresolved targets as ghost nodes), the scene's
// compact binary encoding (wire.go; server/web/assets/graph/decode.js
// reads it) and a note's neighbourhood (Around, local.go: what a local
// graph lays out, in milliseconds, instead of the whole graph).
//
// The algorithm is Hu's multilevel framework (the one behind Graphviz's
// sfdp) with the forces of ForceAtlas2: each connected component is
// coarsened by matching (heavy edges between light nodes first, then
// pairs of nodes sharing a neighbour, so the hundreds of leaves of a hub
// collapse too), the coarsest graph is laid out from a seeded random
// start, and every finer level starts from its parent's position and is
// refined by a few iterations with Barnes–Hut repulsion (a quadtree,
// traversed once per leaf rather than per node: 1.5 to 1.6 times
// faster at the same error) and an adaptive step. Components are packed
// on rings around the largest, in order of size, so isolated notes form
// a thin halo. Linked notes end up about one unit apart.
//
// Why this one (bench/RESULTS.md, "Graph view"): ForceAtlas2's degree
// charges draw the clusters of a vault (three in five of a note's
// nearest notes share its folder on the generated 20,000-note vault,
// against one in three with Hu's spring-electrical forces); multilevel
// untangles what a single level cannot in the same time (a 30×30 grid:
// neighbourhood preservation 0.78 against 0.18; less on hub-and-spoke
// vaults, where it still wins); Barnes–Hut matches the exact O(n²) sum
// on the real vault at a fifth of the time; a run with five times the
// iterations improves little. Laying out in the browser would put
// seconds of JavaScript before the first frame and a second copy of the
// algorithm in JavaScript; the server computes it once per index version
// instead.
//
// Cost: one goroutine, O((n log n + m)·iterations), checking ctx between
// iterations and yielding the processor every millisecond or so
// (Options.Yield: a caller may make it wait there, as the web app does
// for a layout nobody is waiting for while requests are in flight), so a
// layout never holds more than one core and never blocks other requests
// for long; Options.MaxTime bounds it (a layout cut short is still
// complete: the remaining levels are placed without refinement, and
// Result.Truncated says so). The same graph, options and seed give the
// same positions on one platform.
//
// The package imports nothing else of gno but retrieval/graph (for
// PageRank), and is written by hand: no maintained pure-Go library offers
// a multilevel layout (gonum's graph/layout has Eades' single-level
// spring embedder).
package layout

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"
)

// Graph is the input of Layout: N nodes numbered 0..N-1 and undirected
// edges between them. Self-loops, duplicates and out-of-range ends are
// ignored.
type Graph struct {
	N     int
	Edges [][2]int32
}

// Options tune Layout. The zero value is the default.
type Options struct {
	// Seed picks the random start; the same seed gives the same layout.
	Seed uint64
	// MaxTime bounds the whole layout (0: 10 s), not counting the time
	// spent in Yield. Past it the remaining levels are placed without
	// refinement.
	MaxTime time.Duration
	// Theta is the Barnes–Hut opening angle (0: 1.5); larger is faster
	// and coarser.
	Theta float64
	// Iterations caps the force iterations of the finest level (0: 15);
	// coarser levels get a few more (they are smaller).
	Iterations int
	// SingleLevel skips coarsening: the plain (non-multilevel)
	// Barnes–Hut layout, kept for comparisons.
	SingleLevel bool
	// Exact computes repulsion between all pairs, O(n²) per iteration,
	// instead of with the quadtree: for comparisons only.
	Exact bool
	// Yield is called between force iterations and about every
	// millisecond inside one (nil: runtime.Gosched). A caller that wants
	// the layout to give way to other work blocks in it; the layout's
	// own ctx still ends it.
	Yield func()
}

// Result is a layout.
type Result struct {
	// Pos holds x, y of node i at Pos[2i], Pos[2i+1]. Linked nodes sit
	// about one unit apart; the layout is centred on the origin.
	Pos []float32
	// Components is the number of connected components.
	Components int
	// Levels is the deepest coarsening hierarchy used.
	Levels int
	// Iterations counts force iterations over all levels and
	// components.
	Iterations int
	// Truncated is set when MaxTime ran out before the refinement was
	// done.
	Truncated bool
	// Elapsed is the time Layout took.
	Elapsed time.Duration
}

// ErrTooLarge is returned for a graph past the limits a layout is meant
// for (MaxNodes, MaxEdges).
var ErrTooLarge = errors.New("layout: graph too large")

// Limits of one layout: far above a personal vault, low enough that the
// memory (about 200 bytes a node and 16 an edge) stays small.
const (
	MaxNodes = 2_000_000
	MaxEdges = 20_000_000
)

// Layout places every node of g. It runs in the calling goroutine and
// returns ctx.Err() if ctx ends first.
func Layout(ctx context.Context, g Graph, o Options) (*Result, error) {
	start := time.Now()
	if g.N < 0 || g.N > MaxNodes || len(g.Edges) > MaxEdges {
		return nil, fmt.Errorf("%w: %d nodes, %d edges (limits %d, %d)", ErrTooLarge, g.N, len(g.Edges), MaxNodes, MaxEdges)
	}
	if o.MaxTime <= 0 {
		o.MaxTime = 10 * time.Second
	}
	if o.Theta <= 0 {
		o.Theta = 1.5
	}
	if o.Iterations <= 0 {
		o.Iterations = 15
	}
	if o.Yield == nil {
		o.Yield = runtime.Gosched
	}
	r := &run{ctx: ctx, o: o, deadline: start.Add(o.MaxTime), rng: newRNG(o.Seed)}
	res := &Result{Pos: make([]float32, 2*g.N)}
	comps := components(g)
	res.Components = len(comps)
	placed := make([]placedComp, len(comps))
	for ci, c := range comps {
		pos, err := r.component(c)
		if err != nil {
			return nil, err
		}
		placed[ci] = placedComp{nodes: c.nodes, pos: pos}
	}
	pack(placed)
	for _, p := range placed {
		for k, v := range p.nodes {
			res.Pos[2*v] = float32(p.pos[2*k])
			res.Pos[2*v+1] = float32(p.pos[2*k+1])
		}
	}
	res.Levels, res.Iterations, res.Truncated = r.levels, r.iterations, r.truncated
	res.Elapsed = time.Since(start)
	return res, nil
}

// run is the state of one Layout call.
type run struct {
	ctx        context.Context
	o          Options
	deadline   time.Time
	rng        *rng
	levels     int
	iterations int
	truncated  bool
	force      forceState
}

// comp is one connected component: its nodes (global ids, ascending) and
// its adjacency in local ids.
type comp struct {
	nodes []int32
	adj   *csr
}

// components splits g into connected components, largest first (ties:
// lowest node first), with local adjacency lists.
func components(g Graph) []comp {
	n := g.N
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	valid := func(e [2]int32) bool {
		return e[0] != e[1] && e[0] >= 0 && e[1] >= 0 && int(e[0]) < n && int(e[1]) < n
	}
	for _, e := range g.Edges {
		if valid(e) {
			a, b := find(e[0]), find(e[1])
			if a != b {
				if a < b {
					parent[b] = a
				} else {
					parent[a] = b
				}
			}
		}
	}
	// Group nodes by root, keep each group's nodes ascending.
	local := make([]int32, n)
	groupOf := make(map[int32]int, 16)
	var groups [][]int32
	for v := 0; v < n; v++ {
		r := find(int32(v))
		gi, ok := groupOf[r]
		if !ok {
			gi = len(groups)
			groupOf[r] = gi
			groups = append(groups, nil)
		}
		local[v] = int32(len(groups[gi]))
		groups[gi] = append(groups[gi], int32(v))
	}
	// Edges per group, in local ids.
	edges := make([][][2]int32, len(groups))
	for _, e := range g.Edges {
		if valid(e) {
			gi := groupOf[find(e[0])]
			edges[gi] = append(edges[gi], [2]int32{local[e[0]], local[e[1]]})
		}
	}
	out := make([]comp, len(groups))
	for gi, nodes := range groups {
		out[gi] = comp{nodes: nodes, adj: newCSR(len(nodes), edges[gi])}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].nodes) > len(out[j].nodes) })
	return out
}

// component lays out one component; positions are local, interleaved.
func (r *run) component(c comp) ([]float64, error) {
	n := len(c.nodes)
	switch n {
	case 1:
		return []float64{0, 0}, nil
	case 2:
		return []float64{-0.5, 0, 0.5, 0}, nil
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	var hier []*csr
	if r.o.SingleLevel {
		hier = []*csr{c.adj}
	} else {
		hier = coarsen(c.adj, r.rng)
	}
	if len(hier) > r.levels {
		r.levels = len(hier)
	}
	// Coarsest first: a random start in a square of the expected area.
	top := hier[len(hier)-1]
	side := math.Sqrt(float64(top.n))
	pos := make([]float64, 2*top.n)
	for i := range pos {
		pos[i] = (r.rng.float() - 0.5) * side
	}
	for li := len(hier) - 1; li >= 0; li-- {
		g := hier[li]
		if li < len(hier)-1 {
			pos = prolong(g, pos, r.rng)
		}
		unit := meanEdge(g, pos)
		iters, step := r.o.Iterations, refineStep*unit
		switch {
		case li == len(hier)-1 && !r.o.SingleLevel:
			iters, step = coarsestIters, unit
		case li == len(hier)-1:
			step = unit
		case li > 0:
			iters += extraIters
		}
		if err := r.refine(g, pos, iters, step, tolerance*unit); err != nil {
			return nil, err
		}
	}
	// Linked nodes about one unit apart, whatever the forces' scale.
	if u := meanEdge(c.adj, pos); u > 0 {
		for i := range pos {
			pos[i] /= u
		}
	}
	return pos, nil
}

// meanEdge is the mean length of g's edges at pos (1 without edges): the
// scale of a level's steps, since the forces set no natural length.
func meanEdge(g *csr, pos []float64) float64 {
	sum, m := 0.0, 0
	for i := 0; i < g.n; i++ {
		for k := g.off[i]; k < g.off[i+1]; k++ {
			j := g.adj[k]
			sum += math.Hypot(pos[2*j]-pos[2*i], pos[2*j+1]-pos[2*i+1])
			m++
		}
	}
	if m == 0 || sum == 0 {
		return 1
	}
	return sum / float64(m)
}
