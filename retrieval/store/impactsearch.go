package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gnosearch/gno/retrieval/query"
	"modernc.org/libc"
)

// The search over the block-max postings (impacts.go): document at a time
// in row order, MaxScore over the tokens (those whose bounds together
// cannot reach the k-th score found so far only probe the candidates of
// the others) and block-max bounds per candidate, rows scored exactly with
// their lengths read in batches.

// bm25B is FTS5's b (fts5_aux.c).
const bm25B = 0.75

// impactScoreBatch is how many candidates' lengths are read per statement.
const impactScoreBatch = 128

// bm25Part is what one phrase of idf adds to a row of weighted frequency f
// and length d, as fts5Bm25Function computes it (its k1 and b are runtime
// doubles: so are these, so that k1+1 rounds as there).
func bm25Part(idf, f, d, avgdl float64) float64 {
	k1, b := float64(bm25K1), float64(bm25B)
	return idf * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*d/avgdl)))
}

// impactToken is one distinct positive token of a question with its
// postings, the idf of each phrase that is this token, and a cursor.
type impactToken struct {
	tok    string
	data   []byte
	hdrs   []impactBlockHdr
	idfs   []float64 // one per phrase of this token
	phrase []int     // the phrases' positions in the expression
	ub     float64   // bound of what it adds to any row
	// cursor: block bi, decoded into ps (for block dec), position pi.
	bi, dec, pi int
	ps          []impactPosting
}

// part is what the token adds to a row with f2 and length d.
func (t *impactToken) part(f2 uint64, d, avgdl float64) float64 {
	s := 0.0
	for _, idf := range t.idfs {
		s += bm25Part(idf, float64(f2)/2, d, avgdl)
	}
	return s
}

// seek moves the cursor to the first posting at or after row without
// decoding the blocks it passes; it reports false at the end.
func (t *impactToken) seek(row int64) bool {
	for t.bi < len(t.hdrs) && t.hdrs[t.bi].last < row {
		t.bi++
		t.pi = 0
	}
	return t.bi < len(t.hdrs)
}

// load decodes the cursor's block and moves to the first posting at or
// after row within it.
func (t *impactToken) load(row int64) error {
	if t.dec != t.bi || t.ps == nil {
		var err error
		t.ps, err = decodeBlock(t.data, t.hdrs[t.bi], t.ps[:0])
		if err != nil {
			return err
		}
		t.dec = t.bi
		t.pi = 0
	}
	for t.pi < len(t.ps) && t.ps[t.pi].row < row {
		t.pi++
	}
	return nil
}

// impactCand is a row to score exactly: its weighted frequency per token.
type impactCand struct {
	row int64
	f2  []uint64
}

