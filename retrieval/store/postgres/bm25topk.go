package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"modernc.org/libc"
)

// A search of single words reads only what can reach its top documents
// (MaxScore, as in Turtle and Flood's query evaluation): a word's share
// of a row's score, idf·f·(k1+1)/(f + k1·norm) = idf·(k1+1)/(1 +
// k1·(1−b)/f + k1·b·(len/f)/avglen), is below idf·(k1+1)·g whatever the
// row, its bound, g from the largest f and least len/f of its blocks
// (max_wf, min_lr, kept at write time). The rare words' postings are read whole,
// rarest first; the rows they hold, scored on them alone, give a lower
// bound θ of the score of the limit-th document. Each word after is read
// only in its sub-blocks (128 postings, their own max_wf and min_lr)
// whose bound plus the bounds of the words after it over the same
// chunks reaches θ (block-max): a row in none of those read cannot reach
// the top. Once the bounds of the
// words left add up to less than θ, a row holding only those words
// cannot reach the top, and they are read only for the rows that still
// can (those whose score so far plus the words' bounds reaches θ): the
// near-universal words of a question (the, of, and: in nearly every
// chunk, their IDF clamped to 1e-6) cost a binary search per candidate
// in their blocks' arrays (complete) instead of decoding a posting per
// chunk. The top documents, their best chunks and their
// scores are exactly those of scoring every row: each is summed over the
// expression's phrases in order, as FTS5's bm25() sums them.

// firstRead: the rarest words are read whole together, in one round
// trip, while their postings add up to at most this many (at least the
// rarest word); each word after is read alone, and only while the
// bounds of the words left can still reach θ. Reading all the words
// under an eighth of the rows at once (as before) held over maxRows
// rows for most two-word questions at 100k documents, which then went
// to the server's statement (bench/RESULTS.md, pgblk). A variable for
// the tests, which read a word at a time.
var firstRead int64 = 4096

// maxRows caps the candidate rows a search holds in Go (each ~40 bytes
// across its map and slices plus 8 a word: 65,536 rows are ~4 MB for a
// question of 3 words, ~36 MB for one of 64, held only as the words
// read add them; the room made first is capped, newWordRows). A search whose words read reach it is scored by the
// server instead (searchWordsSQL), in a few kilobytes. 8,192 (the cap
// before) sent the long SciFact claims at 100k documents to the server:
// 50–53 ms of gno and server CPU a search against 33–37 ms with this cap
// (bench/RESULTS.md, pgblk). A variable for the tests, which take both
// ways.
var maxRows int64 = 65536

// errTooManyRows stops a read whole at maxRows candidate rows.
var errTooManyRows = errors.New("more candidate rows than maxRows")

// boundSlack widens the bounds against floating-point rounding (a
// score summed in another order, a quotient rounded up): a row is kept
// when its bound reaches θ less this share of it.
const boundSlack = 1e-9

// bm25Part is what one phrase of the given idf adds to a row of weighted
// frequency f and length d, operation for operation as fts5Bm25Function
// computes it: its k1 and b are runtime doubles, so k1+1 rounds as
// there, not as a constant would.
func bm25Part(idf, f, d, avgdl float64) float64 {
	k1, b := float64(bm25K1), float64(bm25B)
	return idf * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*d/avgdl)))
}

