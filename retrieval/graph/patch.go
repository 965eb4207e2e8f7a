package graph

import (
	"slices"
)

// Patch returns the graph g would be with the documents changed (every
// id whose node or links differ, ascending) replaced: nodes are those of
// them that are nodes now, edges their links (edges from other sources
// are ignored). changed must hold every source whose links between
// nodes may differ, so also every source of a link to a node added (in
// an index a link to a missing document is resolved again when the
// document comes). The result then equals New over the whole new node
// and edge sets, built in time linear in the graph without sorting it
// again: a daemon follows a small sync this way instead of rebuilding a
// million nodes (bench/RESULTS.md, issue 30).
func (g *Graph) Patch(changed, nodes []int64, edges []Edge) *Graph {
	isChanged := func(id int64) bool { _, ok := slices.BinarySearch(changed, id); return ok }
	// The new node set: g's unchanged nodes and the changed ones present.
	add := slices.Clone(nodes)
	slices.Sort(add)
	add = slices.Compact(add)
	ids := make([]int64, 0, len(g.ids)+len(add))
	remap := make([]int32, len(g.ids)) // old index -> new, -1 gone
	i, j := 0, 0
	for i < len(g.ids) || j < len(add) {
		switch {
		case j == len(add) || i < len(g.ids) && g.ids[i] < add[j]:
			remap[i] = -1
			if !isChanged(g.ids[i]) {
				remap[i] = int32(len(ids))
				ids = append(ids, g.ids[i])
			}
			i++
		case i == len(g.ids) || add[j] < g.ids[i]:
			ids = append(ids, add[j])
			j++
		default: // the same id: present before and now
			remap[i] = int32(len(ids))
			ids = append(ids, add[j])
			i, j = i+1, j+1
		}
	}
	ng := &Graph{ids: ids}
	n := len(ids)
	// The changed sources' links, by new index, sorted and distinct.
	pairs := make([][2]int32, 0, len(edges))
	for _, e := range edges {
		if !isChanged(e.Src) {
			continue
		}
		if s, d := ng.index(e.Src), ng.index(e.Dst); s >= 0 && d >= 0 && s != d {
			pairs = append(pairs, [2]int32{s, d})
		}
	}
	pairs = sortPairs(pairs)
	// Out rows in node order: an unchanged node's old row remapped (the
	// map keeps order; a target gone is dropped), a changed one's pairs.
	ng.outOff = make([]int32, n+1)
	ng.out = make([]int32, 0, len(g.out)+len(pairs))
	old := 0 // index into g.ids
	p := 0
	for k, id := range ids {
		for old < len(g.ids) && g.ids[old] < id {
			old++
		}
		if old < len(g.ids) && g.ids[old] == id && !isChanged(id) {
			for _, d := range g.outOf(int32(old)) {
				if nd := remap[d]; nd >= 0 {
					ng.out = append(ng.out, nd)
				}
			}
		} else {
			for p < len(pairs) && pairs[p][0] < int32(k) {
				p++
			}
			for ; p < len(pairs) && pairs[p][0] == int32(k); p++ {
				ng.out = append(ng.out, pairs[p][1])
			}
		}
		ng.outOff[k+1] = int32(len(ng.out))
	}
	// The room left by the changed sources' old links is not the graph's:
	// nothing may append into it.
	ng.out = slices.Clip(ng.out)
	ng.fillIn()
	return ng
}

// fillIn lays out the in rows from the out rows: sources in ascending
// order, so each in row is ascending.
func (g *Graph) fillIn() {
	n := len(g.ids)
	g.inOff = make([]int32, n+1)
	g.in = make([]int32, len(g.out))
	for _, d := range g.out {
		g.inOff[d+1]++
	}
	for i := range n {
		g.inOff[i+1] += g.inOff[i]
	}
	fill := slices.Clone(g.inOff[:n])
	for s := range int32(n) {
		for _, d := range g.outOf(s) {
			g.in[fill[d]] = s
			fill[d]++
		}
	}
}
