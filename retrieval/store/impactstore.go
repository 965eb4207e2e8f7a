package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
)

// Where the block-max postings (impacts.go) are kept, and the terms that
// keep none.
//
// Most of a word index's tokens are rare: at 1M generated documents 96 %
// of them are in fewer than impactBlock rows, one block each. Their
// postings bought little (a rare token's list is short for FTS5 too) and
// cost a row each, the token's text twice (the table and its index) and a
// block header. So only tokens with at least impactStoreMin rows keep
// postings; a question's other tokens are read when it is asked from
// FTS5's own instance table (impact_terms, fts5vocab: a seek to the token
// in FTS5's index, then its doclist), which gives the index as it is now,
// so the rows changed since the build are dropped from it there and come
// from the delta as for a stored token (impactdelta.go).
//
// A stored token is keyed by a 64-bit FNV-1a hash of its text (a rowid
// table: one b-tree, no second index holding every token's text), and its
// row holds the text before its blocks, so a question's token whose hash
// meets another token's postings is told apart and read from FTS5. Two
// stored tokens of one hash (about one in 10¹⁰ builds at a million
// tokens) both keep none.

// impactStoreMin is the fewest rows a token has for the build to store
// its postings.
const impactStoreMin = impactBlock

// impactsSchema is the postings' table and the instance table read for
// the tokens without postings.
var impactsSchema = []string{
	"CREATE TABLE IF NOT EXISTS impact_postings(h INTEGER PRIMARY KEY, data BLOB NOT NULL)",
	"CREATE VIRTUAL TABLE IF NOT EXISTS impact_terms USING fts5vocab(chunks_fts, instance)",
}

// impactsOld drops the table and triggers of the encodings before
// impactsDeltaTag's (the token's text as the key, every token stored, a
// delta without epochs): their postings are never read, and the old
// triggers would record every sync's rows for nothing.
var impactsOld = []string{
	"DROP TRIGGER IF EXISTS impacts_ai",
	"DROP TRIGGER IF EXISTS impacts_ad",
	"DROP TABLE IF EXISTS impacts_stale",
	"DROP TABLE IF EXISTS impacts",
}

// termHash is a token's key in impact_postings.
func termHash(term []byte) int64 {
	h := fnv.New64a()
	h.Write(term)
	return int64(h.Sum64())
}

// storedPostings is a token's row in impact_postings: its text's length,
// its text, then its blocks (encodeImpacts).
func storedPostings(term, blocks []byte) []byte {
	out := binary.AppendUvarint(make([]byte, 0, len(term)+len(blocks)+2), uint64(len(term)))
	out = append(out, term...)
	return append(out, blocks...)
}

// splitStored splits a row of impact_postings into its token and blocks;
// ok is false for a row that does not decode.
func splitStored(data []byte) (term, blocks []byte, ok bool) {
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)-k) {
		return nil, nil, false
	}
	return data[k : k+int(n)], data[k+int(n):], true
}

// impactData reads the postings of the tokens (one per word): a stored
// token's blocks, else its rows in the word index as it is now less the
// masked ones (the delta's), encoded as blocks; a token the index does
// not hold has none. It runs in the caller's snapshot.
func (s *Store) impactData(ctx context.Context, toks [][]string, masked map[int64]bool) (map[string][]byte, error) {
	args := make([]any, 0, len(toks))
	want := map[int64]string{}
	for _, t := range toks {
		h := termHash([]byte(t[0]))
		if _, ok := want[h]; !ok {
			args = append(args, h)
		}
		want[h] = t[0]
	}
	rows, err := s.db.QueryContext(ctx, "SELECT h, data FROM impact_postings WHERE h IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var h int64
		var d []byte
		if err := rows.Scan(&h, &d); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		term, blocks, ok := splitStored(d)
		if !ok {
			return nil, fmt.Errorf("search: %w", errImpactsDamaged)
		}
		if string(term) == want[h] {
			out[want[h]] = blocks
		}
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for _, t := range toks {
		if _, ok := out[t[0]]; ok {
			continue
		}
		d, err := s.termPostings(ctx, t[0], masked)
		if err != nil {
			return nil, err
		}
		out[t[0]] = d
	}
	return out, nil
}

// impactTermCol is an instance's column as the index of its weight in
// colWeights2 (-1 for a column the word index does not have), read by
// the build and by a search of a token without stored postings alike.
const impactTermCol = "CASE col WHEN 'title' THEN 0 WHEN 'headings' THEN 1 WHEN 'body' THEN 2 ELSE -1 END"

// termPostings reads a token's rows from FTS5's instance table, weighs
// them as the build does, drops the masked rows and encodes them as
// blocks (their bounds with no least length: any length bounds them).
func (s *Store) termPostings(ctx context.Context, term string, masked map[int64]bool) ([]byte, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT doc, "+impactTermCol+" FROM impact_terms WHERE term = ?", term)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var ps []impactPosting
	for rows.Next() {
		var row int64
		var c int
		if err := rows.Scan(&row, &c); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if c < 0 || c >= len(colWeights2) {
			return nil, fmt.Errorf("search: %w", errImpactsDamaged)
		}
		if masked[row] {
			continue
		}
		if n := len(ps); n > 0 && ps[n-1].row == row {
			ps[n-1].f2 += colWeights2[c]
			continue
		} else if n > 0 && ps[n-1].row > row {
			return nil, fmt.Errorf("search: %w", errImpactsDamaged)
		}
		ps = append(ps, impactPosting{row, colWeights2[c]})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return encodeImpacts(ps, func(int) int64 { return 0 }), nil
}
