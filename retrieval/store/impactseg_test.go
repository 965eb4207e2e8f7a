package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// segPosting is one (token, row) as the build's readers give it.
type segPosting struct {
	term string
	row  int64
	f2   uint64
	n    int64
}

// readBoth reads the word index in tx with segmentPostings and with
// fts5vocab's instance table (instancePostings), each (token, row)
// summed.
func readBoth(t *testing.T, ctx context.Context, tx *sql.Tx) (seg, inst []segPosting, segErr error) {
	t.Helper()
	segErr = segmentPostings(ctx, tx, func(term []byte, row int64, cnt *[3]int64) error {
		seg = append(seg, segPosting{string(term), row, uint64(cnt[0])*colWeights2[0] + uint64(cnt[1])*colWeights2[1] + uint64(cnt[2])*colWeights2[2], cnt[0] + cnt[1] + cnt[2]})
		return nil
	})
	err := instancePostings(ctx, tx, func(term []byte, row int64, f2 uint64, n int64) error {
		if k := len(inst) - 1; k >= 0 && inst[k].term == string(term) && inst[k].row == row {
			inst[k].f2 += f2
			inst[k].n += n
			return nil
		}
		inst = append(inst, segPosting{string(term), row, f2, n})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seg, inst, segErr
}

// TestSegmentPostingsMatchInstances checks that the build's reader of
// FTS5's segment records gives exactly the tokens, rows and per-column
// counts of fts5vocab's instance table after the build's merge, on an
// index whose documents were changed, added and removed (the merge drops
// the rows deleted from the contentless table), and that it declines an
// index of several segments (the build then reads the instance table).
func TestSegmentPostingsMatchInstances(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 700, 1500, 29)
	r := rand.New(rand.NewPCG(5, 6))
	b, err := st.Begin(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("d%d.md", 1+r.IntN(700)), 1+r.IntN(3))); err != nil {
			t.Fatal(err)
		}
		if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("seg-new-%d.md", i), 1+r.IntN(3))); err != nil {
			t.Fatal(err)
		}
		if err := b.Remove(ctx, int64(1+r.IntN(700))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// The instance table a build makes (impactsSchema).
	for _, q := range impactsSchema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Several segments now (the writes added one): declined.
	if _, _, err := readBoth(t, ctx, tx); !errors.Is(err, errSegmentUnread) {
		t.Fatalf("several segments: %v, want errSegmentUnread", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')"); err != nil {
		t.Fatal(err)
	}
	seg, inst, err := readBoth(t, ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if len(inst) < 10000 {
		t.Fatalf("only %d postings", len(inst))
	}
	if !reflect.DeepEqual(seg, inst) {
		for i := range min(len(seg), len(inst)) {
			if seg[i] != inst[i] {
				t.Fatalf("posting %d: segments %+v, instance table %+v", i, seg[i], inst[i])
			}
		}
		t.Fatalf("segments give %d postings, the instance table %d", len(seg), len(inst))
	}
}

// TestSingleSegment checks the structure record's reading: one segment
// without tombstones accepted, anything else declined.
func TestSingleSegment(t *testing.T) {
	v2 := []byte{0, 0, 0, 4, 0xff, 0, 0, 1}
	rec := func(head []byte, vals ...uint64) []byte {
		b := append([]byte(nil), head...)
		for _, v := range vals {
			b = binary.AppendUvarint(b, v) // values below 128: one byte either way
		}
		return b
	}
	for _, c := range []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"one segment", rec(v2, 2, 1, 0, 0, 0, 0, 1, 6, 1, 90, 1, 5, 0, 0, 100), true},
		{"v1", rec(v2[:4], 1, 1, 0, 0, 1, 3, 1, 9), true},
		{"tombstones", rec(v2, 1, 1, 0, 0, 1, 6, 1, 90, 1, 5, 2, 7, 100), false},
		{"two segments", rec(v2, 1, 2, 0, 0, 2, 6, 1, 90, 1, 5, 0, 0, 100, 7, 1, 9, 1, 5, 0, 0, 10), false},
		{"short", rec(v2, 1, 1, 0, 0, 1, 6), false},
		{"empty", nil, false},
	} {
		_, _, _, ok := singleSegment(c.b)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
	}
}

// FuzzSegmentPages checks that the segment reader refuses damaged leaf
// pages with an error, never a panic or a loop: the input is split into
// pages at each 0xfe 0xfd pair.
func FuzzSegmentPages(f *testing.F) {
	// A page holding token "0a" in rows 5 (body, two positions) and 9
	// (title), then token "0ab" in row 5 (headings).
	page := []byte{0, 0, 0, 0, 2, '0', 'a', 5, 6, 1, 2, 2, 3, 4, 4, 2, 3, 1, 1, 1, 5, 4, 1, 1, 2}
	binary.BigEndian.PutUint16(page[2:], uint16(len(page)))
	page = append(page, 4, 16)
	f.Add(page)
	f.Add(append(append(append([]byte(nil), page...), 0xfe, 0xfd), 0, 6, 0, 8, 7, 2, 0, 0))
	f.Add([]byte{0, 0, 0, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		var pages [][]byte
		for {
			i := indexPair(data)
			if i < 0 {
				pages = append(pages, data)
				break
			}
			pages = append(pages, data[:i])
			data = data[i+2:]
		}
		r := &segReader{page: func() ([]byte, bool, error) {
			if len(pages) == 0 {
				return nil, false, nil
			}
			p := pages[0]
			pages = pages[1:]
			return p, true, nil
		}}
		var last string
		var lastRow int64
		err := r.run(func(term []byte, row int64, cnt *[3]int64) error {
			if string(term) == last && row <= lastRow {
				return errSegmentUnread // a reader would catch it by the guard
			}
			last, lastRow = string(term), row
			return nil
		})
		if err != nil && !errors.Is(err, errSegmentUnread) {
			t.Fatalf("error not errSegmentUnread: %v", err)
		}
	})
}

// indexPair is the index of the first 0xfe 0xfd in b, or -1.
func indexPair(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xfe && b[i+1] == 0xfd {
			return i
		}
	}
	return -1
}
