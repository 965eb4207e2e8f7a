package retrieval

import (
	"math"
	"testing"

	"github.com/gnosearch/gno/retrieval/fusion"
)

// TestRankInGroup: a document's rank counts only its own group's
// documents, each once; one missing from the list ranks past them all.
func TestRankInGroup(t *testing.T) {
	group := map[int64]string{1: "rust:tokio", 2: "rust:tokio", 3: "go:sync", 4: "go:sync", 5: "go:sync", 6: "swift:retry"}
	of := func(id int64) string { return group[id] }
	hits := []fusion.Hit{{DocID: 1}, {DocID: 2}, {DocID: 3}, {DocID: 1}, {DocID: 4}, {DocID: 4}, {DocID: 5}}
	for doc, want := range map[int64]int{3: 1, 4: 2, 5: 3, 1: 1, 2: 2, 6: math.MaxInt} {
		if got := rankInGroup(hits, doc, of); got != want {
			t.Errorf("rankInGroup(%d) = %d, want %d", doc, got, want)
		}
	}
	if got := rankInGroup(nil, 3, of); got != math.MaxInt {
		t.Errorf("empty list: %d, want none", got)
	}
}
