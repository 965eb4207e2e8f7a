package vector

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/vector/vectortest"
)

var clustered = vectortest.Clustered

func build(t testing.TB, vecs [][]float32) *Index {
	ix := New(len(vecs[0]), "test-model", Params{})
	for i, v := range vecs {
		if err := ix.Add(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func recallAt(t testing.TB, ix *Index, queries [][]float32, k int, filter func(int64) bool) float64 {
	var hit, total int
	for _, q := range queries {
		want, err := ix.SearchExact(Query{Vector: q, K: k, Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ix.Search(Query{Vector: q, K: k, Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		in := map[int64]bool{}
		for _, h := range got {
			in[h.Key] = true
			if filter != nil && !filter(h.Key) {
				t.Fatalf("filtered search returned rejected key %d", h.Key)
			}
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

func TestRecallAgainstExact(t *testing.T) {
	all := clustered(5100, 50, 64, 1)
	ix := build(t, all[:5000])
	queries := all[5000:] // held out, from the same clusters
	if r := recallAt(t, ix, queries, 10, nil); r < 0.98 {
		t.Errorf("recall@10 = %.3f, want >= 0.98", r)
	}
	// A filter admitting half the keys: the walk widens until 10 match.
	even := func(k int64) bool { return k%2 == 0 }
	if r := recallAt(t, ix, queries, 10, even); r < 0.98 {
		t.Errorf("filtered recall@10 = %.3f, want >= 0.98", r)
	}
	// A filter admitting 1 key in 500: exact fallback, so recall is 1.
	rare := func(k int64) bool { return k%500 == 3 }
	if r := recallAt(t, ix, queries, 10, rare); r != 1 {
		t.Errorf("rare-filter recall@10 = %.3f, want 1", r)
	}
	hits, _ := ix.Search(Query{Vector: queries[0], K: 10, Filter: rare, Admitted: 10})
	if len(hits) != 10 {
		t.Errorf("rare filter with hint: %d hits", len(hits))
	}
}

func TestAddReplaceDelete(t *testing.T) {
	vecs := clustered(300, 5, 16, 3)
	ix := build(t, vecs)
	if ix.Len() != 300 {
		t.Fatalf("len %d", ix.Len())
	}
	// Replacing a key keeps one entry and uses the new vector.
	if err := ix.Add(7, vecs[100]); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 300 {
		t.Errorf("replace changed len to %d", ix.Len())
	}
	hits, _ := ix.Search(Query{Vector: vecs[100], K: 2})
	if len(hits) != 2 || hits[0].Score < 0.9999 || hits[1].Score < 0.9999 {
		t.Errorf("both copies of the vector should be found: %+v", hits)
	}
	for k := int64(0); k < 300; k += 2 {
		if !ix.Delete(k) {
			t.Fatalf("delete %d failed", k)
		}
	}
	if ix.Delete(0) {
		t.Error("deleted a missing key")
	}
	for _, q := range vecs[:50] {
		hits, _ := ix.Search(Query{Vector: q, K: 5})
		for _, h := range hits {
			if h.Key%2 == 0 {
				t.Fatalf("deleted key %d returned", h.Key)
			}
		}
	}
	for k := int64(1); k < 300; k += 2 {
		ix.Delete(k)
	}
	if ix.Len() != 0 {
		t.Errorf("len after deleting all: %d", ix.Len())
	}
	if hits, err := ix.Search(Query{Vector: vecs[0], K: 5}); err != nil || len(hits) != 0 {
		t.Errorf("empty index search: %v %v", hits, err)
	}
	if err := ix.Add(1, vecs[1]); err != nil || ix.Len() != 1 {
		t.Errorf("add after emptying: %v", err)
	}
	if err := ix.Add(2, []float32{1, 0}); err == nil {
		t.Error("wrong dimension accepted")
	}
	if _, err := ix.Search(Query{Vector: []float32{1}, K: 1}); err == nil {
		t.Error("wrong query dimension accepted")
	}
}

func TestSaveLoad(t *testing.T) {
	vecs := clustered(2000, 20, 32, 4)
	ix := build(t, vecs)
	ix.Delete(5)
	path := filepath.Join(t.TempDir(), "vectors.hnsw")
	if err := ix.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, 32, "test-model", Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != ix.Len() || got.Has(5) || !got.Has(6) {
		t.Fatalf("loaded len %d (want %d), has 5: %v", got.Len(), ix.Len(), got.Has(5))
	}
	// The saved vectors are int8 codes: a loaded index answers with the
	// same keys but for near ties, with scores a little off.
	same, total := 0, 0
	for _, q := range vecs[:20] {
		a, _ := ix.Search(Query{Vector: q, K: 10})
		b, _ := got.Search(Query{Vector: q, K: 10})
		in := map[int64]float32{}
		for _, h := range b {
			in[h.Key] = h.Score
		}
		for _, h := range a {
			if s, ok := in[h.Key]; ok {
				same++
				if math.Abs(float64(s-h.Score)) > 0.02 {
					t.Fatalf("key %d: score %v loaded, %v built", h.Key, s, h.Score)
				}
			}
		}
		total += len(a)
	}
	if float64(same) < 0.95*float64(total) {
		t.Fatalf("loaded index answers differently: %d of %d hits the same", same, total)
	}
	// The loaded index keeps working incrementally.
	if err := got.Add(99999, vecs[0]); err != nil || !got.Has(99999) {
		t.Fatal(err)
	}
	if _, err := Load(path, 32, "other-model", Params{}); !errors.Is(err, ErrStale) {
		t.Errorf("other model: want ErrStale, got %v", err)
	}
	if _, err := Load(path, 64, "test-model", Params{}); !errors.Is(err, ErrStale) {
		t.Errorf("other dims: want ErrStale, got %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("hello"), 0o644)
	if _, err := Load(bad, 32, "test-model", Params{}); err == nil {
		t.Error("garbage loaded")
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(bad, b[:len(b)/2], 0o644)
	if _, err := Load(bad, 32, "test-model", Params{}); err == nil {
		t.Error("truncated export loaded")
	}
	empty := New(32, "test-model", Params{})
	if err := empty.Save(path); err != nil {
		t.Fatal(err)
	}
	if e, err := Load(path, 32, "test-model", Params{}); err != nil || e.Len() != 0 {
		t.Errorf("empty round trip: %v", err)
	}
}

func TestCompactionAfterManyDeletes(t *testing.T) {
	vecs := clustered(3000, 30, 32, 5)
	ix := build(t, vecs)
	for k := int64(0); k < 2100; k++ {
		ix.Delete(k)
	}
	if ix.Len() != 900 || ix.ndead >= 900 || len(ix.keys) >= 3000 {
		t.Errorf("expected a rebuild once tombstones outnumbered live nodes: %d live, %d nodes, %d dead", ix.Len(), len(ix.keys), ix.ndead)
	}
	if r := recallAt(t, ix, clustered(50, 30, 32, 6), 10, nil); r < 0.98 {
		t.Errorf("recall after compaction %.3f", r)
	}
}

func TestConcurrentSearchAndAdd(t *testing.T) {
	vecs := clustered(2000, 20, 32, 8)
	ix := build(t, vecs[:1000])
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				if _, err := ix.Search(Query{Vector: vecs[i], K: 5}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 1000; i < 2000; i++ {
		if err := ix.Add(int64(i), vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	if ix.Len() != 2000 {
		t.Errorf("len %d", ix.Len())
	}
}
