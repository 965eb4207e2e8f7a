package ingest

import "github.com/gnosearch/gno/retrieval/store"

// goneDoc is a document whose file a sync did not find.
type goneDoc struct {
	rel string
	id  int64
}

// mergeStates walks the found files (cands, sorted by path as walk
// leaves them) and the index's documents (list, in the same byte order)
// side by side: each file is passed to see with its document's state, or
// ok false when it has none; the documents no file matched are returned.
// It holds no map of every path: an unchanged sync of a million files is
// this loop and the walk (bench/RESULTS.md, issue 30).
func mergeStates(cands []candidate, list *store.StateList, see func(c candidate, s store.DocState, ok bool)) []goneDoc {
	var gone []goneDoc
	j, n := 0, list.Len()
	for _, c := range cands {
		for j < n && list.Compare(j, c.rel) < 0 {
			gone = append(gone, goneDoc{list.Rel(j), list.State(j).ID})
			j++
		}
		if j < n && list.Compare(j, c.rel) == 0 {
			see(c, list.State(j), true)
			j++
			continue
		}
		see(c, store.DocState{}, false)
	}
	for ; j < n; j++ {
		gone = append(gone, goneDoc{list.Rel(j), list.State(j).ID})
	}
	return gone
}
