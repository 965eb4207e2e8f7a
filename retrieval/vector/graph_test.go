package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// exactOf serves full-precision vectors from vecs (key = position), as the
// store does for the engine.
func exactOf(vecs [][]float32) func([]int64) ([][]float32, error) {
	return func(keys []int64) ([][]float32, error) {
		out := make([][]float32, len(keys))
		for i, k := range keys {
			if k >= 0 && k < int64(len(vecs)) {
				out[i] = vecs[k]
			}
		}
		return out, nil
	}
}

// savedGraph builds an index of vecs, saves it and opens the file.
func savedGraph(t testing.TB, vecs [][]float32) (*Index, *Graph, string) {
	t.Helper()
	ix := New(len(vecs[0]), "m", Params{})
	for i, v := range vecs {
		if err := ix.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "v.hnsw")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path, len(vecs[0]), "m", Params{})
	if err != nil {
		t.Fatal(err)
	}
	return ix, g, path
}

// graphRecall is recall@k of g's search against an exact scan of ix.
func graphRecall(t testing.TB, ix *Index, g *Graph, queries [][]float32, k int, q Query) float64 {
	t.Helper()
	var hit, total int
	for _, v := range queries {
		q.Vector, q.K = v, k
		want, _ := ix.SearchExact(Query{Vector: v, K: k, Filter: q.Filter})
		got, err := g.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		in := map[int64]bool{}
		for _, h := range got {
			if q.Filter != nil && !q.Filter(h.Key) {
				t.Fatalf("filtered search returned rejected key %d", h.Key)
			}
			in[h.Key] = true
		}
		for _, h := range want {
			if in[h.Key] {
				hit++
			}
		}
		total += len(want)
	}
	return float64(hit) / float64(total)
}

// TestGraphRecall: the saved graph, walked over int8 codes and re-scored
// exactly, finds the exact top 10 of a seeded clustered set, filtered or
// not, and its scores are the exact ones.
func TestGraphRecall(t *testing.T) {
	all := clustered(5100, 50, 64, 1)
	vecs := all[:5000]
	ix, g, _ := savedGraph(t, vecs)
	exact := exactOf(vecs)
	if r := graphRecall(t, ix, g, all[5000:], 10, Query{Exact: exact}); r < 0.97 {
		t.Errorf("recall@10 %.3f", r)
	}
	even := func(k int64) bool { return k%2 == 0 }
	if r := graphRecall(t, ix, g, all[5000:], 10, Query{Exact: exact, Filter: even}); r < 0.97 {
		t.Errorf("filtered recall@10 %.3f", r)
	}
	few := func(k int64) bool { return k%100 == 0 }
	if r := graphRecall(t, ix, g, all[5000:], 10, Query{Exact: exact, Filter: few, Admitted: 50}); r != 1 {
		t.Errorf("small filtered set (an exact scan) recall@10 %.3f", r)
	}
	// Without exact vectors the codes' scores stand, close to the truth.
	if r := graphRecall(t, ix, g, all[5000:], 10, Query{}); r < 0.9 {
		t.Errorf("codes-only recall@10 %.3f", r)
	}
	got, _ := g.Search(Query{Vector: vecs[3], K: 1, Exact: exact})
	if len(got) != 1 || got[0].Key != 3 || got[0].Score < 0.9999 {
		t.Errorf("a stored vector's own search: %v", got)
	}
}

