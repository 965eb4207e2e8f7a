package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
)

// The postings build's reader of FTS5's own segment records.
//
// fts5vocab's instance table hands the build one row per token instance
// through the SQL engine and database/sql (about 25M rows at 100k
// documents, 250M at 1M): per row a virtual-table step, a string for the
// token and the driver's locking, two thirds of the build's CPU. After the
// build's 'optimize' the word index is one segment: its leaf pages, read
// here in page order, are the same tokens in the same order with the same
// rows and columns, decoded in Go from the bytes. The reader accepts only
// what it understands (one segment, no tombstones, no delete markers, the
// main index's tokens), returning errSegmentUnread for anything else, and
// the build then reads the instance table as before. The build's guard
// (every row's instances add up to its length) and BenchmarkBuildImpacts's
// digest against the instance table check it.
//
// The format (fts5_index.c): a leaf page is a 4-byte header (the offset
// of its first row id not right after a token, and the offset of its
// footer), the data, and a footer of the offsets of the tokens that start
// on it (varints, each after the first a delta). A token is its length and
// bytes when first on its page, else the length it shares with the
// previous token, the length of the rest and the rest; the main index's
// tokens start with '0'. Its doclist follows: a row id (absolute after a
// token or first on a page, else a delta), then the position list's size
// (twice the bytes, plus a delete flag) and the list, which may continue
// on the next pages; a list is varints, 1 followed by a column number
// switching the column, every other one a position.

// errSegmentUnread says the word index is not in a form segmentPostings
// reads: the build reads fts5vocab's instance table instead.
var errSegmentUnread = errors.New("word index segments not read directly")

// segmentPostings calls emit for each (token, row) of the word index's
// single segment in token then row order, with the row's count of
// instances per column.
func segmentPostings(ctx context.Context, tx *sql.Tx, emit func(term []byte, row int64, cnt *[3]int64) error) error {
	var structure []byte
	if err := tx.QueryRowContext(ctx, "SELECT block FROM chunks_fts_data WHERE id = 10").Scan(&structure); err != nil {
		return err
	}
	seg, first, last, ok := singleSegment(structure)
	if !ok {
		return errSegmentUnread
	}
	base := seg << 37
	rows, err := tx.QueryContext(ctx, "SELECT id, block FROM chunks_fts_data WHERE id BETWEEN ? AND ? ORDER BY id", base+first, base+last)
	if err != nil {
		return err
	}
	defer rows.Close()
	want := base + first
	r := &segReader{page: func() ([]byte, bool, error) {
		if !rows.Next() {
			return nil, false, rows.Err()
		}
		var id int64
		var page sql.RawBytes
		if err := rows.Scan(&id, &page); err != nil {
			return nil, false, err
		}
		if id != want {
			return nil, false, errSegmentUnread
		}
		want++
		return page, true, nil
	}}
	if err := r.run(emit); err != nil {
		return err
	}
	if want != base+last+1 {
		return errSegmentUnread
	}
	return nil
}

// singleSegment reads FTS5's structure record: the segment id and first
// and last leaf page of its only segment, ok=false unless there is
// exactly one and it has no tombstones.
func singleSegment(b []byte) (seg, first, last int64, ok bool) {
	if len(b) < 4 {
		return 0, 0, 0, false
	}
	b = b[4:]
	v2 := bytes.HasPrefix(b, []byte{0xff, 0, 0, 1})
	if v2 {
		b = b[4:]
	}
	next := func() int64 {
		v, n := varintAt(b)
		if n == 0 {
			ok = false
			return 0
		}
		b = b[n:]
		return int64(v)
	}
	ok = true
	nLevel, nSeg := next(), next()
	next() // write counter
	if !ok || nSeg != 1 || nLevel > 64 {
		return 0, 0, 0, false
	}
	found := false
	for range nLevel {
		next() // segments being merged
		n := next()
		for range n {
			if !ok || found {
				return 0, 0, 0, false
			}
			seg, first, last = next(), next(), next()
			if v2 {
				next() // origins
				next()
				if next() != 0 { // tombstone pages
					return 0, 0, 0, false
				}
				next() // tombstone entries
				next() // entries
			}
			found = true
		}
	}
	if !ok || !found || seg <= 0 || seg >= 1<<16 || first < 1 || last < first || last >= 1<<31 {
		return 0, 0, 0, false
	}
	return seg, first, last, true
}

// segReader decodes a segment's leaf pages as one stream: buf holds the
// bytes not yet decoded, from stream offset pos; terms and rowids are the
// stream offsets, ascending, of the tokens and the page-first row ids
// (absolute) in the pages read so far.
type segReader struct {
	page   func() ([]byte, bool, error) // the next page, valid until the next call
	buf    []byte
	pos    int64 // the stream offset of buf[0]
	end    int64 // the stream offset past the pages read
	terms  []int64
	firsts []int64 // the tokens first on their page
	rowids []int64
	done   bool
}

