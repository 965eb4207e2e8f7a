package vector

import (
	"path/filepath"
	"testing"
)

// TestQuantizedBuild: a graph built on int8 codes (NewQuantized, as the
// engine builds and Thaw re-saves) holds no float32 vectors and, saved
// and searched with exact re-scoring, finds the exact top 10 of a seeded
// clustered set as well as a graph built on float32 does; its own search
// re-scores too, and its codes are written to the file unchanged.
func TestQuantizedBuild(t *testing.T) {
	all := clustered(5100, 50, 64, 1)
	vecs, queries := all[:5000], all[5000:]
	exact := exactOf(vecs)
	ref := New(64, "m", Params{}) // the exact scan to compare with
	q8 := NewQuantized(64, "m", Params{})
	q8.Reserve(len(vecs))
	for i, v := range vecs {
		if err := ref.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
		if err := q8.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if q8.vecs != nil || len(q8.codes) != 5000*64 {
		t.Fatalf("q8 index holds %d float32, %d codes", len(q8.vecs), len(q8.codes))
	}
	path := filepath.Join(t.TempDir(), "q.hnsw")
	if err := q8.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path, 64, "m", Params{})
	if err != nil {
		t.Fatal(err)
	}
	if r := graphRecall(t, ref, g, queries, 10, Query{Exact: exact}); r < 0.97 {
		t.Errorf("saved q8 graph recall@10 %.3f", r)
	}
	even := func(k int64) bool { return k%2 == 0 }
	if r := graphRecall(t, ref, g, queries, 10, Query{Exact: exact, Filter: even}); r < 0.97 {
		t.Errorf("filtered recall@10 %.3f", r)
	}
	// The index's own search: codes, then exact vectors for the best.
	own := GraphOf(q8)
	if r := graphRecall(t, ref, own, queries, 10, Query{Exact: exact}); r < 0.97 {
		t.Errorf("q8 index's own search recall@10 %.3f", r)
	}
	// Codes and scales go to the file as they are.
	for _, k := range []int64{0, 17, 4999} {
		i, at := q8.byKey[k], g.file.find(k)
		if string(q8.code(i)) != string(g.file.code(at)) || q8.scales[i] != g.file.scale(at) {
			t.Errorf("key %d: the file's codes differ from the builder's", k)
		}
	}
	// Thaw keeps codes, not float32, and a re-save searches the same.
	for k := range int64(100) {
		g.Delete(k)
	}
	ix, err := g.Thaw()
	if err != nil {
		t.Fatal(err)
	}
	if ix.vecs != nil || !ix.q8 || ix.Len() != 4900 {
		t.Fatalf("thawed: q8 %v, %d float32, len %d", ix.q8, len(ix.vecs), ix.Len())
	}
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	g2, err := Open(path, 64, "m", Params{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int64(100) {
		ref.Delete(k)
	}
	if r := graphRecall(t, ref, g2, queries, 10, Query{Exact: exact}); r < 0.97 {
		t.Errorf("re-saved recall@10 %.3f", r)
	}
}
