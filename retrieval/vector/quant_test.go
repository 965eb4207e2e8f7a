package vector

import (
	"math"
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
	// A graph of an unsaved q8 index thaws (its vectors are codes).
	if th, err := own.Thaw(); err != nil || th.Len() != 5000 || th.vecs != nil {
		t.Fatalf("thaw of a q8 index's graph: %v", err)
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

// TestDot8: dot8 (assembly on amd64 with AVX2) agrees with a plain loop
// at every length, remainders of 8 included, and with codes of every
// value.
func TestDot8(t *testing.T) {
	defer func(h bool) { hasAVX2 = h }(hasAVX2)
	for _, simd := range []bool{hasAVX2, false} {
		hasAVX2 = simd
		testDot8(t)
	}
}

func testDot8(t *testing.T) {
	for n := range 70 {
		q := make([]float32, n)
		code := make([]byte, n)
		var want float64
		for j := range n {
			q[j] = float32(j%11)*0.03 - 0.15
			code[j] = byte(j*37 + n)
			want += float64(q[j]) * float64(int8(code[j]))
		}
		if got := dot8(q, code); math.Abs(float64(got)-want) > 1e-3 {
			t.Errorf("n %d (AVX2 %v): dot8 %v, want %v", n, hasAVX2, got, want)
		}
	}
}

// BenchmarkDot8 is one code against a query at bge-small's width, the
// step of every walk and insert.
func BenchmarkDot8(b *testing.B) {
	q := make([]float32, 384)
	code := make([]byte, 384)
	for j := range q {
		q[j], code[j] = float32(j%7)*0.01, byte(j*13)
	}
	var s float32
	for b.Loop() {
		s += dot8(q, code)
	}
	_ = s
}
