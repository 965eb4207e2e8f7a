package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
)

// Block-max postings of the word index, scored in Go with FTS5's BM25.
//
// FTS5 scores a row by bm25(), which for every statement first counts
// each phrase's whole doclist (its idf) and then looks up the column sizes
// of every row it scores; the pruning of prune.go and prunesets.go cut the
// rows scored, but not those reads: at a million chunks a question with a
// word in a quarter of the rows reads that word's doclist three to five
// times (250–320 ms of CPU), however few rows it scores. The postings
// table (impact_postings, impactstore.go) holds, per token, its postings
// in blocks of impactBlock: each row's id and its frequency weighted by
// gno's column weights, and per block the largest weighted frequency and
// the smallest row length. Those two bound
// every row of the block under BM25 with the idf and average length of
// the moment (BM25 grows with the frequency and falls with the length), so
// a search reads each query token's postings once, skips the blocks that
// cannot place a row above the k-th score found so far without decoding
// them, and computes the score of the rows that can with FTS5's formula,
// operation for operation (impactScore), from the same inputs bm25() reads:
// the row count and token total of FTS5's averages record, each token's
// row count (its postings' length) and the row's column sizes from
// chunks_fts_docsize. The result is FTS5's to the bit
// (TestImpactSearchExact and TestImpactsDeltaExact compare every outcome
// with bm25()).
//
// Document-at-a-time over postings ordered by row id was chosen over
// impact-ordered lists: a row's score needs every query token's frequency
// in it, which row order gives by merging, and the per-block bounds give
// most of impact order's skipping for the two-to-six-word questions gno
// sees (known-item searches).
//
// The postings are built from the word index itself (FTS5's own segment
// records, decoded in Go, impactseg.go, or fts5vocab's instance table for
// an index in another form: FTS5's own tokens, so no second tokenizer can
// disagree with it), by rebuildImpacts in a read snapshot of the word
// index, installed in a short transaction (impactbuild.go); only tokens
// with at least impactStoreMin rows keep postings, the others are read
// from FTS5 when asked (impactstore.go). Syncs after the build record the chunk rows they change
// (triggers, in their own transaction), and a search masks those rows in
// the built segment and scores their current text apart, with the current
// idf and average length (impactdelta.go: the segment-plus-delta design,
// chosen over rebuilding after each sync, which costs ~4 s of CPU at
// 100k documents and ~50 s at 1M). Builds run at the end of a first gno update, in the
// daemon's idle time once the delta has grown, and in gno cleanup. The
// structure is optional: an index without it searches with FTS5 as before
// until its next gno update builds it.

// impactBlock is the number of postings in a block: one block's bound
// covers this many rows, and skipping it skips their decoding.
const impactBlock = 128

// impactsKey is the meta key holding the index state the postings
// reflects (impactsVersion).
const impactsKey = "impacts"

// colWeights2 are gno's column weights (bm25Weights) doubled, so a
// weighted frequency is an integer: FTS5 sums the weights of a row's
// instances as doubles, and sums of 2.0, 1.5 and 1.0 are exact.
var colWeights2 = [3]uint64{4, 3, 2}

