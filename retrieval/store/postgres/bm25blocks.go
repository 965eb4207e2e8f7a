package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"modernc.org/libc"
)

// The postings are kept as blocks (fts_blocks): per index and term, one
// row per write flush holding its chunks' postings as arrays, with the
// bound of what any of them adds to a row's score. A search of words
// (searchBlocks) reads the bounds first, cuts the chunk ids into the
// ranges the blocks cover, and reads only the blocks of the ranges whose
// summed bounds can reach its top (block-max): a range is read whole,
// every word's block that covers it, so its rows are scored exactly; the
// limit-th best document among them gives θ, and the ranges whose bound
// is below θ are never read. A flush writes neighbouring documents, so a
// range is a few hundred documents and the ranges of a corpus's common
// words mostly carry low bounds.

// postingsFrom is the postings one row each, for the statements that
// join or aggregate them on the server (filters, phrases, searchWordsSQL).
const postingsFrom = `(SELECT b.ix, b.term, u.chunk_id, u.wf, u.len FROM fts_blocks b
	CROSS JOIN LATERAL unnest(b.ids, b.wfs, b.lens) AS u(chunk_id, wf, len))`

// cutBlocks is the statement (for a CTE of dropChunks) that cuts the
// postings of the (id, term) rows of src out of index ix's blocks, their
// bounds recomputed; a block left empty stays (n 0, skipped by reads)
// until EndBulk deletes it.
func cutBlocks(ix int, src string) string {
	return fmt.Sprintf(`UPDATE fts_blocks b SET (first, last, n, max_wf, min_lr, ids, wfs, lens) = (
		SELECT coalesce(min(u.i), b.first), coalesce(max(u.i), b.last), count(*), coalesce(max(u.f), 0), coalesce(min(u.l::float8 / u.f), 0),
			coalesce(array_agg(u.i ORDER BY u.o), '{}'), coalesce(array_agg(u.f ORDER BY u.o), '{}'), coalesce(array_agg(u.l ORDER BY u.o), '{}')
		FROM unnest(b.ids, b.wfs, b.lens) WITH ORDINALITY AS u(i, f, l, o) WHERE NOT (u.i = ANY(x.gone)))
	FROM (SELECT term, array_agg(id) AS gone, min(id) AS lo, max(id) AS hi FROM %s GROUP BY term) x
	WHERE b.ix = %d AND b.term = x.term AND b.first <= x.hi AND b.last >= x.lo AND b.ids && x.gone`, src, ix)
}