// TestGraphChanges: vectors added and deleted after the save are searched
// beside the file, counted, listed, and folded in by Thaw.
func TestGraphChanges(t *testing.T) {
	all := clustered(1200, 10, 32, 2)
	vecs := all[:1000]
	_, g, path := savedGraph(t, vecs)
	if g.Len() != 1000 || !g.Has(7) || g.Has(5000) || g.Pending() != 0 {
		t.Fatalf("opened: len %d", g.Len())
	}
	// What the store holds: 7 deleted, 8 replaced by vector 1100,
	// 1000–1099 added.
	stored := map[int64][]float32{}
	for k, v := range all[:1100] {
		stored[int64(k)] = v
	}
	delete(stored, 7)
	stored[8] = all[1100]
	exact := func(keys []int64) ([][]float32, error) {
		out := make([][]float32, len(keys))
		for i, k := range keys {
			out[i] = stored[k]
		}
		return out, nil
	}
	g.Delete(7)
	g.Add(8, all[1100])
	for k := 1000; k < 1100; k++ {
		g.Add(int64(k), all[k])
	}
	if g.Len() != 1099 || g.Has(7) || !g.Has(8) || !g.Has(1050) || g.Pending() != 103 {
		t.Fatalf("after changes: len %d pending %d", g.Len(), g.Pending())
	}
	if g.Delete(7) || !g.Delete(1099) {
		t.Error("Delete reports wrongly")
	}
	if keys := g.Keys(); len(keys) != 1098 {
		t.Errorf("keys: %d", len(keys))
	}
	for _, c := range []struct {
		q    []float32
		want int64
	}{{all[1050], 1050}, {all[1100], 8}} {
		hits, err := g.Search(Query{Vector: c.q, K: 3, Exact: exact})
		if err != nil || len(hits) == 0 || hits[0].Key != c.want {
			t.Errorf("search for %d: %v %v", c.want, hits, err)
		}
	}
	hits, _ := g.Search(Query{Vector: vecs[7], K: 50, Exact: exact})
	for _, h := range hits {
		if h.Key == 7 {
			t.Error("a deleted key was returned")
		}
	}
	ix, err := g.Thaw()
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 1098 || ix.Has(7) || !ix.Has(8) {
		t.Fatalf("thawed: len %d", ix.Len())
	}
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	g2, err := Open(path, 32, "m", Params{})
	if err != nil || g2.Len() != 1098 || g2.Pending() != 0 {
		t.Fatalf("reopened: %v", err)
	}
	hits, _ = g2.Search(Query{Vector: all[1100], K: 1, Exact: exact})
	if len(hits) != 1 || hits[0].Key != 8 {
		t.Errorf("replaced vector after the new save: %v", hits)
	}
}

// TestGraphRefusesDamage: truncated, altered and hostile files are
// refused at open with ErrDamaged, or, where the damage is in links only
// a walk reads, the search that meets it fails with ErrDamaged.
func TestGraphRefusesDamage(t *testing.T) {
	vecs := clustered(600, 6, 16, 3)
	_, g, path := savedGraph(t, vecs)
	good, _ := os.ReadFile(path)
	l := g.file.l
	le := binary.LittleEndian
	at := func(off int64, v uint32) []byte {
		b := bytes.Clone(good)
		le.PutUint32(b[off:], v)
		return b
	}
	header := bytes.Clone(good)
	header[20]++ // M, under the checksum
	for name, b := range map[string][]byte{
		"empty":     {},
		"magic":     []byte("gno-hnsw-v9\n\x00\x00\x00\x00"),
		"truncated": good[:len(good)-4],
		"half":      good[:len(good)/2],
		"longer":    append(bytes.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0),
		"header":    header,
		"upper":     at(l.upper+4, 99), // levels above the top
	} {
		p := filepath.Join(t.TempDir(), "bad")
		os.WriteFile(p, b, 0o644)
		if _, err := Open(p, 16, "m", Params{}); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: want ErrDamaged, got %v", name, err)
		}
	}
	// Links are read during a walk: a count over the room, a node out of
	// range, on the level-0 record of key 0 (node 0: live nodes are in
	// key order), which a search for its vector expands.
	for name, b := range map[string][]byte{
		"count": at(l.level0, 1000),
		"link":  at(l.level0+4, uint32(l.n+5)),
	} {
		g, err := openBytes(b, nil, 16, "m", Params{}, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := g.Search(Query{Vector: vecs[0], K: 5}); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: search wants ErrDamaged, got %v", name, err)
		}
		if _, err := g.Thaw(); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: thaw wants ErrDamaged, got %v", name, err)
		}
	}
	if _, err := Open(path, 16, "other", Params{}); !errors.Is(err, ErrStale) {
		t.Errorf("other model: want ErrStale, got %v", err)
	}
}

