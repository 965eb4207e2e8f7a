package postgres

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The postings are kept as blocks (fts_blocks): per index and term, one
// row per write flush (small ones merged: mergeBlocks) holding its
// chunks' postings as arrays, with what bounds any of them's share of a
// row's score (max_wf, min_lr: the top-k's word bounds, bm25topk.go),
// and the same per 128 postings of a larger block (sub_wf, sub_lr,
// sub_first: schema 5). A search reads a word's arrays as stored, whole
// or in the slices of the sub-blocks that can reach its top (readSubs),
// or, for a few candidate rows, finds them in the arrays by a binary
// search here (complete); filters and phrases unnest them on the server
// (postingsFrom).
//
// Reading the flush blocks themselves block-max (the chunk ids cut into
// the ranges the blocks cover, read whole highest summed bound first)
// was built and measured (bench/RESULTS.md, branch pgrows 520af1d): a
// flush's block covers ~500 documents, too coarse to prune. The
// sub-blocks prune a common word's postings; a word in a few postings a
// flush still has one sub-block a flush (bench/RESULTS.md, pgblk).

// postingsFrom is the postings one row each, for the statements that
// join or aggregate them on the server (filters, phrases, searchWordsSQL).
const postingsFrom = `(SELECT b.ix, b.term, u.chunk_id, u.wf, u.len FROM fts_blocks b
	CROSS JOIN LATERAL unnest(b.ids, b.wfs, b.lens) AS u(chunk_id, wf, len))`

// cutBlocks is the CTEs (for dropChunks; names suffixed by ix) that cut
// the postings of the (id, term) rows of src out of index ix's blocks,
// their bounds recomputed, and delete the blocks they leave empty. Each
// step is linear: the blocks hit are those whose range holds a deleted
// id of their term (width_bucket: a binary search of the term's sorted
// deleted ids), their postings kept by a hash anti-join against src
// (an `= ANY(array)` per posting was quadratic: 3.8 s to cut a
// 32k-posting word, bench/RESULTS.md), and a block is deleted in the
// statement that empties it, so a daemon's small syncs leave none. A
// block cut gets its sub-bounds again from its new arrays (subBoundsOf),
// so a live index keeps pruning.
// Blocks are named by ctid, stable within the statement.
func cutBlocks(ix int, src string) string {
	return fmt.Sprintf(`gone%[1]d AS (SELECT term, array_agg(id ORDER BY id) AS ids FROM %[2]s GROUP BY term),
	hit%[1]d AS (SELECT b.ctid AS t FROM gone%[1]d g JOIN fts_blocks b ON b.ix = %[1]d AND b.term = g.term
		WHERE width_bucket(b.last, g.ids) > width_bucket(b.first - 1, g.ids)),
	kept%[1]d AS (SELECT h.t, u.i, u.f, u.l, u.o FROM hit%[1]d h JOIN fts_blocks b ON b.ctid = h.t
		CROSS JOIN LATERAL unnest(b.ids, b.wfs, b.lens) WITH ORDINALITY AS u(i, f, l, o)
		WHERE NOT EXISTS (SELECT 1 FROM %[2]s s WHERE s.term = b.term AND s.id = u.i)),
	new%[1]d AS (SELECT t, min(i) AS first, max(i) AS last, count(*) AS n, max(f) AS max_wf, min(l::float8 / f) AS min_lr,
		array_agg(i ORDER BY o) AS ids, array_agg(f ORDER BY o) AS wfs, array_agg(l ORDER BY o) AS lens FROM kept%[1]d GROUP BY t),
	cut%[1]d AS (UPDATE fts_blocks b SET (first, last, n, max_wf, min_lr, ids, wfs, lens, sub_wf, sub_lr, sub_first, sub_n) = (x.first, x.last, x.n, x.max_wf, x.min_lr, x.ids, x.wfs, x.lens, s.w, s.l, s.f, s.n)
		FROM new%[1]d x CROSS JOIN LATERAL %[3]s s WHERE b.ctid = x.t),
	emptied%[1]d AS (DELETE FROM fts_blocks b USING hit%[1]d h WHERE b.ctid = h.t AND NOT EXISTS (SELECT 1 FROM new%[1]d x WHERE x.t = h.t))`, ix, src, subBoundsOf("x"))
}

