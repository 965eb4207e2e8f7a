package store

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/gnosearch/gno/retrieval/query"
)

// Exact top-k pruning for ORed keyword queries (MaxScore).
//
// FTS5 computes bm25() for every row an expression matches before it can
// sort, and each computation looks up the row's column sizes: for a
// natural-language question over a large collection that is most of the
// search time (SciFact: FTS5's per-row document-size lookup was 60 % of
// the daemon's CPU for `gno search`), although the common words that make
// the match set large cannot lift a row into the top k on their own
// (SciFact claims: 2,526 matching chunks on average, 365 of them with a
// word found in under 5 % of chunks).
//
// Each phrase p adds less than idf(p)·(k1+1) to a row's score (FTS5's term
// frequency saturates below that bound whatever the column weights and
// lengths), so a row matching only the terms of a set L scores below
// bound(L), the sum of theirs. The search first scores only the rows with
// a rare term (always with the whole expression, so every score is
// exactly FTS5's). Its k-th document's score θ is a lower bound of the
// true k-th score; when θ > bound(common terms) the list is complete.
// Otherwise the terms whose bounds sum below θ are provably unable to
// place a row, and one more search over the rows not yet scored that have
// any other term completes it (each document keeps its best chunk of the
// two passes). A search that cannot be proven so (fewer than k documents)
// runs in full. A question of up to maxSetTerms words is pruned by the
// sets of terms its rows have instead (prunesets.go), which also prunes
// words alike in frequency, where MaxScore finds no split; this is for the
// longer ones (natural-language claims). TestPrunedSearchExact and
// TestSetSearchExact compare every outcome with the full search. The counts and the passes are separate statements; SearchFTS
// runs them in one read snapshot (Read, a deferred BEGIN that holds up no
// sync), so a sync committing meanwhile is seen by none of them.

// bm25K1 is FTS5's k1 (fts5_aux.c); a phrase adds at most idf·(k1+1).
const bm25K1 = 1.2

// pruneMinRows is the index size below which the full search is cheaper
// than counting each term's documents first.
const pruneMinRows = 2000

// pruneCommon is the share of rows above which a term is common: rows
// that have only common terms are not scored in the first pass.
const pruneCommon = 0.07

// pruneStats counts outcomes, for tests and benchmarks.
type pruneStats struct{ first, second, full, sets, impacts atomic.Int64 }

// term is one word of a question with the number of rows it matches and
// the bound of what it adds to a row's score.
type term struct {
	text  string
	hits  int64
	bound float64
}

// pruneRestrict limits the word index's rows to those matching a second
// expression.
const pruneRestrict = " AND +chunks_fts.rowid IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)"

