package vector

// The walk is shared by the graph being built (Index, float32 vectors in
// memory) and the saved graph (Graph, int8 codes in a mapped file): both
// are a view that gives a distance and a node's neighbours on a level.
type view interface {
	// dist is 1 - cosine similarity of q and node i.
	dist(q []float32, i int32) float32
	// neighbors lists node i's links on level; a saved graph answers
	// none, and remembers the damage, for a link it cannot trust.
	neighbors(i int32, level int) []int32
}

// greedy walks one layer to the node nearest q.
func greedy[V view](v V, q []float32, ep int32, level int) int32 {
	best, bestD := ep, v.dist(q, ep)
	for changed := true; changed; {
		changed = false
		for _, n := range v.neighbors(best, level) {
			if d := v.dist(q, n); d < bestD {
				best, bestD, changed = n, d, true
			}
		}
	}
	return best
}

// searchLayer is the paper's best-first search with a candidate list of
// size ef over a graph of size nodes; it returns up to ef nodes, nearest
// first (tombstones included, since they still route).
func searchLayer[V view](v V, q []float32, ep int32, ef, level, size int, vs *visitSet) []cand {
	vs.reset(size)
	vs.mark(ep)
	start := cand{ep, v.dist(q, ep)}
	frontier := candHeap{less: func(a, b cand) bool { return a.dist < b.dist }}
	results := candHeap{less: func(a, b cand) bool { return a.dist > b.dist }}
	frontier.push(start)
	results.push(start)
	for frontier.len() > 0 {
		c := frontier.pop()
		if c.dist > results.peek().dist && results.len() >= ef {
			break
		}
		for _, n := range v.neighbors(c.id, level) {
			if !vs.mark(n) {
				continue
			}
			d := v.dist(q, n)
			if results.len() < ef || d < results.peek().dist {
				frontier.push(cand{n, d})
				results.push(cand{n, d})
				if results.len() > ef {
					results.pop()
				}
			}
		}
	}
	out := results.items
	sortCands(out)
	return out
}