// A daemon's one-note syncs each add a block of a posting or two per
// term of the note, and a term's reads cost a row per block: without a
// merge a long-lived index's searches grow slower without bound. So a
// flush, in its transaction (batches take turns: each first updates
// meta's writes row, bumpWrites, and holds it to its commit), merges the
// small blocks (fewer than mergeSmall postings) of the terms it wrote once
// a term has mergeAt of them: its mergeMax smallest become one block,
// the postings in chunk order, its bounds and sub-bounds computed. A large block is
// never rewritten and a merge rewrites under mergeMax×mergeSmall
// postings a term, so a one-note sync's cost stays bounded; a term
// keeps fewer than mergeAt small blocks (a pile left by a bulk load
// shrinks by mergeMax−1 at each flush that writes the term) and at most
// a block per mergeSmall postings besides. A bulk load (BeginBulk …
// EndBulk) does not merge: its flushes of hundreds of documents add a
// block per term and flush, and the lookups cost it half again the
// server's CPU (bench/RESULTS.md, pgmerge).
const (
	mergeSmall = 1024
	mergeAt    = 8
	mergeMax   = 16
)

// mergeBlocks merges the small blocks of index ix's terms (those a flush
// wrote) that have mergeAt of them.
func mergeBlocks(ctx context.Context, tx pgx.Tx, ix int, terms []string) error {
	if len(terms) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `WITH c AS (SELECT b.term FROM fts_blocks b JOIN unnest($2::text[]) AS t(term) ON b.term = t.term
			WHERE b.ix = $1 AND b.n < $3 GROUP BY b.term HAVING count(*) >= $4),
		s AS (SELECT r.at FROM (SELECT b.ctid AS at, row_number() OVER (PARTITION BY b.term ORDER BY b.n, b.first) AS k
			FROM fts_blocks b JOIN c ON b.term = c.term WHERE b.ix = $1 AND b.n < $3) r WHERE r.k <= $5),
		d AS (DELETE FROM fts_blocks b USING s WHERE b.ctid = s.at RETURNING b.term, b.ids, b.wfs, b.lens),
		x AS (SELECT d.term, min(u.i) AS first, max(u.i) AS last, count(*) AS n, max(u.f) AS max_wf, min(u.l::float8 / u.f) AS min_lr,
			array_agg(u.i ORDER BY u.i) AS ids, array_agg(u.f ORDER BY u.i) AS wfs, array_agg(u.l ORDER BY u.i) AS lens
		FROM d CROSS JOIN LATERAL unnest(d.ids, d.wfs, d.lens) AS u(i, f, l) GROUP BY d.term)
		INSERT INTO fts_blocks(ix, term, first, last, n, max_wf, min_lr, ids, wfs, lens, sub_wf, sub_lr, sub_first, sub_n)
		SELECT $1, x.term, x.first, x.last, x.n, x.max_wf, x.min_lr, x.ids, x.wfs, x.lens, s.w, s.l, s.f, s.n
		FROM x CROSS JOIN LATERAL `+subBoundsOf("x")+` s`,
		int16(ix), terms, mergeSmall, mergeAt, mergeMax)
	if err != nil {
		return fmt.Errorf("merge the word index's blocks: %w", err)
	}
	return nil
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

// complete adds the postings of the words left to the candidate rows ids
// (which rows holds): their blocks whose range holds a candidate are
// read as arrays, and each candidate in a block's range is looked up in
// it (a binary search of the array as it came), so only the candidates'
// postings are decoded and the server sends the arrays as stored.
func (s *Store) complete(ctx context.Context, ix int, left []string, at map[string]int, ids []int64, rows *wordRows) error {
	slices.Sort(ids)
	// Only the blocks whose range holds a candidate (width_bucket: the
	// candidates up to last outnumber those up to first − 1): a flush's
	// block spans ~500 documents, so a few hundred candidates skip most
	// of a common word's blocks.
	return s.each(ctx, `SELECT term, ids, wfs, lens FROM fts_blocks WHERE ix = $1 AND term = ANY($2) AND n > 0 AND last >= $3 AND first <= $4
		AND width_bucket(last, $5::bigint[]) > width_bucket(first - 1, $5::bigint[])`,
		[]any{ix, left, ids[0], ids[len(ids)-1], ids}, func(r pgx.Rows) error {
			bl, err := scanArrays(r)
			if err != nil {
				return err
			}
			k, ok := at[bl.term]
			if !ok {
				return fmt.Errorf("a block of %q, not asked for", bl.term)
			}
			if bl.n == 0 {
				return nil
			}
			first, last := bl.id(0), bl.id(bl.n-1)
			j, _ := slices.BinarySearch(ids, first)
			for ; j < len(ids) && ids[j] <= last; j++ {
				i := sort.Search(bl.n, func(i int) bool { return bl.id(i) >= ids[j] })
				if i < bl.n && bl.id(i) == ids[j] {
					rows.set(ids[j], bl.len(i), k, bl.wf(i))
				}
			}
			return nil
		})
}

