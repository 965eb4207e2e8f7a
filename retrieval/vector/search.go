package vector

import (
	"errors"
	"slices"
)

// Query is one search.
type Query struct {
	Vector []float32
	K      int
	// Filter, when set, admits keys; only admitted keys are returned.
	Filter func(key int64) bool
	// Admitted estimates how many keys pass Filter (0 = unknown); a small
	// count goes straight to an exact scan.
	Admitted int
	// Exact, when set, gives the full-precision vectors of keys (nil for
	// a key it no longer has): a saved graph (Graph) walks int8 codes and
	// re-scores its best candidates with these.
	Exact func(keys []int64) ([][]float32, error)
}

// Search returns up to q.K hits, best first. With a filter, the walk
// widens until it finds K admitted keys, and falls back to an exact scan
// when the admitted set is small or the walk grows to half the index. A
// q8 index (NewQuantized) scores by codes and, given q.Exact, re-scores
// its best candidates with the exact vectors, as a saved graph does.
func (ix *Index) Search(q Query) ([]Hit, error) {
	if err := ix.check(q.Vector); err != nil {
		return nil, err
	}
	if q.K <= 0 {
		return nil, nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.q8 || q.Exact == nil {
		return ix.search(q), nil
	}
	wide := q
	wide.K = rescoreDepth(ix.params, q.K)
	return rescore(q, ix.search(wide), ix.dims)
}

func (ix *Index) search(q Query) []Hit {
	if len(ix.byKey) == 0 {
		return nil
	}
	if ix.flat || q.Filter != nil && q.Admitted > 0 && q.Admitted < ix.params.ExactBelow {
		return ix.exact(q)
	}
	vs := ix.getVisited()
	defer ix.visited.Put(vs)
	ep := ix.entry
	for l := ix.top; l > 0; l-- {
		ep = ix.greedy(q.Vector, ep, l)
	}
	ef := max(q.K, ix.params.EfSearch)
	if q.Filter != nil {
		ef *= 2 // rejected nodes take places in the candidate list
	}
	for {
		if ef >= len(ix.keys)/2 {
			return ix.exact(q)
		}
		cands := ix.searchLayer(q.Vector, ep, ef, 0, vs)
		hits := make([]Hit, 0, q.K)
		for _, c := range cands {
			if ix.dead[c.id] || (q.Filter != nil && !q.Filter(ix.keys[c.id])) {
				continue
			}
			hits = append(hits, Hit{Key: ix.keys[c.id], Score: 1 - c.dist})
			if len(hits) == q.K {
				return hits
			}
		}
		if len(cands) < ef { // the whole reachable graph was seen
			return hits
		}
		ef *= 4
	}
}

// SearchExact scans every vector: the reference for recall, and the path
// for small filtered sets.
func (ix *Index) SearchExact(q Query) ([]Hit, error) {
	if err := ix.check(q.Vector); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.exact(q), nil
}

func (ix *Index) exact(q Query) []Hit {
	if q.K <= 0 {
		return nil
	}
	var top []Hit // best K so far, best first
	for i, key := range ix.keys {
		if ix.dead[i] || (q.Filter != nil && !q.Filter(key)) {
			continue
		}
		top = pushTop(top, Hit{Key: key, Score: 1 - ix.dist(q.Vector, int32(i))}, q.K)
	}
	return top
}

// pushTop adds h to top, the best k hits so far, best first.
func pushTop(top []Hit, h Hit, k int) []Hit {
	if len(top) == k && !better(h, top[len(top)-1]) {
		return top
	}
	at, _ := slices.BinarySearchFunc(top, h, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	top = slices.Insert(top, at, h)
	if len(top) > k {
		top = top[:k]
	}
	return top
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Key < b.Key
}

// visitSet marks nodes seen in one search without clearing a big array
// each time: a node is visited when its stamp equals the current one.
type visitSet struct {
	stamp []uint32
	cur   uint32
}

func (ix *Index) getVisited() *visitSet {
	if v, ok := ix.visited.Get().(*visitSet); ok {
		return v
	}
	return &visitSet{}
}

func (v *visitSet) reset(n int) {
	if len(v.stamp) < n {
		v.stamp = append(v.stamp, make([]uint32, n-len(v.stamp))...)
	}
	v.cur++
	if v.cur == 0 { // wrapped: clear once
		clear(v.stamp)
		v.cur = 1
	}
}

// mark reports whether i was unvisited, and marks it.
func (v *visitSet) mark(i int32) bool {
	if v.stamp[i] == v.cur {
		return false
	}
	v.stamp[i] = v.cur
	return true
}

// candHeap is a binary heap of candidates ordered by less.
type candHeap struct {
	items []cand
	less  func(a, b cand) bool
}

func (h *candHeap) len() int    { return len(h.items) }
func (h *candHeap) peek() cand  { return h.items[0] }
func (h *candHeap) push(c cand) { h.items = append(h.items, c); h.up(len(h.items) - 1) }

func (h *candHeap) pop() cand {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h *candHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *candHeap) down(i int) {
	n := len(h.items)
	for {
		l, best := 2*i+1, i
		if l < n && h.less(h.items[l], h.items[best]) {
			best = l
		}
		if r := l + 1; r < n && h.less(h.items[r], h.items[best]) {
			best = r
		}
		if best == i {
			return
		}
		h.items[i], h.items[best] = h.items[best], h.items[i]
		i = best
	}
}

// ErrStale means a persisted index was made for another model or
// dimension; rebuild it from the stored vectors.
var ErrStale = errors.New("vector index is stale")