// fill reads pages until n bytes follow the stream offset pos or the
// segment ends; it reports whether they do.
func (r *segReader) fill(n int) (bool, error) {
	for len(r.buf) < n && !r.done {
		page, ok, err := r.page()
		if err != nil {
			return false, err
		}
		if !ok {
			r.done = true
			break
		}
		if len(page) < 4 {
			return false, errSegmentUnread
		}
		first, foot := int(binary.BigEndian.Uint16(page)), int(binary.BigEndian.Uint16(page[2:]))
		if foot < 4 || foot > len(page) || first != 0 && (first < 4 || first >= foot) {
			return false, errSegmentUnread
		}
		at := r.end - 4 // the stream offset of the page's byte 0
		if first != 0 {
			r.rowids = append(r.rowids, at+int64(first))
		}
		off := 0
		for f := page[foot:]; len(f) > 0; {
			v, n := varintAt(f)
			if n == 0 || v > uint64(foot) {
				return false, errSegmentUnread
			}
			f = f[n:]
			off += int(v)
			if off < 4 || off >= foot {
				return false, errSegmentUnread
			}
			if len(r.terms) == 0 || r.terms[len(r.terms)-1] < at+4 {
				r.firsts = append(r.firsts, at+int64(off))
			}
			r.terms = append(r.terms, at+int64(off))
		}
		r.buf = append(r.buf, page[4:foot]...)
		r.end += int64(foot - 4)
	}
	return len(r.buf) >= n, nil
}

// varint reads the varint at the stream offset pos.
func (r *segReader) varint() (uint64, error) {
	if _, err := r.fill(9); err != nil {
		return 0, err
	}
	v, n := varintAt(r.buf)
	if n == 0 {
		return 0, errSegmentUnread
	}
	r.skip(n)
	return v, nil
}

// skip consumes n bytes of buf, dropping the offsets passed.
func (r *segReader) skip(n int) {
	r.buf = r.buf[n:]
	r.pos += int64(n)
	if len(r.buf) == 0 {
		r.buf = r.buf[:0:0] // let the pages read go
	}
}

// at reports whether the first offset of list is the stream offset pos,
// dropping those behind it.
func (r *segReader) at(list *[]int64) bool {
	for len(*list) > 0 && (*list)[0] < r.pos {
		*list = (*list)[1:]
	}
	return len(*list) > 0 && (*list)[0] == r.pos
}

// run decodes the stream, calling emit per (token, row).
func (r *segReader) run(emit func(term []byte, row int64, cnt *[3]int64) error) error {
	var term []byte
	var row int64
	firstOnPage := func() bool { return r.at(&r.rowids) }
	for {
		more, err := r.fill(1)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if r.at(&r.terms) {
			// A token: in full when first on its page (the token before it
			// ended on an earlier page), else sharing a prefix.
			var keep uint64
			if !r.at(&r.firsts) {
				if keep, err = r.varint(); err != nil {
					return err
				}
			}
			n, err := r.varint()
			if err != nil {
				return err
			}
			if keep > uint64(len(term)) || n > 1<<16 {
				return errSegmentUnread
			}
			if ok, err := r.fill(int(n)); err != nil || !ok {
				return errors.Join(err, errSegmentUnread)
			}
			term = append(term[:keep], r.buf[:n]...)
			r.skip(int(n))
			if len(term) < 2 || term[0] != '0' {
				return errSegmentUnread // a prefix index or an empty token
			}
			v, err := r.varint()
			if err != nil {
				return err
			}
			row = int64(v)
		} else if firstOnPage() {
			v, err := r.varint()
			if err != nil {
				return err
			}
			row = int64(v)
		} else {
			v, err := r.varint()
			if err != nil {
				return err
			}
			if v == 0 {
				return errSegmentUnread
			}
			row += int64(v)
		}
		size, err := r.varint()
		if err != nil {
			return err
		}
		if size&1 != 0 {
			return errSegmentUnread // a delete marker: not merged away
		}
		var cnt [3]int64
		col := 0
		for left := int(size >> 1); left > 0; {
			if ok, err := r.fill(min(left, 9)); err != nil || !ok {
				return errors.Join(err, errSegmentUnread)
			}
			v, n := varintAt(r.buf[:min(left, len(r.buf))])
			if n == 0 {
				return errSegmentUnread
			}
			r.skip(n)
			left -= n
			if v == 1 {
				if ok, err := r.fill(min(left, 9)); err != nil || !ok || left == 0 {
					return errors.Join(err, errSegmentUnread)
				}
				c, n := varintAt(r.buf[:min(left, len(r.buf))])
				if n == 0 || c >= 3 {
					return errSegmentUnread
				}
				r.skip(n)
				left -= n
				col = int(c)
				continue
			}
			cnt[col]++
		}
		if len(term) < 2 {
			return errSegmentUnread // a doclist before any token
		}
		if err := emit(term[1:], row, &cnt); err != nil {
			return err
		}
	}
}
