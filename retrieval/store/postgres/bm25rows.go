package postgres

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"math"
	"slices"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// maxCells caps the room newWordRows makes at once, in rows × words
// (4 MiB of weighted frequencies): a question of many words gets room
// for fewer rows, and more as they come.
const maxCells = 1 << 19

// wordRows are the candidate rows: each one's id, length and each query
// word's weighted frequency in it (0: absent or not read yet), in flat
// slices (a search holds thousands).
type wordRows struct {
	n    int // words
	at   map[int64]int
	ids  []int64
	lens []int32
	wf   []float64 // row r's words at [r*n, (r+1)*n)
	// touched: the rows set since they were last scored (mark[r]: r is
	// in it), so a search of many words and rows scores each row again
	// only when a word it holds was read, not after every word.
	touched []int
	mark    []bool
}

// newWordRows holds the rows of a search of words; hint: about how many
// it may hold (room made at once: growing a map and slices of tens of
// thousands of rows was a third of a long question's CPU), at most
// maxRows rows and maxCells rows × words.
func newWordRows(words int, hint int64) *wordRows {
	h := int(min(max(hint, 0), maxRows, maxCells/int64(max(words, 1))))
	return &wordRows{n: words, at: make(map[int64]int, h), ids: make([]int64, 0, h), lens: make([]int32, 0, h),
		wf: make([]float64, 0, h*words), mark: make([]bool, 0, h)}
}

// add is set, unless it would hold more than maxRows rows.
func (w *wordRows) add(id int64, n int32, k int, wf float64) error {
	if r, ok := w.at[id]; ok {
		w.setAt(r, k, wf)
		return nil
	}
	if int64(len(w.ids)) >= maxRows {
		return errTooManyRows
	}
	w.set(id, n, k, wf)
	return nil
}

// set records word k's weighted frequency wf in row id of length n.
func (w *wordRows) set(id int64, n int32, k int, wf float64) {
	r, ok := w.at[id]
	if !ok {
		r = len(w.ids)
		w.at[id] = r
		w.ids = append(w.ids, id)
		w.lens = append(w.lens, n)
		w.mark = append(w.mark, false)
		for range w.n {
			w.wf = append(w.wf, 0)
		}
	}
	w.setAt(r, k, wf)
}

// setAt records word k's weighted frequency wf in row r.
func (w *wordRows) setAt(r, k int, wf float64) {
	w.wf[r*w.n+k] = wf
	if !w.mark[r] {
		w.mark[r] = true
		w.touched = append(w.touched, r)
	}
}

// only keeps the rows ids (which it holds).
func (w *wordRows) only(ids []int64) *wordRows {
	out := &wordRows{n: w.n, at: make(map[int64]int, len(ids)), ids: make([]int64, 0, len(ids)), lens: make([]int32, 0, len(ids)), wf: make([]float64, 0, len(ids)*w.n),
		touched: make([]int, len(ids)), mark: make([]bool, len(ids))}
	for i, id := range ids {
		r := w.at[id]
		out.touched[i], out.mark[i] = i, true // all to be scored
		out.at[id] = len(out.ids)
		out.ids = append(out.ids, id)
		out.lens = append(out.lens, w.lens[r])
		out.wf = append(out.wf, w.wf[r*w.n:(r+1)*w.n]...)
	}
	return out
}

// kthDocScore is the score of the limit-th best document among the rows
// ids scored sc (each document's best row), 0 when fewer documents have
// rows. The best 4·limit rows are looked at first (a heap, not a map of
// every document: a search holds tens of thousands of rows); only when
// they hold fewer than limit documents are all of them.
func kthDocScore(ids []int64, sc []float64, limit int) float64 {
	if limit <= 0 {
		return 0
	}
	if m := 4 * limit; len(ids) > 2*m {
		h := topRows{}
		for r, v := range sc {
			if len(h) < m {
				heap.Push(&h, scored{v, r})
			} else if v > h[0].v {
				h[0] = scored{v, r}
				heap.Fix(&h, 0)
			}
		}
		slices.SortFunc(h, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
		seen := make(map[int64]bool, limit)
		for _, x := range h {
			// In order of score, a document's first row is its best.
			if doc := store.DocOfChunk(ids[x.r]); !seen[doc] {
				seen[doc] = true
				if len(seen) == limit {
					return x.v
				}
			}
		}
	}
	best := make(map[int64]float64, len(ids))
	for r, id := range ids {
		doc := store.DocOfChunk(id)
		if v, ok := best[doc]; !ok || sc[r] > v {
			best[doc] = sc[r]
		}
	}
	if len(best) < limit {
		return 0
	}
	top := make([]float64, 0, len(best))
	for _, v := range best {
		top = append(top, v)
	}
	slices.Sort(top)
	return top[len(top)-limit]
}

// scored is row r's score v.
type scored struct {
	v float64
	r int
}

// topRows is a min-heap of scored rows.
type topRows []scored

func (h topRows) Len() int           { return len(h) }
func (h topRows) Less(i, j int) bool { return h[i].v < h[j].v }
func (h topRows) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topRows) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topRows) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scanPosting reads a row of (chunk_id, len, term, wf): from the binary
// values as they came (a search reads thousands; term is valid until the
// next row), else through Scan.
func scanPosting(r pgx.Rows) (id int64, n int32, term []byte, wf float64, err error) {
	raw, fd := r.RawValues(), r.FieldDescriptions()
	if len(raw) == 4 && len(fd) == 4 && fd[0].Format == pgx.BinaryFormatCode && fd[1].Format == pgx.BinaryFormatCode &&
		fd[3].Format == pgx.BinaryFormatCode && len(raw[0]) == 8 && len(raw[1]) == 4 && len(raw[3]) == 8 && raw[2] != nil {
		return int64(binary.BigEndian.Uint64(raw[0])), int32(binary.BigEndian.Uint32(raw[1])), raw[2],
			math.Float64frombits(binary.BigEndian.Uint64(raw[3])), nil
	}
	err = r.Scan(&id, &n, &term, &wf)
	return id, n, term, wf, err
}
