package store

import "sort"

// The search over the block-max postings keeps its best documents here.

// impactTop holds the best chunk of the best documents found so far.
type impactTop struct {
	limit int
	list  []ChunkHit
	best  map[int64]int // document → index in list
}

// theta is the k-th document's score, or 0 before k are found.
func (t *impactTop) theta() float64 {
	if len(t.list) < t.limit {
		return 0
	}
	return t.list[t.limit-1].Score
}

// better orders hits as the search returns them: score, then chunk id.
func better(a, b ChunkHit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ChunkID < b.ChunkID
}

// add offers a row's score.
func (t *impactTop) add(row int64, score float64) {
	h := ChunkHit{ChunkID: row, DocID: DocOfChunk(row), Score: score}
	if i, ok := t.best[h.DocID]; ok {
		if !better(h, t.list[i]) {
			return
		}
		t.list[i] = h
	} else {
		if len(t.list) >= t.limit && !better(h, t.list[len(t.list)-1]) {
			return
		}
		t.list = append(t.list, h)
	}
	sort.SliceStable(t.list, func(a, b int) bool { return better(t.list[a], t.list[b]) })
	if len(t.list) > t.limit {
		t.list = t.list[:t.limit]
	}
	clear(t.best)
	for i, x := range t.list {
		t.best[x.DocID] = i
	}
}

// hits returns the documents found, best first.
func (t *impactTop) hits() []ChunkHit { return t.list }
