package vector

// Keys returns the keys of the live vectors, in no particular order, so a
// caller can reconcile the graph with the vectors it stores.
func (ix *Index) Keys() []int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]int64, 0, len(ix.byKey))
	for k := range ix.byKey {
		out = append(out, k)
	}
	return out
}
