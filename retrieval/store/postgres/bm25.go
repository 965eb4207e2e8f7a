package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"modernc.org/libc"
)

// BM25 as SQLite's FTS5 computes it (fts5_aux.c), so a search ranks the
// same on both backends.
//
// The query package renders a search as FTS5 match expressions
// (query.Keywords.MatchExpr, SegmentExpr); this file parses them back, cuts
// each quoted string with the index's tokenizer (tokens.go) and turns the
// expression into a tsquery, which the chunks' GIN-indexed tsvector
// answers: the candidate rows. Each row's score is FTS5's
//
//	Σ over the expression's phrases p:  idf(p) · f(p)·(k1+1) / (f(p) + k1·(1 − b + b·len/avglen))
//
// where f(p) is p's frequency in the row, each occurrence weighted by its
// column (title 2, headings 1.5, body 1: the tsvector's weights A, B, D),
// len the row's tokens, idf(p) = ln((N − n(p) + 0.5)/(n(p) + 0.5)) (at
// least 1e-6), N and avglen the index's rows and mean length (fts_stats)
// and n(p) the rows holding p (its blocks' n for a word; counted for a prefix
// or a phrase of several words). All of them are read in the search's
// snapshot, so they agree with the rows scored.
//
// Two approximations, both for rare queries: a phrase of several words
// counts, in a row, the frequency of its least frequent word (FTS5 counts
// the phrase's occurrences), and a prefix (a one-character CJK gram) the
// frequency of all the words it begins.

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// SearchFTS returns the best chunk of each of the top documents matching
// q under f, ordered by BM25, all its passes in one snapshot.
func (s *Store) SearchFTS(ctx context.Context, q query.Keywords, f store.Filter, limit int) ([]store.ChunkHit, error) {
	return readIn(ctx, s, func(ctx context.Context) ([]store.ChunkHit, error) {
		var hits []store.ChunkHit
		// segEmpty: the word search saw the segmented index empty (no
		// chunk with unspaced script), so searching it finds nothing.
		segEmpty := false
		if expr := q.MatchExpr(); expr != "" && !q.NeedsSegmented() {
			h, empty, err := s.search(ctx, ixWords, expr, f, limit)
			segEmpty = empty
			if err != nil {
				return nil, err
			}
			if ex := q.SegExcludeExpr(); ex != "" && len(h) > 0 {
				if h, err = s.dropMatching(ctx, h, ex); err != nil {
					return nil, err
				}
			}
			hits = h
		}
		if expr := q.SegmentExpr(); expr != "" && !segEmpty {
			h, _, err := s.search(ctx, ixSeg, expr, f, limit)
			if err != nil {
				return nil, err
			}
			hits = store.MergeHits(hits, h, limit)
		}
		return hits, nil
	})
}

// column names index ix's tsvector and length columns.
func column(ix int) (tsv, length string) {
	if ix == ixSeg {
		return "seg", "seg_len"
	}
	return "tsv", "len"
}

