package layout

import "sort"

// csr is one level of the hierarchy: an undirected weighted graph in
// compressed sparse rows (both directions stored).
type csr struct {
	n   int
	off []int32   // node i's neighbours are adj[off[i]:off[i+1]]
	adj []int32   //
	ew  []float32 // weight of each adj entry: the links it stands for
	nw  []float32 // node weight: the nodes it stands for
	// mass is the repulsion charge: degree + 1 of a level-0 node, summed
	// over the nodes a coarse node stands for.
	mass []float32
	// parent maps a node to its node in the next coarser level.
	parent []int32
}

// newCSR builds a level-0 graph from distinct-or-not edges (local ids,
// valid, no self-loops).
func newCSR(n int, edges [][2]int32) *csr {
	g := &csr{n: n, off: make([]int32, n+1), nw: make([]float32, n)}
	for i := range g.nw {
		g.nw[i] = 1
	}
	deg := make([]int32, n)
	for _, e := range edges {
		deg[e[0]]++
		deg[e[1]]++
	}
	for i := 0; i < n; i++ {
		g.off[i+1] = g.off[i] + deg[i]
	}
	adj := make([]int32, g.off[n])
	fill := append([]int32(nil), g.off[:n]...)
	for _, e := range edges {
		adj[fill[e[0]]] = e[1]
		fill[e[0]]++
		adj[fill[e[1]]] = e[0]
		fill[e[1]]++
	}
	// Sort and deduplicate each row, compacting in place.
	w := int32(0)
	start := int32(0)
	for i := 0; i < n; i++ {
		row := adj[start:g.off[i+1]]
		start = g.off[i+1]
		sort.Slice(row, func(a, b int) bool { return row[a] < row[b] })
		g.off[i] = w
		for k, v := range row {
			if k > 0 && v == row[k-1] {
				continue
			}
			adj[w] = v
			w++
		}
	}
	g.off[n] = w
	g.adj = adj[:w:w]
	g.mass = make([]float32, n)
	for i := 0; i < n; i++ {
		g.mass[i] = float32(g.off[i+1]-g.off[i]) + 1
	}
	g.ew = make([]float32, w)
	for i := range g.ew {
		g.ew[i] = 1
	}
	return g
}

// Coarsening stops at this many nodes, or when a round removes less than
// a tenth of them, or after maxLevels.
const (
	minCoarse = 24
	maxLevels = 40
)

// coarsen returns the hierarchy g, g1, g2, ... coarsest last, setting
// each level's parent map.
func coarsen(g *csr, rng *rng) []*csr {
	hier := []*csr{g}
	for len(hier) < maxLevels && g.n > minCoarse {
		c := coarsenOnce(g, rng)
		if c == nil {
			break
		}
		hier = append(hier, c)
		g = c
	}
	return hier
}

// coarsenOnce collapses matched pairs of g into single nodes: first a
// matching that prefers heavy edges between light nodes (visiting nodes in
// a seeded random order), then pairs of still unmatched nodes sharing a
// neighbour, which is what shrinks stars: a hub matches one leaf per
// round, the other leaves pair with each other. It returns nil when that
// would remove less than a tenth of the nodes.
func coarsenOnce(g *csr, rng *rng) *csr {
	n := g.n
	match := make([]int32, n)
	for i := range match {
		match[i] = -1
	}
	order := rng.perm(n)
	for _, u := range order {
		if match[u] >= 0 {
			continue
		}
		best, bestScore := int32(-1), float32(0)
		for k := g.off[u]; k < g.off[u+1]; k++ {
			v := g.adj[k]
			if match[v] >= 0 {
				continue
			}
			if s := g.ew[k] / (g.nw[u] + g.nw[v]); s > bestScore {
				best, bestScore = v, s
			}
		}
		if best >= 0 {
			match[u], match[best] = best, u
		}
	}
	for _, h := range order {
		pending := int32(-1)
		for k := g.off[h]; k < g.off[h+1]; k++ {
			v := g.adj[k]
			if match[v] >= 0 {
				continue
			}
			if pending < 0 {
				pending = v
			} else {
				match[pending], match[v] = v, pending
				pending = -1
			}
		}
	}
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = -1
	}
	nc := int32(0)
	for u := 0; u < n; u++ {
		if parent[u] >= 0 {
			continue
		}
		parent[u] = nc
		if m := match[u]; m >= 0 {
			parent[m] = nc
		}
		nc++
	}
	if float64(nc) > 0.9*float64(n) {
		return nil
	}
	g.parent = parent
	c := &csr{n: int(nc), off: make([]int32, nc+1), nw: make([]float32, nc), mass: make([]float32, nc)}
	// Children of each coarse node, by counting sort.
	cstart := make([]int32, nc+1)
	for _, p := range parent {
		cstart[p+1]++
	}
	for i := int32(0); i < nc; i++ {
		cstart[i+1] += cstart[i]
	}
	children := make([]int32, n)
	fill := append([]int32(nil), cstart[:nc]...)
	for u, p := range parent {
		children[fill[p]] = int32(u)
		fill[p]++
	}
	mark := make([]int32, nc)
	slot := make([]int32, nc)
	for i := range mark {
		mark[i] = -1
	}
	c.adj = make([]int32, 0, len(g.adj)/2)
	c.ew = make([]float32, 0, len(g.adj)/2)
	for p := int32(0); p < nc; p++ {
		c.off[p] = int32(len(c.adj))
		for _, u := range children[cstart[p]:cstart[p+1]] {
			c.nw[p] += g.nw[u]
			c.mass[p] += g.mass[u]
			for k := g.off[u]; k < g.off[u+1]; k++ {
				q := parent[g.adj[k]]
				if q == p {
					continue
				}
				if mark[q] != p {
					mark[q] = p
					slot[q] = int32(len(c.adj))
					c.adj = append(c.adj, q)
					c.ew = append(c.ew, g.ew[k])
				} else {
					c.ew[slot[q]] += g.ew[k]
				}
			}
		}
	}
	c.off[nc] = int32(len(c.adj))
	return c
}

// prolong places the nodes of the finer level fine at their parent's
// position in coarse, with a small seeded jitter so siblings separate.
// No scaling: a coarse node carries the charge of the nodes it stands
// for, so a coarse layout already has the size of the fine one.
func prolong(fine *csr, cpos []float64, rng *rng) []float64 {
	pos := make([]float64, 2*fine.n)
	for u, p := range fine.parent {
		pos[2*u] = cpos[2*p] + (rng.float()-0.5)*0.2
		pos[2*u+1] = cpos[2*p+1] + (rng.float()-0.5)*0.2
	}
	return pos
}

// rng is a small deterministic generator (SplitMix64), so layouts do not
// depend on math/rand's algorithm choices across Go versions.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed ^ 0x9e3779b97f4a7c15} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// perm is a random permutation of 0..n-1 (Fisher–Yates).
func (r *rng) perm(n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := int(r.next() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}
