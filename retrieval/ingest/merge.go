package ingest

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/gnosearch/gno/retrieval/store"
)

// goneDoc is a document whose file a sync did not find.
type goneDoc struct {
	rel string
	id  int64
}

// mergeStates walks the found files (cands, sorted by path as walk
// leaves them) and the index's documents (list, in the same byte order)
// side by side: each file is passed to see with its document's state, or
// ok false when it has none; the documents no file matched are returned,
// except those under a folder the walk could not read (unreadable): their
// files are unknown, and a passing error (EACCES, NFS) must not delete a
// subtree from the index. It holds no map of every path: an unchanged
// sync of a million files is this loop and the walk (bench/RESULTS.md,
// issue 30).
func mergeStates(cands []candidate, unreadable []string, list *store.StateList, see func(c candidate, s store.DocState, ok bool)) []goneDoc {
	var gone []goneDoc
	lost := func(j int) {
		if rel := list.Rel(j); !under(rel, unreadable) {
			gone = append(gone, goneDoc{rel, list.State(j).ID})
		}
	}
	j, n := 0, list.Len()
	for _, c := range cands {
		for j < n && list.Compare(j, c.rel) < 0 {
			lost(j)
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
		lost(j)
	}
	return gone
}

// under reports whether the file rel is inside one of the folders dirs
// (slash-separated, relative to the same root). It is asked only of the
// documents a sync did not find, and dirs is usually empty.
func under(rel string, dirs []string) bool {
	for _, d := range dirs {
		if len(rel) > len(d) && rel[len(d)] == '/' && rel[:len(d)] == d {
			return true
		}
	}
	return false
}

// mergeParts merges the walk's folders, each sorted by path, into one
// list sorted by path (n files in all). A folder's files are taken as a
// run while they sort before every other folder's next file, so a tree
// whose files sit in leaf folders costs about one comparison per folder,
// and a folder beside its subfolders' files costs what a heap merge does:
// less than sorting the whole list again (bench/RESULTS.md, issue 30).
func mergeParts(parts [][]candidate, n int) []candidate {
	out := make([]candidate, 0, n)
	h := partHeap(parts)
	heap.Init(&h)
	for len(h) > 0 {
		p := h[0]
		// The smallest next file of the other folders bounds the run.
		k := len(p)
		if len(h) > 1 {
			next := h[1][0].rel
			if len(h) > 2 && h[2][0].rel < next {
				next = h[2][0].rel
			}
			k, _ = slices.BinarySearchFunc(p, next, func(c candidate, rel string) int { return strings.Compare(c.rel, rel) })
			k = max(k, 1) // p[0] <= next
		}
		// A folder listed twice was walked twice: its files come again
		// in a second part, each right after its first copy.
		if len(out) > 0 && out[len(out)-1].rel == p[0].rel {
			p, k = p[1:], k-1
		}
		out = append(out, p[:k]...)
		if k == len(p) {
			heap.Pop(&h)
			continue
		}
		h[0] = p[k:]
		heap.Fix(&h, 0)
	}
	return out
}

// partHeap is a min-heap of sorted non-empty folders by their first path.
type partHeap [][]candidate

func (h partHeap) Len() int           { return len(h) }
func (h partHeap) Less(i, j int) bool { return h[i][0].rel < h[j][0].rel }
func (h partHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *partHeap) Push(x any)        { *h = append(*h, x.([]candidate)) }
func (h *partHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