// search runs one FTS5 expression over index ix. segEmpty reports that
// the segmented index was seen empty in the same snapshot (only a search
// of words that found something says so: a round trip saved per search
// of a corpus without unspaced script).
func (s *Store) search(ctx context.Context, ix int, expr string, f store.Filter, limit int) (hits []store.ChunkHit, segEmpty bool, err error) {
	e, err := parseExpr(expr)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if err := s.tokenizeExpr(ctx, ix, e); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	tsq, ok := e.tsquery()
	if !ok {
		return nil, false, nil
	}
	phrases := e.phrases(nil)
	tsvCol, _ := column(ix)
	if e.words() {
		return s.searchWords(ctx, ix, e, tsq, f, limit)
	}
	var nRows, nTokens int64
	if err := s.one(ctx, "SELECT rows, tokens FROM fts_stats WHERE ix = $1", []any{ix}, &nRows, &nTokens); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if nRows == 0 {
		return nil, false, nil
	}
	avg := float64(nTokens) / float64(nRows)
	idf, err := s.idfs(ctx, ix, phrases, nRows)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	var words []string
	args := []any{ix, nil}
	termCond := "p.term = ANY($2)"
	for _, p := range phrases {
		for i, t := range p.tokens {
			if p.prefix && i == len(p.tokens)-1 {
				// A prefix is a range of the postings' "C"-ordered terms.
				args = append(args, t, t+"\U0010FFFF")
				termCond += " OR p.term >= $" + strconv.Itoa(len(args)-1) + " AND p.term < $" + strconv.Itoa(len(args))
			} else {
				words = append(words, t)
			}
		}
	}
	if words == nil {
		words = []string{}
	}
	args[1] = words
	// The candidates' postings of the query's words. An expression of
	// ORed words over the whole index matches exactly the chunks that
	// have postings; anything else (a phrase, AND, NOT, a filter) also
	// asks the chunk's tsvector (and its document).
	q := "SELECT p.chunk_id, p.len, p.term, p.wf FROM " + postingsFrom + " p WHERE p.ix = $1 AND (" + termCond + ")"
	if w, _ := where(f, 1); w != "" || !e.plainOr() {
		args = append(args, tsq)
		q = "SELECT p.chunk_id, p.len, p.term, p.wf FROM " + postingsFrom + " p JOIN chunks c ON c.id = p.chunk_id"
		if w != "" {
			q += " JOIN documents d ON d.id = c.doc_id"
		}
		q += " WHERE p.ix = $1 AND (" + termCond + ") AND c." + tsvCol + " @@ $" + strconv.Itoa(len(args)) + "::tsquery"
		w, fargs := where(f, len(args)+1)
		q += w
		args = append(args, fargs...)
	}
	type rowFreq struct {
		length int
		freq   map[string]float64
	}
	rows := map[int64]*rowFreq{}
	err = s.each(ctx, q, args, func(r pgx.Rows) error {
		var id int64
		var n int
		var lex string
		var wf float64
		if err := r.Scan(&id, &n, &lex, &wf); err != nil {
			return err
		}
		rf := rows[id]
		if rf == nil {
			rf = &rowFreq{length: n, freq: map[string]float64{}}
			rows[id] = rf
		}
		rf.freq[lex] = wf
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	best := docBest{}
	for id, rf := range rows {
		score := 0.0
		for i, p := range phrases {
			fr := p.freq(rf.freq)
			if fr == 0 {
				continue
			}
			score += bm25Part(idf[i], fr, float64(rf.length), avg)
		}
		best.add(id, score)
	}
	return best.top(limit), false, nil
}

// docBest keeps each document's best chunk: the highest score, the lowest
// id of equal scores (as FTS5's search picks it).
type docBest map[int64]store.ChunkHit

func (b docBest) add(id int64, score float64) {
	doc := store.DocOfChunk(id)
	if cur, ok := b[doc]; !ok || score > cur.Score || score == cur.Score && id < cur.ChunkID {
		b[doc] = store.ChunkHit{ChunkID: id, DocID: doc, Score: score}
	}
}

// top returns the best chunks of the limit best documents, in order.
func (b docBest) top(limit int) []store.ChunkHit {
	out := make([]store.ChunkHit, 0, len(b))
	for _, h := range b {
		out = append(out, h)
	}
	return store.TopHits(out, limit)
}

// idfs returns each phrase's IDF: FTS5's, from the rows holding it.
func (s *Store) idfs(ctx context.Context, ix int, phrases []*phrase, nRows int64) ([]float64, error) {
	var words []string
	for _, p := range phrases {
		if p.single() {
			words = append(words, p.tokens[0])
		}
	}
	df := map[string]int64{}
	if len(words) > 0 {
		err := s.each(ctx, "SELECT term, sum(n) FROM fts_blocks WHERE ix = $1 AND term = ANY($2) GROUP BY term", []any{ix, words}, func(r pgx.Rows) error {
			var t string
			var n int64
			err := r.Scan(&t, &n)
			df[t] = n
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	tsvCol, _ := column(ix)
	tls := libc.NewTLS()
	defer tls.Close()
	out := make([]float64, len(phrases))
	for i, p := range phrases {
		var n int64
		if p.single() {
			n = df[p.tokens[0]]
		} else if len(p.tokens) > 0 {
			// The rows holding the phrase are among those with a posting
			// of its first word (or its prefix's range).
			cond, args := "p.term = $2", []any{ix, p.tokens[0], p.tsquery()}
			if p.prefix && len(p.tokens) == 1 {
				cond, args = "p.term >= $2 AND p.term < $4", append(args, p.tokens[0]+"\U0010FFFF")
			}
			if err := s.one(ctx, `SELECT count(*) FROM chunks c WHERE c.id IN (SELECT p.chunk_id FROM `+postingsFrom+` p WHERE p.ix = $1 AND `+cond+`)
				AND c.`+tsvCol+" @@ $3::tsquery", args, &n); err != nil {
				return nil, err
			}
		}
		out[i] = fts5IDF(tls, nRows, n)
	}
	return out, nil
}

// dropMatching removes the hits whose chunk matches expr in the segmented
// index (an exclusion the word index cannot evaluate).
func (s *Store) dropMatching(ctx context.Context, hits []store.ChunkHit, expr string) ([]store.ChunkHit, error) {
	e, err := parseExpr(expr)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := s.tokenizeExpr(ctx, ixSeg, e); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	tsq, ok := e.tsquery()
	if !ok {
		return hits, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	drop, err := s.ids(ctx, "SELECT id FROM chunks WHERE id = ANY($1) AND seg @@ $2::tsquery", ids, tsq)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := hits[:0]
	for _, h := range hits {
		if !drop[h.ChunkID] {
			out = append(out, h)
		}
	}
	return out, nil
}

// tokenizeExpr cuts every phrase of e with index ix's tokenizer, in one
// call.
func (s *Store) tokenizeExpr(ctx context.Context, ix int, e *node) error {
	ps := e.phrases(nil)
	rows := make([]row, len(ps))
	for i, p := range ps {
		rows[i] = row{"", "", p.text}
	}
	toks, err := s.tok.tokenize(ctx, ix, rows)
	if err != nil {
		return err
	}
	for i, p := range ps {
		p.tokens = p.tokens[:0]
		for _, t := range toks[i] {
			p.tokens = append(p.tokens, t.term)
		}
	}
	return nil
}
