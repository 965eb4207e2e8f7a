package store

import (
	"math/bits"
	"slices"
	"sync/atomic"
)

// The engine keeps a graph of the links (and its PageRank) beside the
// link index. At a million documents building it again after every sync
// cost seconds of CPU while the link index itself follows a sync by an
// overlay (linkoverlay.go); LinkGraphSince lets the graph follow the
// same way: an index that overlays the same flat base as the one the
// graph was built from differs from it only in the documents either
// overlay touched, so only those documents' nodes and links are read.

// flatGens numbers the flat link indexes a process builds (LinkIndex.gen),
// so that a caller can tell whether two indexes share their base without
// holding on to one.
var flatGens atomic.Uint64

// LinkGraphDelta is the link graph of an index, whole or as the change
// to a graph built from an earlier index of the same base.
type LinkGraphDelta struct {
	// Base names the flat index the index overlays (itself when it has
	// no overlay); Touched lists, ascending, the documents whose presence
	// or resolved links may differ from that base's. A caller keeps both
	// for its next LinkGraphSince.
	Base    uint64
	Touched []int64
	// Full: Nodes and Edges are the whole graph, as LinkGraph(nil) gives
	// it. Otherwise Changed lists, ascending, the documents whose node
	// and links may differ from the graph built at the caller's base and
	// touched (both overlays' touched documents); Nodes are those of them
	// in the index, Edges their links (to any document, self-links left
	// out, parallel links kept).
	Full    bool
	Changed []int64
	Nodes   []int64
	Edges   [][2]int64
}

// baseGen is the generation of the flat index idx overlays (its own
// when it has no overlay).
func (idx *LinkIndex) baseGen() uint64 {
	if idx.ov != nil {
		return idx.ov.base.gen
	}
	return idx.gen
}

// touched lists, ascending, the documents whose presence or links may
// differ from the base's: the documents put since it, the base documents
// hidden (changed or removed), and the base documents whose links were
// resolved again.
func (idx *LinkIndex) touched() []int64 {
	ov := idx.ov
	if ov == nil {
		return nil
	}
	out := slices.Clone(ov.byID)
	for w, word := range ov.goneDoc {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			out = append(out, ov.base.docs[w*64+b].id)
		}
	}
	for src := range ov.reres {
		out = append(out, src)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LinkGraphSince returns the link graph as the change to one built from
// an index of flat base base whose touched documents were touched (the
// Base and Touched of the LinkGraphDelta it was built from); the whole
// graph (Full) when base is not this index's (0: no graph yet).
func (idx *LinkIndex) LinkGraphSince(base uint64, touched []int64) *LinkGraphDelta {
	d := &LinkGraphDelta{Base: idx.baseGen(), Touched: idx.touched()}
	if base == 0 || base != d.Base {
		d.Full = true
		d.Nodes, d.Edges = idx.LinkGraph(nil)
		return d
	}
	d.Changed = append(slices.Clone(touched), d.Touched...)
	slices.Sort(d.Changed)
	d.Changed = slices.Compact(d.Changed)
	for _, src := range d.Changed {
		if _, ok := idx.doc(src); !ok {
			continue
		}
		d.Nodes = append(d.Nodes, src)
		for _, l := range idx.outOf(src) {
			if l.dst != 0 && l.dst != src {
				d.Edges = append(d.Edges, [2]int64{src, l.dst})
			}
		}
	}
	return d
}

// LinkGraphAmong returns LinkGraph(nil)'s links whose two ends are both
// among ids (in any order: a sorted copy is searched), in the same
// order: what a drawing of a sample of the graph shows, without listing
// every link of the index.
func (idx *LinkIndex) LinkGraphAmong(ids []int64) [][2]int64 {
	ids = slices.Sorted(slices.Values(ids))
	in := func(id int64) bool { _, ok := slices.BinarySearch(ids, id); return ok }
	var edges [][2]int64
	idx.eachLinked(func(src int64, ls []resolvedLink) bool {
		if !in(src) {
			return true
		}
		for _, l := range ls {
			if l.dst != 0 && l.dst != src && in(l.dst) {
				edges = append(edges, [2]int64{src, l.dst})
			}
		}
		return true
	})
	return edges
}