// arrays is a block's row: its term and its postings, as the arrays'
// binary form came (elements at fixed places) or as scanned.
type arrays struct {
	term         string
	n            int
	rawID, rawWF []byte // 12 bytes an element: a length, then 8
	rawLen       []byte // 8 bytes an element
	ids          []int64
	wfs          []float64
	lens         []int32
	raw          bool
}

func (a *arrays) id(i int) int64 {
	if a.raw {
		return int64(binary.BigEndian.Uint64(a.rawID[i*12+4:]))
	}
	return a.ids[i]
}

func (a *arrays) wf(i int) float64 {
	if a.raw {
		return math.Float64frombits(binary.BigEndian.Uint64(a.rawWF[i*12+4:]))
	}
	return a.wfs[i]
}

func (a *arrays) len(i int) int32 {
	if a.raw {
		return int32(binary.BigEndian.Uint32(a.rawLen[i*8+4:]))
	}
	return a.lens[i]
}

// scanArrays reads a row of (term, ids, wfs, lens): the arrays left in
// their binary form when they came so (one-dimensional, no nulls),
// else through Scan.
func scanArrays(r pgx.Rows) (*arrays, error) {
	raw, fd := r.RawValues(), r.FieldDescriptions()
	if len(raw) == 4 && len(fd) == 4 && raw[0] != nil && fd[1].Format == pgx.BinaryFormatCode && fd[2].Format == pgx.BinaryFormatCode && fd[3].Format == pgx.BinaryFormatCode {
		a, n1, ok1 := arrayBody(raw[1], 8)
		w, n2, ok2 := arrayBody(raw[2], 8)
		l, n3, ok3 := arrayBody(raw[3], 4)
		if ok1 && ok2 && ok3 && n1 == n2 && n2 == n3 {
			return &arrays{term: string(raw[0]), n: n1, rawID: a, rawWF: w, rawLen: l, raw: true}, nil
		}
	}
	var a arrays
	if err := r.Scan(&a.term, &a.ids, &a.wfs, &a.lens); err != nil {
		return nil, err
	}
	if len(a.wfs) != len(a.ids) || len(a.lens) != len(a.ids) {
		return nil, fmt.Errorf("a block of %q with arrays of %d, %d and %d postings", a.term, len(a.ids), len(a.wfs), len(a.lens))
	}
	a.n = len(a.ids)
	return &a, nil
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

// subBlock is the postings a block's sub-bounds cover each (sub_wf,
// sub_lr: the largest wf and least len/wf of postings [j·subBlock,
// (j+1)·subBlock) of its arrays). A block's bound covers ~500
// documents, too coarse to skip (above); a sub-block's covers a common
// word's 128 chunks, as SQLite's block-max postings (impactBlock).
const subBlock = 128

// subBounds are the sub-blocks' bounds of a block's postings and their
// first chunk ids, nil for a block of one sub-block (its max_wf, min_lr
// and first say it).
func subBounds(ids []int64, wfs []float64, lens []int32) (maxWF, minLR []float64, firsts []int64) {
	if len(wfs) <= subBlock {
		return nil, nil, nil
	}
	for a := 0; a < len(wfs); a += subBlock {
		mw, ml := 0.0, math.Inf(1)
		for i := a; i < min(a+subBlock, len(wfs)); i++ {
			mw = max(mw, wfs[i])
			ml = min(ml, float64(lens[i])/wfs[i])
		}
		maxWF, minLR, firsts = append(maxWF, mw), append(minLR, ml), append(firsts, ids[a])
	}
	return maxWF, minLR, firsts
}

// schema5 is schema 5's change to fts_blocks, run by migrate for a new
// index and, after the writer's lock is taken, for an older one
// (addSubBounds; its blocks are filled after by fillSubs):
// sub-bounds per 128 postings of a block of more (their max_wf, min_lr
// and first chunk id; NULL for a block of one sub-block: its own bounds
// say it) and sub_n, the n they were computed for: a gno opened before
// the upgrade cuts a block's arrays and n but keeps its sub-bounds, so
// they are trusted only while sub_n = n (a cut always lowers n), so a search reads a word's postings
// only where they can reach its top (subBlocks, bm25topk.go). (An
// (ix, term) index covering n and the bounds, so a search's first
// statement reads no block's row, cost a SciFact update 0.2 s more of
// the server's CPU, over 2× SQLite's, and saved no measurable search
// time at 100k documents: not kept.)
const schema5 = `ALTER TABLE fts_blocks ADD COLUMN IF NOT EXISTS sub_wf DOUBLE PRECISION[], ADD COLUMN IF NOT EXISTS sub_lr DOUBLE PRECISION[],
	ADD COLUMN IF NOT EXISTS sub_first BIGINT[], ADD COLUMN IF NOT EXISTS sub_n INTEGER;
ALTER TABLE fts_blocks ALTER sub_wf SET STATISTICS 0, ALTER sub_lr SET STATISTICS 0, ALTER sub_first SET STATISTICS 0;`

// fillSubBounds computes the sub-bounds of the blocks of more than one
// sub-block without them (an index of schema 4, upgraded: fillSubs) or
// with a stale one's (a gno opened before the upgrade cut the block).
var fillSubBounds = `UPDATE fts_blocks b SET (sub_wf, sub_lr, sub_first, sub_n) = (SELECT s.w, s.l, s.f, s.n FROM ` + subBoundsOf("b") + ` s)
	WHERE b.n > 128 AND b.sub_n IS DISTINCT FROM b.n`

// subBoundsOf is a subquery of one row (w, l, f, n): the sub-bounds
// (sub_wf, sub_lr, sub_first, sub_n) of the postings of row r's arrays
// (ids, wfs, lens; n their number), all NULL for one sub-block. Every
// writer of a block (flush's subBounds in Go, the cut, the merge, the
// upgrade's fill) computes the same.
func subBoundsOf(r string) string {
	return fmt.Sprintf(`(SELECT array_agg(s.mw ORDER BY s.j) AS w, array_agg(s.ml ORDER BY s.j) AS l, array_agg(s.fi ORDER BY s.j) AS f,
		CASE WHEN %[1]s.n > %[2]d THEN %[1]s.n END AS n
	FROM (SELECT (u.o - 1) / %[2]d AS j, max(u.f) AS mw, min(u.l::float8 / u.f) AS ml, min(u.i) AS fi
		FROM unnest(%[1]s.ids, %[1]s.wfs, %[1]s.lens) WITH ORDINALITY AS u(i, f, l, o) WHERE %[1]s.n > %[2]d GROUP BY 1) s)`, r, subBlock)
}

// sub is a sub-block of a word's postings: postings a..z (1-based, of
// the arrays of block tid), of chunk ids in lo..hi; g is its bound's
// factor (a posting's share is at most the word's unit·g).
type sub struct {
	tid    pgtype.TID
	lo, hi int64
	a, z   int32
	g      float64
}

// subList is a word's sub-blocks by lo, reach[i] the largest hi of
// subs[:i+1] (a word's blocks may overlap: a changed document's chunks
// keep their ids in a later flush's block).
type subList struct {
	subs  []sub
	reach []int64
}

// maxG is the largest g of the sub-blocks that may hold a chunk id in
// lo..hi, 0 for none.
func (l *subList) maxG(lo, hi int64) float64 {
	m := 0.0
	for i, _ := slices.BinarySearch(l.reach, lo); i < len(l.subs) && l.subs[i].lo <= hi; i++ {
		if l.subs[i].hi >= lo {
			m = max(m, l.subs[i].g)
		}
	}
	return m
}

// subBlocks reads the sub-blocks of index ix's words (at gives each
// one's index), their g as searchWords's from their largest wf and least
// len/wf (a block without sub-bounds is one sub-block).
func (s *Store) subBlocks(ctx context.Context, ix int, words []string, at map[string]int, avg float64) ([]subList, error) {
	c1, c2 := float64(bm25K1)*(1-float64(bm25B)), float64(bm25K1)*float64(bm25B)
	gOf := func(mw, ml float64) float64 { return min(1/(1+c1/mw+c2*ml/avg), 1) }
	out := make([]subList, len(words))
	err := s.each(ctx, `SELECT term, ctid, first, last, n, max_wf, min_lr, coalesce(sub_wf, '{}'), coalesce(sub_lr, '{}'), coalesce(sub_first, '{}'), coalesce(sub_n, -1)
		FROM fts_blocks WHERE ix = $1 AND term = ANY($2) AND n > 0`, []any{ix, words}, func(r pgx.Rows) error {
		var term string
		var t pgtype.TID
		var first, last int64
		var n, subN int32
		var mw, ml float64
		var sw, sl []float64
		var sf []int64
		if err := r.Scan(&term, &t, &first, &last, &n, &mw, &ml, &sw, &sl, &sf, &subN); err != nil {
			return err
		}
		k, ok := at[term]
		if !ok {
			return fmt.Errorf("a block of %q, not asked for", term)
		}
		l := &out[k]
		// Sub-bounds computed for another n (an older gno cut the block)
		// bound other postings: the block is then one sub-block.
		if subs := (int(n) + subBlock - 1) / subBlock; subN != n || len(sw) != subs || len(sl) != subs || len(sf) != subs || subs < 2 {
			l.subs = append(l.subs, sub{tid: t, lo: first, hi: last, a: 1, z: n, g: gOf(mw, ml)})
			return nil
		}
		for j := range sw {
			hi := last
			if j+1 < len(sf) {
				hi = sf[j+1] - 1
			}
			l.subs = append(l.subs, sub{tid: t, lo: sf[j], hi: hi, a: int32(j*subBlock + 1), z: int32(min((j+1)*subBlock, int(n))), g: gOf(sw[j], sl[j])})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range out {
		l := &out[k]
		slices.SortFunc(l.subs, func(a, b sub) int { return cmp.Compare(a.lo, b.lo) })
		l.reach = make([]int64, len(l.subs))
		for i, sb := range l.subs {
			l.reach[i] = sb.hi
			if i > 0 {
				l.reach[i] = max(sb.hi, l.reach[i-1])
			}
		}
	}
	return out, nil
}

// seedSubs picks the sub-blocks of the first word of order with the
// largest bounds (with the other words' over the same chunks) until they
// hold budget postings: read first, they give θ for a question whose
// rarest word is too common to read whole.
func seedSubs(meta []subList, order []int, unit []float64, budget int64) []sub {
	k := order[0]
	type cand struct {
		sb sub
		v  float64
	}
	cs := make([]cand, 0, len(meta[k].subs))
	for _, sb := range meta[k].subs {
		v := unit[k] * sb.g
		for _, j := range order[1:] {
			v += unit[j] * meta[j].maxG(sb.lo, sb.hi)
		}
		cs = append(cs, cand{sb, v})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.v, a.v) })
	var out []sub
	var n int64
	for _, c := range cs {
		if n >= budget && len(out) > 0 {
			break
		}
		out = append(out, c.sb)
		n += int64(c.sb.z - c.sb.a + 1)
	}
	return out
}

// readSubs adds word k's postings in the sub-blocks subs to rows (the
// arrays' slices, sent as they are stored).
func (s *Store) readSubs(ctx context.Context, k int, subs []sub, rows *wordRows) error {
	if len(subs) == 0 {
		return nil
	}
	var tids []pgtype.TID
	var from, to []int32
	for _, sb := range subs {
		if l := len(tids) - 1; l >= 0 && tids[l] == sb.tid && to[l] == sb.a-1 {
			to[l] = sb.z // the next sub-block of the same block: one slice
			continue
		}
		tids, from, to = append(tids, sb.tid), append(from, sb.a), append(to, sb.z)
	}
	return s.readArrays(ctx, `SELECT b.term, b.ids[u.a:u.z], b.wfs[u.a:u.z], b.lens[u.a:u.z]
		FROM unnest($1::tid[], $2::int[], $3::int[]) AS u(t, a, z) JOIN fts_blocks b ON b.ctid = u.t`,
		[]any{tids, from, to}, map[string]int{"": k}, rows)
}

// readArrays adds to rows the postings of the (term, ids, wfs, lens)
// rows q selects, decoded here from the arrays' binary form (the server
// sends the arrays as stored: no row per posting to build, as unnest
// does). at gives each term's word; a single entry "" gives the word of
// every row.
func (s *Store) readArrays(ctx context.Context, q string, args []any, at map[string]int, rows *wordRows) error {
	k, one := at[""]
	return s.each(ctx, q, args, func(r pgx.Rows) error {
		bl, err := scanArrays(r)
		if err != nil {
			return err
		}
		if !one {
			var ok bool
			if k, ok = at[bl.term]; !ok {
				return fmt.Errorf("a block of %q, not asked for", bl.term)
			}
		}
		for i := range bl.n {
			id := bl.id(i)
			if err := rows.add(id, bl.len(i), k, bl.wf(i)); err != nil {
				return err
			}
		}
		return nil
	})
}
