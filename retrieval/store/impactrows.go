package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// The build's rows (readImpacts): each chunk's slot, and the instance
// table's reader for an index not in one segment.

// buildRow is a chunk of the word index as the build sees it: its row
// id, its length and the token instances listed for it so far, together
// so that a posting touches one cache line (at a million chunks these
// are lookups at random in tens of megabytes).
type buildRow struct{ id, d, seen int64 }

// rowFinder returns a function giving the index of a row in rs (by
// ascending id), -1 when it is not there. A row id is its document's id
// above 16 bits (DocOfChunk): the function looks up the document's first
// chunk in a table by document id, then searches its few chunks; a binary
// search over all of rs took a third of the build's CPU at 1M. Document
// ids far beyond the row count (not seen from gno's own writes) get the
// binary search.
func rowFinder(rs []buildRow) func(row int64) int {
	search := func(rs []buildRow, row int64) int {
		i, ok := slices.BinarySearchFunc(rs, row, func(r buildRow, row int64) int { return cmp.Compare(r.id, row) })
		if !ok {
			return -1
		}
		return i
	}
	if len(rs) == 0 || rs[0].id < 0 || rs[len(rs)-1].id>>16 > int64(4*len(rs)+1<<20) {
		return func(row int64) int { return search(rs, row) }
	}
	// first[d] is the index of the first chunk of a document d or after.
	first := make([]int32, rs[len(rs)-1].id>>16+2)
	k := 0
	for d := range first {
		for k < len(rs) && rs[k].id>>16 < int64(d) {
			k++
		}
		first[d] = int32(k)
	}
	return func(row int64) int {
		d := row >> 16
		if d < 0 || d >= int64(len(first)-1) {
			return -1
		}
		lo, hi := int(first[d]), int(first[d+1])
		if i := search(rs[lo:hi], row); i >= 0 {
			return lo + i
		}
		return -1
	}
}

// instancePostings reads the word index's token instances from
// fts5vocab's instance table, for an index segmentPostings does not read,
// calling add per instance.
func instancePostings(ctx context.Context, tx *sql.Tx, add func(term []byte, row int64, f2 uint64, n int64) error) error {
	// The instance table lists (token, row, column, offset) by token, then
	// row. The column comes as its weight's index, not its name: a string
	// per instance was a fifth of the build's CPU.
	rows, err := tx.QueryContext(ctx, "SELECT term, doc, "+impactTermCol+" FROM impact_terms")
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		term sql.RawBytes
		row  int64
		c    int
	)
	for rows.Next() {
		if err := rows.Scan(&term, &row, &c); err != nil {
			return err
		}
		if c < 0 || c >= len(colWeights2) {
			return fmt.Errorf("word index column not title, headings or body (token %q, chunk %d)", term, row)
		}
		if err := add(term, row, colWeights2[c], 1); err != nil {
			return err
		}
	}
	return rows.Err()
}
