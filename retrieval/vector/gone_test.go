package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// TestGoneList: the keys deleted since a save, written beside the graph,
// are deleted again by a fresh process's LoadGone (the restart); a list
// of another save or stamp is stale, a damaged one refused, and none
// left when nothing is gone.
func TestGoneList(t *testing.T) {
	all := clustered(1100, 10, 32, 4)
	vecs := all[:1000]
	_, g, path := savedGraph(t, vecs)
	gone := path + ".gone"
	for k := int64(0); k < 1000; k += 7 {
		g.Delete(k)
	}
	g.Add(14, all[1000]) // replaced: gone from the file, stored again
	if err := g.SaveGone(gone, 5); err != nil {
		t.Fatal(err)
	}
	fresh := func() *Graph {
		t.Helper()
		g, err := Open(path, 32, "m", Params{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g2 := fresh()
	n, err := g2.LoadGone(gone, 5)
	if err != nil || n != 143 || g2.Len() != 1000-143 || g2.Has(7) || g2.Has(14) || !g2.Has(8) {
		t.Fatalf("after restart: %d deleted, %v, len %d", n, err, g2.Len())
	}
	g2.Add(14, all[1000]) // what the store's newer rows bring back
	hits, err := g2.Search(Query{Vector: vecs[7], K: 20, Exact: exactOf(vecs)})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Key%7 == 0 && h.Key != 14 {
			t.Errorf("deleted key %d found after restart", h.Key)
		}
	}
	if _, err := fresh().LoadGone(gone, 6); !errors.Is(err, ErrStale) {
		t.Errorf("another stamp: %v", err)
	}
	if n, err := fresh().LoadGone(gone+".none", 5); n != 0 || err != nil {
		t.Errorf("no list: %d %v", n, err)
	}
	good, _ := os.ReadFile(gone)
	for name, b := range map[string][]byte{
		"truncated": good[:len(good)-9],
		"flipped":   flip(good, goneHeaderSize+3),
		"empty":     nil,
		"magic":     flip(good, 2),
	} {
		os.WriteFile(gone, b, 0o644)
		if _, err := fresh().LoadGone(gone, 5); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Well formed, but naming a key the graph does not hold.
	os.WriteFile(gone, goneList(good, 99999), 0o644)
	if _, err := fresh().LoadGone(gone, 5); !errors.Is(err, ErrDamaged) {
		t.Errorf("unknown key: %v", err)
	}
	// A new save of the graph makes the list stale.
	os.WriteFile(gone, good, 0o644)
	ix, err := g.Thaw()
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh().LoadGone(gone, 5); !errors.Is(err, ErrStale) {
		t.Errorf("after a new save: %v", err)
	}
	// Nothing gone: no list.
	if err := fresh().SaveGone(gone, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty list was left: %v", err)
	}
}

func flip(b []byte, at int) []byte {
	c := bytes.Clone(b)
	c[at] ^= 0x40
	return c
}

// goneList is the list good with its keys replaced by keys, checksum
// made again.
func goneList(good []byte, keys ...int64) []byte {
	le := binary.LittleEndian
	b := bytes.Clone(good[:goneHeaderSize])
	le.PutUint64(b[40:], uint64(len(keys)))
	for _, k := range keys {
		b = le.AppendUint64(b, uint64(k))
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// FuzzGoneList: a tombstone list is a parser's input: anything is a list
// gno wrote, ErrStale or ErrDamaged, never a crash or an allocation its
// size does not hold.
func FuzzGoneList(f *testing.F) {
	ix := smallIndex(f, 60, 8, 5)
	path := filepath.Join(f.TempDir(), "g.hnsw")
	if err := ix.Save(path); err != nil {
		f.Fatal(err)
	}
	g, err := Open(path, 8, "m", Params{})
	if err != nil {
		f.Fatal(err)
	}
	g.Delete(3)
	g.Delete(40)
	if err := g.SaveGone(path+".gone", 1); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path + ".gone")
	f.Add(good)
	f.Add(good[:len(good)-4])
	f.Add(goneList(good))
	f.Add(goneList(good, 40, 3))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, _, _, _, err := parseGone(b); err != nil && !errors.Is(err, ErrDamaged) {
			t.Fatalf("refused without ErrDamaged: %v", err)
		}
		p := filepath.Join(dir, "fuzz.gone")
		os.WriteFile(p, b, 0o644)
		g, err := Open(path, 8, "m", Params{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := g.LoadGone(p, 1)
		if err != nil && !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrStale) {
			t.Fatalf("want ErrDamaged or ErrStale, got %v", err)
		}
		if err != nil && n != 0 || g.Len() != 60-n {
			t.Fatalf("%d deleted (%v), len %d", n, err, g.Len())
		}
	})
}