// searchImpacts returns the top documents of q from the block-max
// postings, and ok=false when they cannot answer it (not built or older
// than the index, a phrase, a word that is not one token): the caller then
// searches with FTS5. A filter (where, fargs: conditions on documents d)
// is checked for the rows scored. It runs in the caller's snapshot.
func (s *Store) searchImpacts(ctx context.Context, q query.Keywords, where string, fargs []any, limit int) ([]ChunkHit, bool, error) {
	if q.All || len(q.Phrases) > 0 || len(q.Terms) == 0 || limit <= 0 {
		return nil, false, nil
	}
	var built sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", impactsKey).Scan(&built); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if !built.Valid {
		return nil, false, nil
	}
	ver, avg, err := s.impactsVersion(ctx, s.db)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	nRow, nToken, ok := averages(avg)
	if !ok {
		return nil, false, nil
	}
	// The postings answer after syncs too, the changed rows masked and
	// scored apart (impactdelta.go). Postings of the first encoding (no
	// tag) are not read: the next build replaces them.
	builtRows, _, current := parseBuilt(built.String)
	if !current {
		return nil, false, nil
	}
	delta, ok, err := s.impactDeltaFor(ctx, built.String, ver, builtRows, nRow)
	if err != nil || !ok {
		return nil, false, err
	}
	// The expression's phrases: the terms, then the exclusions.
	words := append(append([]string(nil), q.Terms...), q.Excludes...)
	toks, err := s.tok.tokens(ctx, words)
	if err != nil {
		// The query tokenizer failed (an empty token, a cancelled context): FTS5 answers.
		return nil, false, nil
	}
	for _, t := range toks {
		if len(t) != 1 {
			return nil, false, nil
		}
	}
	var masked map[int64]bool
	if delta != nil {
		masked = delta.masked
	}
	data, err := s.impactData(ctx, toks, masked)
	if err != nil {
		return nil, false, err
	}
	if nRow <= 0 {
		nRow = 1
	}
	avgdl := float64(nToken) / float64(nRow)
	// FTS5's idf is musl's log as modernc's libc runs it, which rounds
	// differently from Go's math.Log in the last bit now and then.
	tls := libc.NewTLS()
	defer tls.Close()
	byTok := map[string]*impactToken{}
	var tokens []*impactToken
	for i, w := range toks[:len(q.Terms)] {
		t := byTok[w[0]]
		if t == nil {
			t = &impactToken{tok: w[0], data: data[w[0]], dec: -1}
			if t.hdrs, _, err = decodeHeaders(t.data); err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			byTok[w[0]] = t
			tokens = append(tokens, t)
		}
		// The token's current row count: the build's, less its changed
		// rows, plus the changed rows holding it now.
		df := int64(0)
		for _, h := range t.hdrs {
			df += int64(h.n)
		}
		if delta != nil {
			gone, err := delta.goneFrom(w[0], t.data, t.hdrs)
			if err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			df += int64(len(delta.post[w[0]])) - gone
		}
		idf := libc.Xlog(tls, (float64(nRow-df)+0.5)/(float64(df)+0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		t.idfs = append(t.idfs, idf)
		t.phrase = append(t.phrase, i)
	}
	excluded, err := impactExclusions(toks[len(q.Terms):], data)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	// A token with no built postings stays: the changed rows may hold it
	// (its bound 0, it is never essential to the built rows).
	for _, t := range tokens {
		t.ub = 0
		for _, h := range t.hdrs {
			t.ub = max(t.ub, t.part(h.maxF2, float64(h.minD), avgdl))
		}
	}
	sort.SliceStable(tokens, func(a, b int) bool { return tokens[a].ub < tokens[b].ub })
	top := &impactTop{limit: limit, best: map[int64]int{}}
	var pending []impactCand
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := s.scoreImpacts(ctx, pending, tokens, len(q.Terms), avgdl, where, fargs, top)
		pending = pending[:0]
		return err
	}
	if delta != nil {
		// The changed rows first, scored from their current tokens; the
		// built postings' copies of them are masked below.
		for _, c := range delta.candidates(tokens, toks[len(q.Terms):]) {
			pending = append(pending, c)
			if len(pending) >= impactScoreBatch {
				if err := flush(); err != nil {
					return nil, false, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, false, err
		}
	}
	below := func(bound float64) bool { return bound*(1+1e-9)+1e-12 < top.theta() }
	for {
		// The tokens before ess bound together below θ: a row having only
		// them cannot place, so candidates come from the others.
		ess, sum := 0, 0.0
		for ess < len(tokens) && below(sum+tokens[ess].ub) {
			sum += tokens[ess].ub
			ess++
		}
		if ess == len(tokens) {
			break
		}
		// The next candidate: the least row of the essential tokens.
		row := int64(math.MaxInt64)
		for _, t := range tokens[ess:] {
			if t.bi >= len(t.hdrs) {
				continue
			}
			if err := t.load(0); err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			if t.pi >= len(t.ps) {
				// Past this block: the next one.
				t.bi++
				t.pi = 0
				if t.bi < len(t.hdrs) {
					if err := t.load(0); err != nil {
						return nil, false, fmt.Errorf("search: %w", err)
					}
				}
			}
			if t.bi < len(t.hdrs) && t.pi < len(t.ps) {
				row = min(row, t.ps[t.pi].row)
			}
		}
		if row == math.MaxInt64 {
			break
		}
		// Bound the row: the essential tokens' frequencies at the least
		// length of their blocks, the others' block bounds.
		f2 := make([]uint64, len(tokens))
		dLow := int64(0)
		for i, t := range tokens[ess:] {
			if t.bi < len(t.hdrs) && t.pi < len(t.ps) && t.ps[t.pi].row == row {
				f2[ess+i] = t.ps[t.pi].f2
				dLow = max(dLow, t.hdrs[t.bi].minD)
			}
		}
		bound := 0.0
		for i, t := range tokens[ess:] {
			if f2[ess+i] > 0 {
				bound += t.part(f2[ess+i], float64(dLow), avgdl)
			}
		}
		skip := excluded[row] || delta != nil && delta.masked[row]
		if !skip {
			rest := bound
			for _, t := range tokens[:ess] {
				if t.seek(row) && t.hdrs[t.bi].first < row {
					rest += t.part(t.hdrs[t.bi].maxF2, float64(t.hdrs[t.bi].minD), avgdl)
				}
			}
			skip = below(rest)
		}
		if !skip && ess > 0 {
			// Decode the others' blocks holding the row.
			for i, t := range tokens[:ess] {
				if t.bi < len(t.hdrs) && t.hdrs[t.bi].first < row {
					if err := t.load(row); err != nil {
						return nil, false, fmt.Errorf("search: %w", err)
					}
					if t.pi < len(t.ps) && t.ps[t.pi].row == row {
						f2[i] = t.ps[t.pi].f2
						dLow = max(dLow, t.hdrs[t.bi].minD)
					}
				}
			}
			bound = 0
			for i, t := range tokens {
				if f2[i] > 0 {
					bound += t.part(f2[i], float64(dLow), avgdl)
				}
			}
			skip = below(bound)
		}
		if !skip {
			pending = append(pending, impactCand{row, f2})
			if len(pending) >= impactScoreBatch {
				if err := flush(); err != nil {
					return nil, false, err
				}
			}
		}
		// Past the row in every essential token.
		for _, t := range tokens[ess:] {
			if t.bi < len(t.hdrs) && t.pi < len(t.ps) && t.ps[t.pi].row == row {
				t.pi++
			}
		}
	}
	if err := flush(); err != nil {
		return nil, false, err
	}
	s.prune.impacts.Add(1)
	return top.hits(), true, nil
}

// impactExclusions returns the rows having any of the excluded tokens.
func impactExclusions(toks [][]string, data map[string][]byte) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, t := range toks {
		d := data[t[0]]
		hdrs, _, err := decodeHeaders(d)
		if err != nil {
			return nil, err
		}
		var ps []impactPosting
		for _, h := range hdrs {
			if ps, err = decodeBlock(d, h, ps[:0]); err != nil {
				return nil, err
			}
			for _, p := range ps {
				out[p.row] = true
			}
		}
	}
	return out, nil
}

// scoreImpacts scores the candidates exactly as bm25() does: their
// lengths from the docsize table, the phrases summed in the expression's
// order (an absent phrase adds exactly zero there).
func (s *Store) scoreImpacts(ctx context.Context, cands []impactCand, tokens []*impactToken, nPhrase int, avgdl float64, where string, fargs []any, top *impactTop) error {
	args := make([]any, len(cands))
	for i, c := range cands {
		args[i] = c.row
	}
	var allowed map[int64]bool
	if where != "" {
		// The documents of the candidates that pass the filter, as the
		// FTS5 search joins them.
		docs := make([]any, 0, len(cands)+len(fargs))
		for _, c := range cands {
			docs = append(docs, DocOfChunk(c.row))
		}
		var err error
		allowed, err = s.idSet(ctx, "SELECT d.id FROM documents d WHERE d.id IN ("+placeholders(len(cands))+")"+where, append(docs, fargs...)...)
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id, sz FROM chunks_fts_docsize WHERE id IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	lengths := make(map[int64]int64, len(cands))
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			rows.Close()
			return fmt.Errorf("search: %w", err)
		}
		lengths[id] = rowLength(sz)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	freq := make([]float64, nPhrase)
	for _, c := range cands {
		if allowed != nil && !allowed[DocOfChunk(c.row)] {
			continue
		}
		d, ok := lengths[c.row]
		if !ok {
			return fmt.Errorf("search: %w", errImpactsDamaged)
		}
		clear(freq)
		for i, t := range tokens {
			for _, p := range t.phrase {
				freq[p] = float64(c.f2[i]) / 2
			}
		}
		score := 0.0
		for p := range freq {
			if freq[p] == 0 {
				continue
			}
			score += bm25Part(phraseIdf(tokens, p), freq[p], float64(d), avgdl)
		}
		top.add(c.row, score)
	}
	return nil
}

// phraseIdf returns the idf of phrase p.
func phraseIdf(tokens []*impactToken, p int) float64 {
	for _, t := range tokens {
		for j, q := range t.phrase {
			if q == p {
				return t.idfs[j]
			}
		}
	}
	return 0
}
