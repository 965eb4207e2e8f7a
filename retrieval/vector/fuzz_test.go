package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzRead feeds damaged exports to the loader: it returns an error or an
// index that searches, takes inserts and saves without panicking.
func FuzzRead(f *testing.F) {
	const dims = 8
	ix := smallIndex(f, 60, dims, 3)
	ix.Delete(7)
	var buf bytes.Buffer
	if err := ix.write(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:len(magic)+40])
	buf.Reset()
	if err := New(dims, "m", Params{}).write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	q := make([]float32, dims)
	q[0] = 1
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := read(b, dims, "m", Params{})
		if err != nil {
			return
		}
		if _, err := ix.Search(Query{Vector: q, K: 5}); err != nil {
			t.Fatalf("search of a loaded index: %v", err)
		}
		if err := ix.Add(1<<40, q); err != nil {
			t.Fatalf("insert into a loaded index: %v", err)
		}
		var out bytes.Buffer
		if err := ix.write(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := read(out.Bytes(), dims, "m", Params{}); err != nil {
			t.Fatalf("saved index does not load: %v", err)
		}
	})
}

// TestReadLinkLevels: an export whose upper-level link leads to a node
// without that level is refused (a search or insert would index past the
// node's levels).
func TestReadLinkLevels(t *testing.T) {
	const dims = 8
	ix := smallIndex(t, 300, dims, 5)
	high, low := -1, -1
	for i, ls := range ix.links {
		if len(ls) >= 2 && len(ls[1]) > 0 && high < 0 {
			high = i
		}
		if len(ls) == 1 && low < 0 {
			low = i
		}
	}
	if high < 0 || low < 0 {
		t.Fatal("no node with two levels, or none with one")
	}
	ix.links[high][1][0] = int32(low)
	var buf bytes.Buffer
	if err := ix.write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := read(buf.Bytes(), dims, "m", Params{}); err == nil {
		t.Fatal("an export with a link to a missing level loaded")
	}
}

// smallIndex is an index of n clustered vectors for model "m".
func smallIndex(tb testing.TB, n, dims int, seed uint64) *Index {
	tb.Helper()
	ix := New(dims, "m", Params{})
	for i, v := range clustered(n, 4, dims, seed) {
		if err := ix.Add(int64(i), v); err != nil {
			tb.Fatal(err)
		}
	}
	return ix
}

// TestReadRefusesParams: an export whose graph parameters no gno wrote is
// refused: fewer than two links per node would give an insert an infinite
// level, a huge construction list would make every insert walk the graph.
func TestReadRefusesParams(t *testing.T) {
	var buf bytes.Buffer
	if err := New(8, "m", Params{}).write(&buf); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, v uint32 }{{1, 1}, {1, 0}, {1, 1 << 20}, {2, 0}, {2, 1 << 30}} {
		b := bytes.Clone(buf.Bytes())
		binary.LittleEndian.PutUint32(b[len(magic)+4*int(c.field):], c.v)
		if _, err := read(b, 8, "m", Params{}); err == nil {
			t.Errorf("an export with header field %d = %d loaded", c.field, c.v)
		}
	}
}

// TestReadRefusesDuplicateKeys: an export with one key on two live nodes
// is refused (deleting the key would leave the other node answering), as
// is one whose count of deleted nodes disagrees with its flags.
func TestReadRefusesDuplicateKeys(t *testing.T) {
	const dims = 8
	ix := smallIndex(t, 20, dims, 7)
	ix.keys[3] = ix.keys[4]
	var buf bytes.Buffer
	if err := ix.write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := read(buf.Bytes(), dims, "m", Params{}); err == nil {
		t.Error("an export with a key on two live nodes loaded")
	}
	ix = smallIndex(t, 20, dims, 7)
	ix.Delete(5)
	ix.ndead = 2
	buf.Reset()
	if err := ix.write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := read(buf.Bytes(), dims, "m", Params{}); err == nil {
		t.Error("an export whose deleted count disagrees with its flags loaded")
	}
}

// FuzzGraphFile feeds damaged format-2 files to the reader: it refuses
// them, or returns a graph whose searches, changes and thaw either work
// or fail with ErrDamaged, and whose thawed index saves a file that opens.
func FuzzGraphFile(f *testing.F) {
	const dims = 8
	ix := smallIndex(f, 60, dims, 3)
	ix.Delete(7)
	var buf bytes.Buffer
	if err := ix.writeV2(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:headerSize+8])
	buf.Reset()
	if err := New(dims, "m", Params{}).writeV2(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	q := make([]float32, dims)
	q[0] = 1
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := openBytes(b, nil, dims, "m", Params{}, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrStale) {
				t.Fatalf("refused without ErrDamaged: %v", err)
			}
			return
		}
		damaged := func(err error) {
			if err != nil && !errors.Is(err, ErrDamaged) {
				t.Fatalf("want nil or ErrDamaged, got %v", err)
			}
		}
		_, err = g.Search(Query{Vector: q, K: 5})
		damaged(err)
		_, err = g.Search(Query{Vector: q, K: 5, Filter: func(k int64) bool { return k%2 == 0 }, Admitted: 10})
		damaged(err)
		g.Has(3)
		g.Keys()
		g.Delete(3)
		if err := g.Add(1<<40, q); err != nil {
			t.Fatal(err)
		}
		if g.file.l.n > 300 {
			// A thaw may rebuild the graph: n inserts of cost efC·M,
			// the file's own parameters, bounded but slow for a fuzzer.
			return
		}
		ix, err := g.Thaw()
		if damaged(err); err != nil {
			return
		}
		var out bytes.Buffer
		if err := ix.writeV2(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := openBytes(out.Bytes(), nil, dims, "m", Params{}, "again"); err != nil {
			t.Fatalf("saved graph does not open: %v", err)
		}
	})
}