// impactsVersion returns the word index state the postings must
// reflect to be used: FTS5's structure record, rewritten (its cookie
// counted up) by every transaction that adds, deletes or merges rows of the
// word index and by nothing else, so a sync that changed no chunk keeps
// the postings; and its averages record (row count and token totals,
// which bm25() reads), returned too.
func (s *Store) impactsVersion(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (string, []byte, error) {
	var structure, avg []byte
	err := q.QueryRowContext(ctx, "SELECT (SELECT block FROM chunks_fts_data WHERE id = 10), (SELECT block FROM chunks_fts_data WHERE id = 1)").Scan(&structure, &avg)
	if err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(structure) + "/" + hex.EncodeToString(avg), avg, nil
}

// averages decodes FTS5's averages record: the row count and the total of
// every column's tokens (xRowCount and xColumnTotalSize(-1)).
func averages(b []byte) (nRow, nToken int64, ok bool) {
	v, n := varintAt(b)
	if n == 0 {
		return 0, 0, false
	}
	nRow = int64(v)
	b = b[n:]
	for len(b) > 0 {
		v, n := varintAt(b)
		if n == 0 {
			return 0, 0, false
		}
		nToken += int64(v)
		b = b[n:]
	}
	return nRow, nToken, true
}

// varintAt decodes the SQLite varint at the start of b and its
// length (0 when b is short).
func varintAt(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// rowLength is a chunk's length in tokens as bm25() sees it
// (xColumnSize(-1)): the sum of its docsize record's columns.
func rowLength(sz []byte) int64 {
	var d int64
	for len(sz) > 0 {
		v, n := varintAt(sz)
		if n == 0 {
			break
		}
		d += int64(v)
		sz = sz[n:]
	}
	return d
}

// impactPosting is one row of a token's postings.
type impactPosting struct {
	row int64
	f2  uint64 // twice the weighted frequency
}

// encodeImpacts writes a token's postings (ascending rows), ps[i]'s row of
// length(i) tokens, in blocks: per
// block a header (posting count, the last row's delta from the previous
// block's last row, the largest f2, the smallest row length, the body's
// length) and then the body (the postings, bit-packed: packedBody), so a
// reader can bound a block and skip its body without decoding it.
func encodeImpacts(ps []impactPosting, length func(i int) int64) []byte {
	var out, body []byte
	var dd, cs, fs []uint64
	prev := int64(0)
	for start := 0; start < len(ps); start += impactBlock {
		blk := ps[start:min(start+impactBlock, len(ps))]
		dd, cs, fs = dd[:0], cs[:0], fs[:0]
		var maxF uint64
		minD := int64(-1)
		last := prev
		for i, p := range blk {
			d, c := postingParts(last, p.row)
			dd, cs, fs = append(dd, d), append(cs, c), append(fs, p.f2-2)
			last = p.row
			maxF = max(maxF, p.f2)
			if d := length(start + i); minD < 0 || d < minD {
				minD = d
			}
		}
		body = appendPacked(appendPacked(appendPacked(body[:0], dd), cs), fs)
		out = binary.AppendUvarint(out, uint64(len(blk)))
		out = binary.AppendUvarint(out, uint64(last-prev))
		out = binary.AppendUvarint(out, maxF)
		out = binary.AppendUvarint(out, uint64(minD))
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
		prev = last
	}
	return out
}

// impactBlockHdr is one block of a token's postings, as read from its
// header; its body is data[off:off+size].
type impactBlockHdr struct {
	n         int
	first     int64 // the previous block's last row: rows are > first
	last      int64
	maxF2     uint64
	minD      int64
	off, size int
}

// errImpactsDisagree is returned by rebuildImpacts for a word index
// whose token lists disagree with its row lengths: no postings are built
// and searches use FTS5.
var errImpactsDisagree = errors.New("word index lists more or fewer tokens for a row than its length: postings not built")

// errImpactsDamaged is returned for postings that do not decode.
var errImpactsDamaged = errors.New("word index postings are damaged: run gno cleanup to rebuild them")

// decodeHeaders reads every block header of a token's postings.
func decodeHeaders(data []byte) ([]impactBlockHdr, int64, error) {
	var hs []impactBlockHdr
	var df int64
	prev := int64(0)
	i := 0
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(data[i:])
		if n <= 0 {
			return 0, false
		}
		i += n
		return v, true
	}
	for i < len(data) {
		var vals [5]uint64
		for k := range vals {
			v, ok := next()
			if !ok {
				return nil, 0, errImpactsDamaged
			}
			vals[k] = v
		}
		h := impactBlockHdr{n: int(vals[0]), first: prev, last: prev + int64(vals[1]), maxF2: vals[2], minD: int64(vals[3]), off: i, size: int(vals[4])}
		if h.n <= 0 || h.n > impactBlock || h.size < 0 || h.size > len(data)-i || vals[1] >= 1<<62 || h.last >= 1<<62 {
			return nil, 0, errImpactsDamaged
		}
		i += h.size
		prev = h.last
		df += int64(h.n)
		hs = append(hs, h)
	}
	return hs, df, nil
}

// decodeBlock appends the postings of block h of data to ps.
func decodeBlock(data []byte, h impactBlockHdr, ps []impactPosting) ([]impactPosting, error) {
	body := data[h.off : h.off+h.size]
	var buf [3 * impactBlock]uint64
	vs := buf[:0]
	for range 3 {
		var n int
		if vs, n = readPacked(body, h.n, vs); n <= 0 {
			return nil, errImpactsDamaged
		}
		body = body[n:]
	}
	if len(body) != 0 {
		return nil, errImpactsDamaged
	}
	dd, cs, fs := vs[:h.n], vs[h.n:2*h.n], vs[2*h.n:]
	row := h.first
	for i := range h.n {
		c := cs[i]
		if dd[i] == 0 {
			if c >= 1<<16 {
				return nil, errImpactsDamaged
			}
			next := row + int64(c) + 1
			if next>>16 != row>>16 {
				return nil, errImpactsDamaged
			}
			row = next
		} else {
			if c > 0xffff || dd[i] >= 1<<46 || row>>16+int64(dd[i]) >= 1<<46 {
				return nil, errImpactsDamaged
			}
			row = (row>>16+int64(dd[i]))<<16 | int64(c)
		}
		if fs[i] > math.MaxUint64-2 {
			return nil, errImpactsDamaged
		}
		ps = append(ps, impactPosting{row, fs[i] + 2})
	}
	if row != h.last {
		return nil, errImpactsDamaged
	}
	return ps, nil
}
