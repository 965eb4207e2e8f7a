package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The postings are kept as blocks (fts_blocks): per index and term, one
// row per write flush holding its chunks' postings as arrays, with what
// bounds any of them's share of a row's score (max_wf, min_lr: the
// top-k's word bounds, bm25topk.go). A search unnests a word's arrays on
// the server (postingsFrom).
//
// Reading the blocks themselves block-max (the chunk ids cut into the
// ranges the blocks cover, the ranges read whole highest summed bound
// first until the rest cannot reach the limit-th document) was built and
// measured (bench/RESULTS.md, branch pgrows 520af1d): a flush's block
// covers ~500 documents, too coarse to prune, so it read ~10× the
// postings MaxScore reads and cost more in gno at SciFact and as much
// at 100k; it is not kept.

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
