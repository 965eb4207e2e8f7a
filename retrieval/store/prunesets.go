package store

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/query"
)

// Exact top-k pruning by term sets, for questions of a few words (a
// known-item search: two or three title words and perhaps a rare one).
//
// prune.go's MaxScore splits the terms into rare and common and scores
// every row with a rare term. When a question's words are all of about the
// same frequency (at a million chunks, two title words each in 1–5 % of
// the rows) nothing is rare and every matching row is scored; when one is
// rarer, all its rows are. Yet BM25 is a sum over the phrases a row has: a
// row whose terms are the set S scores below bound(S), the sum of their
// bounds, so the rows that can reach the top k are those with enough of
// the terms together, and FTS5 finds a conjunction's rows by merging
// doclists without scoring them (at 100k chunks, counting the rows of a
// three-word OR takes 2 ms, scoring them 130 ms). The larger the index,
// the more documents have every word of a known-item question and the
// higher the k-th of them scores, so the fewer other rows can place: at
// 1M chunks, the bench's 20 known-item questions scored 38k rows in all,
// against 680k with MaxScore and 2.2M unpruned.
//
// The sets of terms are ordered by bound, most first; a pass scores the
// rows whose set is in the next stretch of that order (an FTS5 expression
// ORing the conjunctions of the stretch's minimal sets, less those scored
// before), always with the question's whole expression, so each score is
// exactly FTS5's; a stretch of one set (the first is usually the set of
// every term) is scored by that set's own expression instead, which gives
// the same scores to the bit without iterating every row of the ORed
// expression (setExpr). The first stretch is chosen, from each term's row count
// as if the terms were independent, to hold a few times k rows. Once k
// documents are found, their k-th score θ bounds from below the true k-th
// score: a row whose set bounds below θ cannot place, so one more pass
// over the sets bounding at or above θ completes the list. A stretch that
// yields fewer than k documents is followed by a longer one, down to every
// set (all matching rows scored, as the full search does).

// maxSetTerms is the most terms a question may have to be pruned by term
// sets: their sets number 2^n−1 and a stretch's expression grows with
// them. Longer questions (natural-language claims) are MaxScore's.
const maxSetTerms = 6

// setRows is how many rows, times k, the first stretch is chosen to hold:
// documents have one to a few chunks, and the independence estimate
// errs both ways.
const setRows = 4

// termSet is one set of a question's terms: a bit per term and the bound
// of the score of a row having exactly those terms.
type termSet struct {
	mask  uint
	bound float64
	est   float64
}

// searchSets returns the top documents of a question whose terms (with
// their row counts and bounds) are terms, over nRow rows, scoring only the
// rows whose set of terms can place, and ok=false when it cannot decide
// (the caller runs the full search).
func (s *Store) searchSets(ctx context.Context, q query.Keywords, terms []term, nRow int64, expr, rank, where string, fargs []any, limit int) ([]ChunkHit, bool, error) {
	var live []term
	for _, t := range terms {
		if t.hits > 0 {
			live = append(live, t)
		}
	}
	if len(live) == 0 {
		return nil, false, nil
	}
	sets := termSets(live, nRow)
	// placeable reports whether a row of set i might score theta (with a
	// margin for rounding, as prune.go's below).
	placeable := func(i int, theta float64) bool {
		return sets[i].bound*(1+1e-9)+1e-12 >= theta
	}
	var hits []ChunkHit
	scored := 0 // sets[:scored] have had their rows scored
	want := float64(setRows*limit + 10)
	for scored < len(sets) {
		end := scored + 1
		if len(hits) >= limit {
			theta := hits[limit-1].Score
			if !placeable(scored, theta) {
				s.prune.sets.Add(1)
				return hits, true, nil
			}
			for end < len(sets) && placeable(end, theta) {
				end++
			}
		} else {
			// Enough rows, by the estimate, for limit documents.
			got := 0.0
			for _, t := range sets[:scored] {
				got += t.est
			}
			for end = scored; end < len(sets); {
				got += sets[end].est
				end++
				if got >= want {
					break
				}
			}
			want *= 8
		}
		var h []ChunkHit
		var err error
		if end == scored+1 {
			// The rows of one set (at first, of every term): their own
			// expression scores them as the whole one does (setExpr).
			h, err = s.bestPerDoc(ctx, "chunks_fts", rank, setExpr(q, live, sets[scored].mask), where, fargs, limit)
		} else {
			sub := "(" + setsExpr(live, sets[:end]) + ")"
			if scored > 0 {
				sub += " NOT (" + setsExpr(live, sets[:scored]) + ")"
			}
			h, err = s.bestPerDocIn(ctx, "chunks_fts", rank, expr, pruneRestrict, []any{sub}, where, fargs, limit)
		}
		if err != nil {
			return nil, false, err
		}
		hits = mergeHits(hits, h, limit)
		scored = end
	}
	// Every matching row was scored.
	s.prune.sets.Add(1)
	return hits, true, nil
}

// termSets lists every non-empty set of terms by bound, highest first,
// with the number of rows having exactly that set as estimated from each
// term's share of the nRow rows, as if they were independent.
func termSets(terms []term, nRow int64) []termSet {
	n := len(terms)
	sets := make([]termSet, 0, 1<<n-1)
	for mask := uint(1); mask < 1<<n; mask++ {
		t := termSet{mask: mask, est: float64(nRow)}
		for i, tm := range terms {
			p := math.Min(1, float64(tm.hits)/float64(nRow))
			if mask&(1<<i) != 0 {
				t.bound += tm.bound
				t.est *= p
			} else {
				t.est *= 1 - p
			}
		}
		sets = append(sets, t)
	}
	// A superset bounds strictly more (every bound is positive), so each
	// prefix of this order holds the supersets of its sets.
	sort.SliceStable(sets, func(a, b int) bool { return sets[a].bound > sets[b].bound })
	return sets
}

// setsExpr renders the rows whose set of terms is one of sets (a prefix
// of termSets' order, so closed under supersets) as an FTS5 expression:
// the conjunctions of its minimal sets, ORed.
func setsExpr(terms []term, sets []termSet) string {
	var clauses []string
	for _, t := range sets {
		minimal := true
		for _, u := range sets {
			if u.mask != t.mask && u.mask&t.mask == u.mask {
				minimal = false
				break
			}
		}
		if !minimal {
			continue
		}
		var words []string
		for j, tm := range terms {
			if t.mask&(1<<j) != 0 {
				words = append(words, tm.text)
			}
		}
		clauses = append(clauses, "("+query.Keywords{Terms: words, All: true}.MatchExpr()+")")
	}
	return strings.Join(clauses, " OR ")
}

// setExpr renders the rows whose found terms are exactly those of mask
// (a bit per live term), and none of q's exclusions: the conjunction of
// those terms, in q's order, less every other term. FTS5's bm25() sums over
// the expression's phrases in their order and a phrase absent from a row
// adds exactly zero, so over these rows it equals the ORed expression's
// score to the bit, without iterating every row the ORed expression
// matches (TestSetSearchExact).
func setExpr(q query.Keywords, live []term, mask uint) string {
	in := map[string]bool{}
	k := query.Keywords{All: true}
	for i, t := range live {
		if mask&(1<<i) != 0 {
			in[t.text] = true
		} else {
			k.Excludes = append(k.Excludes, t.text)
		}
	}
	for _, t := range q.Terms {
		if in[t] {
			k.Terms = append(k.Terms, t)
		}
	}
	k.Excludes = append(k.Excludes, q.Excludes...)
	return k.MatchExpr()
}