// toBlocks regroups an older index's postings (fts_postings, a row per
// posting) into blocks of 512 documents' chunks, then drops them and the
// terms' counts (fts_terms: the blocks' n give them). The table is locked
// first: a batch still writing it finishes before.
func toBlocks(ctx context.Context, tx pgx.Tx) error {
	var have bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('fts_postings') IS NOT NULL").Scan(&have); err != nil || !have {
		return err
	}
	for _, q := range []string{
		"LOCK TABLE fts_postings IN ACCESS EXCLUSIVE MODE",
		`INSERT INTO fts_blocks(ix, term, first, last, n, max_wf, min_lr, ids, wfs, lens)
		SELECT ix, term, min(chunk_id), max(chunk_id), count(*), max(wf), min(len::float8 / wf),
			array_agg(chunk_id ORDER BY chunk_id), array_agg(wf ORDER BY chunk_id), array_agg(len ORDER BY chunk_id)
		FROM fts_postings GROUP BY ix, term, chunk_id >> 25`,
		"DROP TABLE fts_postings",
		"DROP TABLE IF EXISTS fts_terms",
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// firstRead is the postings the first read of searchBlocks takes (the
// ranges of the highest bounds); each later read may take four times
// the one before. A variable for the tests.
var firstRead int64 = 2048

// block is a block's place, its chunk ids' range, its postings and the
// bound of what its word adds to a row's score.
type block struct {
	tid         pgtype.TID
	first, last int64
	n           int64
	k           int // its word's index
	maxWF       float64
	minLR       float64 // the least length/wf
	bound       float64
	start, end  int  // the ranges it covers, [start, end)
	read        bool // read, or taken by the read under way
}

// searchBlocks answers a search of the words words over the whole index
// ix (no filter, no AND or NOT): phrase i is word of[i]. Its first
// statement reads the index's statistics and the words' blocks' bounds;
// a search whose reads would pass maxRows is scored by the server
// (searchWordsSQL). segEmpty: the segmented index is empty.
func (s *Store) searchBlocks(ctx context.Context, ix int, words []string, of []int, limit int) (hits []store.ChunkHit, segEmpty bool, err error) {
	at := make(map[string]int, len(words))
	for k, w := range words {
		at[w] = k
	}
	var blocks []*block
	var nRows, nTokens int64
	df := make([]int64, len(words))
	err = s.each(ctx, `SELECT st.rows, st.tokens, (SELECT rows = 0 FROM fts_stats WHERE ix = 1), b.ctid, b.term, b.first, b.last, b.n, b.max_wf, b.min_lr
		FROM fts_stats st LEFT JOIN fts_blocks b ON b.ix = $1 AND b.term = ANY($2) AND b.n > 0 WHERE st.ix = $1`, []any{ix, words}, func(r pgx.Rows) error {
		var m block
		var term *string
		var first, last, n *int64
		var maxWF, minLR *float64
		if err := r.Scan(&nRows, &nTokens, &segEmpty, &m.tid, &term, &first, &last, &n, &maxWF, &minLR); err != nil {
			return err
		}
		if term == nil {
			return nil // no block
		}
		k, ok := at[*term]
		if !ok {
			return fmt.Errorf("a block of %q, not asked for", *term)
		}
		m.k, m.first, m.last, m.n, m.maxWF, m.minLR = k, *first, *last, *n, *maxWF, *minLR
		df[k] += m.n
		blocks = append(blocks, &m)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if nRows == 0 || len(blocks) == 0 {
		return nil, segEmpty, nil
	}
	avg := float64(nTokens) / float64(nRows)
	tls := libc.NewTLS()
	idf := make([]float64, len(words))
	for k, n := range df {
		idf[k] = fts5IDF(tls, nRows, n)
	}
	tls.Close()
	hits, ok, err := s.readBlocks(ctx, at, of, idf, avg, limit, blocks)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if !ok {
		pw, pidf := make([]string, len(of)), make([]float64, len(of))
		for i, k := range of {
			pw[i], pidf[i] = words[k], idf[k]
		}
		hits, err = s.searchWordsSQL(ctx, ix, "", "", nil, pw, pidf, avg, limit)
	}
	return hits, segEmpty, err
}

// readBlocks reads those of the words' blocks whose ranges can reach the
// top and scores their rows: at gives a word's index, phrase i is word
// of[i], of idf idf[of[i]]. ok false: its reads would pass maxRows.
func (s *Store) readBlocks(ctx context.Context, at map[string]int, of []int, idf []float64, avg float64, limit int, blocks []*block) (hits []store.ChunkHit, ok bool, err error) {
	mult := make([]float64, len(idf))
	for _, k := range of {
		mult[k]++
	}
	k1, b := float64(bm25K1), float64(bm25B)
	for _, bl := range blocks {
		// f·(k1+1)/(f + k1·(1−b+b·d/avg)) = (k1+1)/(1 + k1·(1−b)/f + k1·b·(d/f)/avg),
		// largest for the largest f and the least d/f.
		bl.bound = mult[bl.k] * idf[bl.k] * (k1 + 1) / (1 + k1*(1-b)/bl.maxWF + k1*b*bl.minLR/avg) * (1 + boundSlack)
	}
	// The ranges: [pts[j], pts[j+1]) between the blocks' ends, each with
	// the sum of the bounds of the blocks covering it.
	pts := make([]int64, 0, 2*len(blocks))
	for _, bl := range blocks {
		pts = append(pts, bl.first, bl.last+1)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	nr := len(pts) - 1
	bound := make([]float64, nr+1)
	for _, bl := range blocks {
		bl.start, _ = slices.BinarySearch(pts, bl.first)
		bl.end, _ = slices.BinarySearch(pts, bl.last+1)
		bound[bl.start] += bl.bound
		bound[bl.end] -= bl.bound
	}
	for j := 1; j <= nr; j++ {
		bound[j] += bound[j-1]
	}
	bound = bound[:nr]
	// Rounding in the running sums: far below boundSlack's share of θ.
	for j := range bound {
		bound[j] = bound[j]*(1+boundSlack) + 1e-9
	}
	order := make([]int, nr)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if bound[x] != bound[y] {
			if bound[x] > bound[y] {
				return -1
			}
			return 1
		}
		return x - y
	})

	// cover: per range, the blocks covering it; unread: of those, the
	// ones not read yet.
	cover := make([][]*block, nr)
	unread := make([]int, nr)
	for _, bl := range blocks {
		for j := bl.start; j < bl.end; j++ {
			cover[j] = append(cover[j], bl)
			unread[j]++
		}
	}
	rows := newWordRows(len(idf))
	rangeOf := func(id int64) int {
		return sort.Search(len(pts), func(j int) bool { return pts[j] > id }) - 1
	}
	// exact scores the rows of the ranges read whole (every block
	// covering them read): their scores are their true ones.
	exact := func() ([]int64, []float64) {
		var ids []int64
		var sc []float64
		nw := len(idf)
		for r, id := range rows.ids {
			if j := rangeOf(id); j < 0 || j >= nr || unread[j] != 0 {
				continue
			}
			f, d, v := rows.wf[r*nw:(r+1)*nw], float64(rows.lens[r]), 0.0
			for i := range of {
				if fr := f[of[i]]; fr != 0 {
					v += bm25Part(idf[of[i]], fr, d, avg)
				}
			}
			ids, sc = append(ids, id), append(sc, v)
		}
		return ids, sc
	}
	theta := 0.0
	budget := firstRead
	for {
		// The blocks of the ranges not read whole that can still reach
		// θ, highest bound first, while their postings fit the budget.
		var take []*block
		var n int64
		for _, j := range order {
			if n > 0 && n >= budget {
				break
			}
			if unread[j] == 0 || bound[j] < theta*(1-boundSlack) {
				continue
			}
			for _, bl := range cover[j] {
				if !bl.read {
					bl.read = true
					take = append(take, bl)
					n += bl.n
				}
			}
		}
		if len(take) == 0 {
			break
		}
		if int64(len(rows.ids))+n > maxRows {
			return nil, false, nil
		}
		tids := make([]pgtype.TID, len(take))
		for i, bl := range take {
			tids[i] = bl.tid
			for j := bl.start; j < bl.end; j++ {
				unread[j]--
			}
		}
		err := s.each(ctx, "SELECT term, ids, wfs, lens FROM fts_blocks WHERE ctid = ANY($1)", []any{tids}, func(r pgx.Rows) error {
			term, ids, wfs, lens, err := scanBlock(r)
			if err != nil {
				return err
			}
			k, ok := at[term]
			if !ok {
				return fmt.Errorf("a block of %q, not asked for", term)
			}
			for i, id := range ids {
				rows.set(id, lens[i], k, wfs[i])
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		ids, sc := exact()
		theta = kthDocScore(ids, sc, limit)
		budget *= 4
	}
	ids, sc := exact()
	best := make(docBest, len(ids))
	for r, v := range sc {
		best.add(ids[r], v)
	}
	return best.top(limit), true, nil
}

// scanBlock reads a row of (term, ids, wfs, lens): from the arrays'
// binary form as it came (a search reads thousands of postings), else
// through Scan.
func scanBlock(r pgx.Rows) (term string, ids []int64, wfs []float64, lens []int32, err error) {
	raw, fd := r.RawValues(), r.FieldDescriptions()
	if len(raw) == 4 && len(fd) == 4 && fd[1].Format == pgx.BinaryFormatCode && fd[2].Format == pgx.BinaryFormatCode && fd[3].Format == pgx.BinaryFormatCode {
		a, n1, ok1 := arrayBody(raw[1], 8)
		w, n2, ok2 := arrayBody(raw[2], 8)
		l, n3, ok3 := arrayBody(raw[3], 4)
		if ok1 && ok2 && ok3 && n1 == n2 && n2 == n3 && raw[0] != nil {
			ids, wfs, lens = make([]int64, n1), make([]float64, n1), make([]int32, n1)
			for i := range n1 {
				ids[i] = int64(binary.BigEndian.Uint64(a[i*12+4:]))
				wfs[i] = math.Float64frombits(binary.BigEndian.Uint64(w[i*12+4:]))
				lens[i] = int32(binary.BigEndian.Uint32(l[i*8+4:]))
			}
			return string(raw[0]), ids, wfs, lens, nil
		}
	}
	err = r.Scan(&term, &ids, &wfs, &lens)
	return term, ids, wfs, lens, err
}

// arrayBody is the elements of a one-dimensional array of fixed-size
// elements without nulls in PostgreSQL's binary form (each a 4-byte
// length, then its size bytes) and their number; ok false for any other.
func arrayBody(raw []byte, size int) (body []byte, n int, ok bool) {
	if len(raw) < 12 {
		return nil, 0, false
	}
	switch binary.BigEndian.Uint32(raw) {
	case 0:
		return nil, 0, len(raw) == 12
	case 1:
	default:
		return nil, 0, false
	}
	if len(raw) < 20 || binary.BigEndian.Uint32(raw[4:]) != 0 {
		return nil, 0, false
	}
	n = int(binary.BigEndian.Uint32(raw[12:]))
	body = raw[20:]
	if n < 0 || len(body) != n*(4+size) {
		return nil, 0, false
	}
	for i := range n {
		if binary.BigEndian.Uint32(body[i*(4+size):]) != uint32(size) {
			return nil, 0, false
		}
	}
	return body, n, true
}