// searchPruned returns the top documents of q (whose word-index
// expression is expr) scoring as few rows as it can prove enough, and
// ok=false when the full search must run (the caller runs it).
func (s *Store) searchPruned(ctx context.Context, q query.Keywords, expr, rank, where string, fargs []any, limit int) (hits []ChunkHit, ok bool, err error) {
	if q.All || len(q.Phrases) > 0 || len(q.Terms) < 2 {
		return nil, false, nil
	}
	nRow, nHit, err := s.termHits(ctx, q.Terms)
	if err != nil || nRow < pruneMinRows {
		return nil, false, err
	}
	terms := make([]term, len(q.Terms))
	for i, t := range q.Terms {
		idf := math.Log((float64(nRow) - float64(nHit[i]) + 0.5) / (float64(nHit[i]) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		terms[i] = term{t, nHit[i], idf * (bm25K1 + 1)}
	}
	if len(terms) <= maxSetTerms {
		// A question of a few words (prunesets.go).
		return s.searchSets(ctx, q, terms, nRow, expr, rank, where, fargs, limit)
	}
	sort.SliceStable(terms, func(a, b int) bool { return terms[a].bound < terms[b].bound })
	// search scores the rows matching a term of terms[from:to] and none of
	// terms[to:] (those were scored already).
	search := func(from, to int) ([]ChunkHit, error) {
		var rare, seen []string
		for _, t := range terms[from:to] {
			if t.hits > 0 {
				rare = append(rare, t.text)
			}
		}
		if len(rare) == 0 {
			return nil, nil
		}
		for _, t := range terms[to:] {
			seen = append(seen, t.text)
		}
		sub := query.Keywords{Terms: rare, Excludes: append(seen, q.Excludes...)}.MatchExpr()
		return s.bestPerDocIn(ctx, "chunks_fts", rank, expr, pruneRestrict, []any{sub}, where, fargs, limit)
	}
	// below returns how many of the cheapest terms bound less than theta
	// together (with a margin for rounding).
	below := func(theta float64) int {
		sum, n := 0.0, 0
		for n < len(terms) && (sum+terms[n].bound)*(1+1e-9)+1e-12 < theta {
			sum += terms[n].bound
			n++
		}
		return n
	}
	common := commonTerms(len(terms), func(i int) int64 { return terms[i].hits }, nRow)
	if common == 0 || common == len(terms) {
		return nil, false, nil
	}
	hits, err = search(common, len(terms))
	if err != nil || len(hits) < limit {
		return nil, false, err
	}
	n := below(hits[limit-1].Score)
	if n >= common {
		s.prune.first.Add(1)
		return hits, true, nil
	}
	if n == 0 {
		s.prune.full.Add(1)
		return nil, false, nil
	}
	// Terms n..common-1 can still place a row: score the rows that have
	// one of them and no rare term, and keep each document's best.
	more, err := search(n, common)
	if err != nil {
		return nil, false, err
	}
	s.prune.second.Add(1)
	return mergeHits(hits, more, limit), true, nil
}

// commonTerms chooses how many of the n terms (ordered by hits, most
// first) the first pass leaves out: those in more than pruneCommon of the
// rows, and, when none is, the fewest most frequent ones that match at
// least pruneSkew times the rows the remaining terms match together (at a
// million chunks, a question's words are all below 7 % yet one may match
// fifty times the rows of another, and every such row is scored). The
// choice only moves work between the passes: every outcome is proven or
// falls back to the full search.
func commonTerms(n int, hits func(int) int64, nRow int64) int {
	common := 0
	for common < n && float64(hits(common)) > pruneCommon*float64(nRow) {
		common++
	}
	if common > 0 {
		return common
	}
	for c := 1; c < n; c++ {
		var head, rest int64
		for i := range n {
			if i < c {
				head += hits(i)
			} else {
				rest += hits(i)
			}
		}
		if head >= pruneSkew*rest {
			return c
		}
	}
	return 0
}

// pruneSkew is how many times more rows the left-out terms must match
// than the others for a first pass without them to pay.
const pruneSkew = 4

// termHits returns the word index's row count as FTS5's bm25() sees it
// (the total in its averages record) and the number of rows matching each
// term, in one statement.
func (s *Store) termHits(ctx context.Context, terms []string) (int64, []int64, error) {
	var b strings.Builder
	b.WriteString("SELECT (SELECT block FROM chunks_fts_data WHERE id = 1)")
	args := make([]any, len(terms))
	for i, t := range terms {
		b.WriteString(", (SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?)")
		args[i] = query.Keywords{Terms: []string{t}}.MatchExpr()
	}
	dest := make([]any, 1+len(terms))
	var avg []byte
	dest[0] = &avg
	counts := make([]int64, len(terms))
	for i := range counts {
		dest[1+i] = &counts[i]
	}
	if err := s.db.QueryRowContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return 0, nil, fmt.Errorf("search: %w", err)
	}
	n, ok := fts5Varint(avg)
	if !ok {
		return 0, nil, nil
	}
	return int64(n), counts, nil
}

// fts5Varint decodes the SQLite varint at the start of b (FTS5's
// averages record begins with the table's row count in that format).
func fts5Varint(b []byte) (uint64, bool) {
	v, n := varintAt(b)
	return v, n > 0
}
