package store

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/query"
)

// TestSetSearchExact checks that pruning by term sets returns exactly the
// full search's documents, chunks and scores, in order, for questions of
// two to six words of alike frequency (where MaxScore has nothing to
// split), with exclusions, limits and a filter, and that it runs.
func TestSetSearchExact(t *testing.T) {
	st, words := zipfStore(t, 1500, 3000, 11)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 50 {
		// Words of one frequency band: the skew between them stays
		// under pruneSkew, so commonTerms finds no split.
		lo := []int{8, 20, 60, 200}[i%4]
		var terms []string
		for range 2 + r.IntN(maxSetTerms-1) {
			terms = append(terms, words[lo+r.IntN(lo)])
		}
		text := strings.Join(terms, " ")
		if i%6 == 0 {
			text += " -" + words[r.IntN(40)]
		}
		checkExact(t, st, text)
	}
	if n := st.prune.sets.Load(); n == 0 {
		t.Errorf("no question was pruned by term sets")
	} else {
		t.Logf("%d searches pruned by term sets", n)
	}
}

// TestTermSets checks the order of the sets (bound, highest first, every
// superset before its subsets) and the expression of a prefix (its
// minimal sets' conjunctions).
func TestTermSets(t *testing.T) {
	terms := []term{{"a", 10, 3}, {"b", 40, 2}, {"c", 90, 1}}
	sets := termSets(terms, 1000)
	if len(sets) != 7 {
		t.Fatalf("%d sets, want 7", len(sets))
	}
	for i, s := range sets {
		for _, u := range sets[i+1:] {
			if s.mask&u.mask == s.mask && s.mask != u.mask {
				t.Errorf("set %b comes before its superset %b", s.mask, u.mask)
			}
		}
		if i > 0 && s.bound > sets[i-1].bound {
			t.Errorf("set %b bounds %v, more than the one before it", s.mask, s.bound)
		}
	}
	// abc 6, ab 5, ac 4, a 3 | bc 3, b 2, c 1: the prefix of bound ≥ 3
	// is the rows with a, or with b and c.
	got := setsExpr(terms, sets[:5])
	if got != `("a") OR ("b" AND "c")` {
		t.Errorf("setsExpr = %s", got)
	}
	if e := sets[0].est; e <= 0 || e >= 1000*0.01 {
		t.Errorf("estimate of abc = %v", e)
	}
}

// BenchmarkSetSearch times two- and three-word questions of alike
// frequency on a Zipf corpus of 10,000 documents, pruned by term sets
// (SearchFTS) and in full.
func BenchmarkSetSearch(b *testing.B) {
	ctx := context.Background()
	st, words := zipfStore(b, 10000, 20000, 13)
	var qs []query.Keywords
	for i := range 20 {
		lo := []int{150, 400}[i%2]
		qs = append(qs, query.Parse(words[lo+i]+" "+words[lo+i+7]+strings.Repeat(" "+words[2*lo+i], i%2)))
	}
	rank := "bm25(chunks_fts, " + bm25Weights + ")"
	b.Run("sets", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := st.SearchFTS(ctx, qs[i%len(qs)], Filter{}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			q := qs[i%len(qs)]
			if _, err := st.bestPerDoc(ctx, "chunks_fts", rank, q.MatchExpr(), "", nil, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
}
