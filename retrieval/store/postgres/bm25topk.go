package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
// bound θ of the score of the limit-th document. Once the bounds of the
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

// maxRows caps the candidate rows a search holds in Go (each costs
// ~320 bytes across its maps and slices, BenchmarkTopKSearch; "the" at
// 20k chunks held 5.4 MB): 8192 rows, ~2.6 MB, over 4× the most the
// first 20 SciFact claims held (1,910). A search whose words read whole
// reach it is scored by the server instead (searchWordsSQL), in a few
// kilobytes. A variable for the tests, which take both ways.
var maxRows int64 = 8192

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
	rows := newWordRows(len(words))
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
			if _, have := rows.at[id]; !have && int64(len(rows.ids)) >= maxRows {
				return errTooManyRows
			}
			rows.set(id, n, k, wf)
			return nil
		})
	}
	// scores scores every row on the words read so far.
	var sc []float64
	scores := func() []float64 {
		sc = slices.Grow(sc[:0], len(rows.ids))[:len(rows.ids)]
		nw := len(words)
		for r := range rows.ids {
			f, d, v := rows.wf[r*nw:(r+1)*nw], float64(rows.lens[r]), 0.0
			for i := range ps {
				if fr := f[of[i]]; fr != 0 {
					v += bm25Part(idf[of[i]], fr, d, avg)
				}
			}
			sc[r] = v
		}
		return sc
	}

	// Read the words whole largest bound first: at first the rarest
	// together while their postings stay few (firstRead), then one at a
	// time while the bounds of the words left reach θ (θ only grows as
	// words are added) or fewer than limit documents were found (θ 0).
	next, done := 1, 0 // order[:next] are to be read whole, order[:done] are
	for sum := df[order[0]]; next < len(order) && sum+df[order[next]] <= firstRead; next++ {
		sum += df[order[next]]
	}
	rest := 0.0 // the bounds of order[next:]
	theta := 0.0
	// partial: the words read only in the sub-blocks whose bound, with
	// the words' after them, reaches θ (readBounded); the rows they skip
	// cannot reach the top, those read may miss their share, completed
	// with the words left.
	var partial []int
	partialBound := 0.0
	for {
		if next == done+1 && theta > 0 && joins == "" {
			k := order[done]
			after := 0.0
			for _, j := range order[next:] {
				after += bound[j]
			}
			whole, err := s.readBounded(ctx, ix, words[k], k, unit[k], avg, theta*(1-boundSlack)-after, rows)
			if errors.Is(err, errTooManyRows) {
				return sqlScored()
			} else if err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
			if !whole {
				partial = append(partial, k)
				partialBound += bound[k]
			}
			done = next
		}
		if next > done {
			batch := make([]string, 0, next-done)
			for _, k := range order[done:next] {
				batch = append(batch, words[k])
			}
			q := "SELECT p.chunk_id, p.len, p.term, p.wf FROM " + postingsFrom + " p" + joins + " WHERE p.ix = $1 AND p.term = ANY($2)" + cond
			if err := read(q, append([]any{ix, batch}, condArgs...)); errors.Is(err, errTooManyRows) {
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

	// The words left (and those read in part), only for the rows that
	// can still reach θ.
	if next < len(order) || len(partial) > 0 {
		sc = scores()
		theta = max(theta, kthDocScore(rows.ids, sc, limit))
		var ids []int64
		for r, v := range sc {
			if v+rest+partialBound >= theta*(1-boundSlack) {
				ids = append(ids, rows.ids[r])
			}
		}
		rows = rows.only(ids)
		if len(ids) > 0 {
			left := make([]string, 0, len(order)-next+len(partial))
			for _, k := range partial {
				left = append(left, words[k])
			}
			for _, k := range order[next:] {
				left = append(left, words[k])
			}
			if err := s.complete(ctx, ix, left, at, ids, rows); err != nil {
				return nil, false, fmt.Errorf("search: %w", err)
			}
		}
	}

	// Each document's best chunk (the lowest id of equal scores), then
	// the top documents.
	final := scores()
	best := make(docBest, len(final))
	for r, v := range final {
		best.add(rows.ids[r], v)
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

// wordRows are the candidate rows: each one's id, length and each query
// word's weighted frequency in it (0: absent or not read yet), in flat
// slices (a search holds thousands).
type wordRows struct {
	n    int // words
	at   map[int64]int
	ids  []int64
	lens []int32
	wf   []float64 // row r's words at [r*n, (r+1)*n)
}

func newWordRows(words int) *wordRows {
	return &wordRows{n: words, at: map[int64]int{}}
}

// set records word k's weighted frequency wf in row id of length n.
func (w *wordRows) set(id int64, n int32, k int, wf float64) {
	r, ok := w.at[id]
	if !ok {
		r = len(w.ids)
		w.at[id] = r
		w.ids = append(w.ids, id)
		w.lens = append(w.lens, n)
		for range w.n {
			w.wf = append(w.wf, 0)
		}
	}
	w.wf[r*w.n+k] = wf
}

// only keeps the rows ids (which it holds).
func (w *wordRows) only(ids []int64) *wordRows {
	out := &wordRows{n: w.n, at: make(map[int64]int, len(ids)), ids: make([]int64, 0, len(ids)), lens: make([]int32, 0, len(ids)), wf: make([]float64, 0, len(ids)*w.n)}
	for _, id := range ids {
		r := w.at[id]
		out.at[id] = len(out.ids)
		out.ids = append(out.ids, id)
		out.lens = append(out.lens, w.lens[r])
		out.wf = append(out.wf, w.wf[r*w.n:(r+1)*w.n]...)
	}
	return out
}

// kthDocScore is the score of the limit-th best document among the rows
// ids scored sc (each document's best row), 0 when fewer documents have
// rows.
func kthDocScore(ids []int64, sc []float64, limit int) float64 {
	if limit <= 0 {
		return 0
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