// fts5IDF is FTS5's idf of a phrase in n of nRows rows: through musl's
// log as modernc's libc runs it (Go's math.Log rounds differently in the
// last bit now and then), at least 1e-6.
func fts5IDF(tls *libc.TLS, nRows, n int64) float64 {
	idf := libc.Xlog(tls, (float64(nRows-n)+0.5)/(float64(n)+0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// searchWords is search for an expression of single words (no phrase of
// several, no prefix).
func (s *Store) searchWords(ctx context.Context, ix int, e *node, tsq string, f store.Filter, limit int) ([]store.ChunkHit, bool, error) {
	ps := e.phrases(nil)
	// The distinct words, and for each phrase its word's index.
	var words []string
	at := map[string]int{}
	of := make([]int, len(ps))
	for i, p := range ps {
		w := p.tokens[0]
		k, ok := at[w]
		if !ok {
			k = len(words)
			at[w] = k
			words = append(words, w)
		}
		of[i] = k
	}
	var nRows, nTokens int64
	var segEmpty bool
	df := make([]int64, len(words))
	// g: the most a posting of the word reaches of idf·(k1+1), from its
	// blocks' max_wf and min_lr (readBlocks's bound; 1 without blocks).
	g := make([]float64, len(words))
	err := s.each(ctx, `SELECT st.rows, st.tokens, (SELECT rows = 0 FROM fts_stats WHERE ix = 1), u.i, coalesce(t.df, 0), coalesce(t.g, 1)
		FROM fts_stats st CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS u(term, i)
		LEFT JOIN LATERAL (SELECT sum(b.n) AS df, max(1.0::float8 / (1.0::float8 + $3::float8 / b.max_wf + $4::float8 * b.min_lr * st.rows::float8 / st.tokens)) AS g
			FROM fts_blocks b WHERE b.ix = $1 AND b.term = u.term AND b.n > 0 AND st.tokens > 0) t ON true WHERE st.ix = $1`,
		[]any{ix, words, float64(bm25K1) * (1 - float64(bm25B)), float64(bm25K1) * float64(bm25B)}, func(r pgx.Rows) error {
			var i int64
			var n int64
			var gi float64
			if err := r.Scan(&nRows, &nTokens, &segEmpty, &i, &n, &gi); err != nil {
				return err
			}
			df[i-1], g[i-1] = n, min(gi, 1)
			return nil
		})
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if nRows == 0 {
		return nil, false, nil
	}
	avg := float64(nTokens) / float64(nRows)
	tls := libc.NewTLS()
	defer tls.Close()
	idf := make([]float64, len(words))
	for k, n := range df {
		idf[k] = fts5IDF(tls, nRows, n)
	}
	// Each word's bound, over all its phrases (a word twice in the
	// expression counts twice, as in FTS5).
	// unit: the bound without g (a sub-block's bound is unit·its g).
	bound, unit := make([]float64, len(words)), make([]float64, len(words))
	for i := range ps {
		unit[of[i]] += idf[of[i]] * (bm25K1 + 1)
	}
	for k := range bound {
		unit[k] *= 1 + boundSlack
		bound[k] = unit[k] * g[k]
	}
	// The words by bound, largest first (rarest first).
	order := make([]int, len(words))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if bound[a] != bound[b] {
			if bound[a] > bound[b] {
				return -1
			}
			return 1
		}
		return a - b
	})

	// The statement that reads words' postings whole: of the rows the
	// expression and the filter admit.
	joins, cond := "", ""
	var condArgs []any
	if w, _ := where(f, 1); w != "" || !e.plainOr() {
		tsvCol, _ := column(ix)
		joins = " JOIN chunks c ON c.id = p.chunk_id"
		if w != "" {
			joins += " JOIN documents d ON d.id = c.doc_id"
		}
		cond = " AND c." + tsvCol + " @@ $3::tsquery"
		w, fargs := where(f, 4)
		cond += w
		condArgs = append([]any{tsq}, fargs...)
	}
	// sqlScored answers in one statement on the server, for a search
	// that would hold too many rows here.
	sqlScored := func() ([]store.ChunkHit, bool, error) {
		pw, pidf := make([]string, len(ps)), make([]float64, len(ps))
		for i := range ps {
			pw[i], pidf[i] = words[of[i]], idf[of[i]]
		}
		hits, err := s.searchWordsSQL(ctx, ix, joins, cond, condArgs, pw, pidf, avg, limit)
		return hits, segEmpty, err
	}
	// Room for half the postings of the words (most after the first are
	// read in part, or only for some rows), capped in rows × words by
	// newWordRows (maxCells): sized from the words read whole first
	// only, the rows' growth cost a long claim at 100k 30.9 → 36.3 ms of
	// gno CPU (bench/RESULTS.md, fixpgblk); capped by rows alone, a
	// question with "the" in it made room for maxRows rows of all its
	// words at once (~32 MiB at 64 words).
	var postings int64
	for _, n := range df {
		postings += n
	}
	rows := newWordRows(len(words), postings/2)
	// read adds the postings q selects to rows.
	read := func(q string, args []any) error {
		return s.each(ctx, q, args, func(r pgx.Rows) error {
			id, n, term, wf, err := scanPosting(r)
			if err != nil {
				return err
			}
			k, ok := at[string(term)]
			if !ok {
				return fmt.Errorf("a posting of %q, not asked for", term)
			}
			return rows.add(id, n, k, wf)
		})
	}
	// scores scores every row on the words read so far: those whose
	// words changed since the last call (rows.touched) again.
	var sc []float64
	scores := func() []float64 {
		if len(sc) < len(rows.ids) {
			sc = slices.Grow(sc, len(rows.ids)-len(sc))
		}
		sc = sc[:len(rows.ids)]
		nw := len(words)
		for _, r := range rows.touched {
			rows.mark[r] = false
			f, d, v := rows.wf[r*nw:(r+1)*nw], float64(rows.lens[r]), 0.0
			for i := range ps {
				if fr := f[of[i]]; fr != 0 {
					v += bm25Part(idf[of[i]], fr, d, avg)
				}
			}
			sc[r] = v
		}
		rows.touched = rows.touched[:0]
		return sc
	}

	// Read the words largest bound first: at first the rarest whole,
	// together while their postings stay few (firstRead), then one at a
	// time while the bounds of the words left reach θ (θ only grows as
	// words are added). Once θ is above 0, a word is read only in its
	// sub-blocks whose bound, with the bounds of the words after it over
	// the same chunks, reaches θ (block-max; without a filter, which the
	// server applies to a word read whole). A rarest word too common to
	// read whole first gives θ from its best sub-blocks (seed).
	next, done := 1, 0 // order[:next] are to be read, order[:done] are
	for sum := df[order[0]]; next < len(order) && sum+df[order[next]] <= firstRead; next++ {
		sum += df[order[next]]
	}
	rest := 0.0 // the bounds of order[next:]
	theta := 0.0
	// partial: the words read only in some of their sub-blocks. A row
	// in none of those read cannot reach the top; one read may miss
	// their share (0 in rows.wf), completed with the words left.
	var partial []int
	var meta []subList
	seeded := map[sub]bool{} // read by the seed
	bounded := joins == ""
	if bounded && df[order[0]] > firstRead {
		var err error
		if meta, err = s.subBlocks(ctx, ix, words, at, avg); err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		next = 1
		seed := seedSubs(meta, order, unit, firstRead)
		for _, sb := range seed {
			seeded[sb] = true
		}
		if err := s.readSubs(ctx, order[0], seed, rows); errors.Is(err, errTooManyRows) {
			return sqlScored()
		} else if err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		theta = kthDocScore(rows.ids, scores(), limit)
	}
	for {
		if next == done+1 && theta > 0 && bounded {
			if meta == nil {
				var err error
				if meta, err = s.subBlocks(ctx, ix, words, at, avg); err != nil {
					return nil, false, fmt.Errorf("search: %w", err)
				}
			}
			k := order[done]
			need := theta * (1 - boundSlack)
			var pick []sub
			skipped := false
			for _, sb := range meta[k].subs {
				if seeded[sb] {
					continue
				}
				v := unit[k] * sb.g
				for _, j := range order[next:] {
					if v >= need {
						break
					}
					v += unit[j] * meta[j].maxG(sb.lo, sb.hi)
				}
				if v >= need {
					pick = append(pick, sb)
				} else {
					skipped = true
				}
			}
			if err := s.readSubs(ctx, k, pick, rows); errors.Is(err, errTooManyRows) {
				return sqlScored()
			} else if err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			if skipped {
				partial = append(partial, k)
			}
			done = next
		}
		if next > done {
			batch := make([]string, 0, next-done)
			for _, k := range order[done:next] {
				batch = append(batch, words[k])
			}
			var err error
			if joins == "" {
				// Unfiltered: the blocks' arrays as stored.
				err = s.readArrays(ctx, "SELECT term, ids, wfs, lens FROM fts_blocks WHERE ix = $1 AND term = ANY($2) AND n > 0", []any{ix, batch}, at, rows)
			} else {
				q := "SELECT p.chunk_id, p.len, p.term, p.wf FROM " + postingsFrom + " p" + joins + " WHERE p.ix = $1 AND p.term = ANY($2)" + cond
				err = read(q, append([]any{ix, batch}, condArgs...))
			}
			if errors.Is(err, errTooManyRows) {
				return sqlScored()
			} else if err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			done = next
		}
		rest = 0
		for _, k := range order[next:] {
			rest += bound[k]
		}
		if next == len(order) {
			break
		}
		theta = kthDocScore(rows.ids, scores(), limit)
		if theta > 0 && rest < theta*(1-boundSlack) {
			break
		}
		next++
	}

	// The words left, and those read in part for the rows that miss
	// them, only for the rows that can still reach θ.
	if next < len(order) || len(partial) > 0 {
		sc = scores()
		theta = max(theta, kthDocScore(rows.ids, sc, limit))
		var ids, open []int64
		for r, v := range sc {
			miss := rest
			for _, k := range partial {
				if rows.wf[r*len(words)+k] == 0 {
					miss += bound[k]
				}
			}
			if v+miss >= theta*(1-boundSlack) {
				ids = append(ids, rows.ids[r])
				if miss > 0 {
					open = append(open, rows.ids[r])
				}
			}
		}
		rows = rows.only(ids)
		if len(open) > 0 {
			left := make([]string, 0, len(order)-next+len(partial))
			for _, k := range partial {
				left = append(left, words[k])
			}
			for _, k := range order[next:] {
				left = append(left, words[k])
			}
			if err := s.complete(ctx, ix, left, at, open, rows); err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
		}
	}

	// Each document's best chunk (the lowest id of equal scores), then
	// the top documents.
	final := scores()
	// Only rows reaching the limit-th document's score can be a top
	// document's best (those equal to it included, for the order of ties).
	least := kthDocScore(rows.ids, final, limit)
	best := make(docBest, min(len(final), 4*limit))
	for r, v := range final {
		if v >= least {
			best.add(rows.ids[r], v)
		}
	}
	return best.top(limit), segEmpty, nil
}

// searchWordsSQL scores every row holding one of the phrases' words on
// the server and returns only the best chunk of each of the top
// documents: a few kilobytes whatever the rows. Each phrase i is word
// pw[i] of idf pidf[i] (FTS5's, computed in Go); the server computes
// bm25Part operation for operation in float8 (k1 and b as doubles, as
// there) and sums a row's phrases in the expression's order (an ordered
// aggregate), so the scores equal SQLite's to the bit. joins and cond
// (with its arguments from $3) are the expression's and the filter's,
// as searchWords builds them.
func (s *Store) searchWordsSQL(ctx context.Context, ix int, joins, cond string, condArgs []any, pw []string, pidf []float64, avg float64, limit int) ([]store.ChunkHit, error) {
	args := append([]any{ix, pw}, condArgs...)
	n := len(args)
	args = append(args, pidf, avg, float64(bm25K1), float64(bm25B), limit)
	p := func(i int) string { return "$" + strconv.Itoa(n+i) + "::float8" }
	idfs, avgP, k1, b := "$"+strconv.Itoa(n+1)+"::float8[]", p(2), p(3), p(4)
	sql := `WITH q AS (SELECT u.term, u.idf, u.i FROM unnest($2::text[], ` + idfs + `) WITH ORDINALITY AS u(term, idf, i)),
	s AS (SELECT p.chunk_id AS id, sum(q.idf * ((p.wf * (` + k1 + ` + 1.0::float8)) / (p.wf + ` + k1 + ` * (1.0::float8 - ` + b + ` + ` + b + ` * p.len::float8 / ` + avgP + `))) ORDER BY q.i) AS score
		FROM ` + postingsFrom + ` p JOIN q ON q.term = p.term` + joins + ` WHERE p.ix = $1` + cond + ` GROUP BY p.chunk_id)
	SELECT id, score FROM (SELECT DISTINCT ON (id >> 16) id, score FROM s ORDER BY id >> 16, score DESC, id) best
	ORDER BY score DESC, id LIMIT $` + strconv.Itoa(n+5)
	var out []store.ChunkHit
	err := s.each(ctx, sql, args, func(r pgx.Rows) error {
		var h store.ChunkHit
		if err := r.Scan(&h.ChunkID, &h.Score); err != nil {
			return err
		}
		h.DocID = store.DocOfChunk(h.ChunkID)
		out = append(out, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}