// TestGraphUpgradesFirstFormat: an export in the first format (float32
// vectors, decoded whole) is converted in place when opened, and answers
// as the index it was saved from.
func TestGraphUpgradesFirstFormat(t *testing.T) {
	all := clustered(2050, 20, 32, 4)
	vecs := all[:2000]
	ix := build(t, vecs)
	ix.Delete(5)
	path := filepath.Join(t.TempDir(), "v.hnsw")
	f, _ := os.Create(path)
	if err := ix.write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := Open(path, 32, "test-model", Params{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, []byte(magicV2)) {
		t.Fatal("the file was not rewritten in format 2")
	}
	if g.Len() != 1999 || g.Has(5) {
		t.Fatalf("upgraded: len %d", g.Len())
	}
	if r := graphRecall(t, ix, g, all[2000:], 10, Query{Exact: exactOf(vecs)}); r < 0.97 {
		t.Errorf("upgraded recall@10 %.3f", r)
	}
	// A damaged first-format file is refused as damaged, not stale.
	f, _ = os.Create(path)
	ix.write(f)
	f.Close()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)/2], 0o644)
	if _, err := Open(path, 32, "test-model", Params{}); !errors.Is(err, ErrDamaged) {
		t.Errorf("half a first-format file: want ErrDamaged, got %v", err)
	}
}

// TestGraphReadWhileReplaced: searches of an opened graph go on, with
// the old answers, while new graphs are saved over its path (each save
// is a rename, so the mapping keeps the old file).
func TestGraphReadWhileReplaced(t *testing.T) {
	all := clustered(900, 8, 16, 5)
	_, g, path := savedGraph(t, all[:400])
	exact := exactOf(all)
	want, err := g.Search(Query{Vector: all[10], K: 5, Exact: exact})
	if err != nil || len(want) != 5 {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for range 200 {
				got, err := g.Search(Query{Vector: all[10], K: 5, Exact: exact})
				if err != nil || len(got) != 5 || got[0] != want[0] {
					errs <- errors.Join(err, errors.New("answer changed"))
					return
				}
			}
		})
	}
	for i := range 5 {
		ix := New(16, "m", Params{})
		for k := 400 + 100*i; k < 500+100*i; k++ {
			ix.Add(int64(k), all[k])
		}
		if err := ix.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	g2, err := Open(path, 16, "m", Params{})
	if err != nil || g2.Len() != 100 || !g2.Has(850) {
		t.Errorf("the last save: %v", err)
	}
}

// TestTile: a tiled file opens, holds every copy's vectors under offset
// keys, and its first copy answers as the original.
func TestTile(t *testing.T) {
	all := clustered(520, 5, 16, 9)
	ix, _, path := savedGraph(t, all[:500])
	ix.Delete(3)
	ix.Save(path)
	dst := filepath.Join(t.TempDir(), "tiled.hnsw")
	if err := Tile(path, dst, 3); err != nil {
		t.Fatal(err)
	}
	tg, err := Open(dst, 16, "m", Params{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Len() != 3*499 || !tg.Has(2*500+7) || tg.Has(2*500+3) || tg.Has(3) {
		t.Fatalf("tiled: len %d", tg.Len())
	}
	tix, err := tg.Thaw() // reads and checks every link
	if err != nil || tix.Len() != 3*499 {
		t.Fatalf("thaw of the tiled file: %v", err)
	}
	for _, q := range all[500:] {
		a, _ := ix.Search(Query{Vector: q, K: 5})
		b, err := tg.Search(Query{Vector: q, K: 5, Exact: exactOf(all)})
		if err != nil || len(b) != 5 || a[0].Key != b[0].Key {
			t.Fatalf("first copy answers %v, original %v (%v)", b, a, err)
		}
	}
}
