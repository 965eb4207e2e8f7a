package fusion

import (
	"math"
	"reflect"
	"testing"
)

const eps = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) < eps }

// sample is the fixture all expected values below are computed from by hand.
//
//	bm25 (w=2): d1/c11, d2/c21, d1/c12 (same doc again), d3/c31
//	vec  (w=1): d2/c22, d3/c31, d4/c41
//
// Document ranks: bm25 d1=1 d2=2 d3=3; vec d2=1 d3=2 d4=3. With k=60:
//
//	d1 = 2/61            = 0.03278688…
//	d2 = 2/62 + 1/61     = 0.04865150…
//	d3 = 2/63 + 1/62     = 0.04787506…
//	d4 = 1/63            = 0.01587301…
func sample() []List {
	return []List{
		{Name: "bm25", Weight: 2, Hits: []Hit{
			{DocID: 1, ChunkID: 11, Score: 10},
			{DocID: 2, ChunkID: 21, Score: 8},
			{DocID: 1, ChunkID: 12, Score: 7},
			{DocID: 3, ChunkID: 31, Score: 5},
		}},
		{Name: "vec", Weight: 1, Hits: []Hit{
			{DocID: 2, ChunkID: 22, Score: 0.9},
			{DocID: 3, ChunkID: 31, Score: 0.8},
			{DocID: 4, ChunkID: 41, Score: 0.7},
		}},
	}
}

func docIDs(f []Fused) []int64 {
	ids := make([]int64, len(f))
	for i := range f {
		ids[i] = f[i].DocID
	}
	return ids
}

func TestRRFHandComputed(t *testing.T) {
	got := RRF(sample(), 60)
	want := []struct {
		doc, chunk int64
		score      float64
	}{
		{2, 21, 2.0/62 + 1.0/61},
		{3, 31, 2.0/63 + 1.0/62},
		{1, 11, 2.0 / 61},
		{4, 41, 1.0 / 63},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d docs, want %d: %v", len(got), len(want), docIDs(got))
	}
	for i, w := range want {
		g := got[i]
		if g.DocID != w.doc || g.ChunkID != w.chunk || !near(g.RRF, w.score) || !near(g.Score, w.score) || g.FusedRank != i+1 {
			t.Errorf("pos %d: got doc %d chunk %d rrf %.10f score %.10f rank %d; want doc %d chunk %d rrf %.10f rank %d",
				i, g.DocID, g.ChunkID, g.RRF, g.Score, g.FusedRank, w.doc, w.chunk, w.score, i+1)
		}
	}
	d2 := got[0]
	if !reflect.DeepEqual(d2.Ranks, map[string]int{"bm25": 2, "vec": 1}) {
		t.Errorf("d2 ranks = %v", d2.Ranks)
	}
	if !reflect.DeepEqual(d2.Scores, map[string]float64{"bm25": 8, "vec": 0.9}) {
		t.Errorf("d2 scores = %v", d2.Scores)
	}
	if !reflect.DeepEqual(d2.Chunks, map[string]int64{"bm25": 21, "vec": 22}) {
		t.Errorf("d2 chunks = %v", d2.Chunks)
	}
	// d1's second bm25 chunk must not count as another vote or push d3 down.
	if got[2].Ranks["bm25"] != 1 || got[1].Ranks["bm25"] != 3 {
		t.Errorf("duplicate chunk changed ranks: d1 %v d3 %v", got[2].Ranks, got[1].Ranks)
	}
	if _, ok := got[3].Ranks["bm25"]; ok {
		t.Errorf("d4 has a bm25 rank although bm25 never returned it: %v", got[3].Ranks)
	}
}

func TestRRFDefaultsAndTies(t *testing.T) {
	// k <= 0 means 60 and weight <= 0 means 1, so this equals RRF(…, 60)
	// with both weights 1.
	lists := []List{
		{Name: "a", Weight: 0, Hits: []Hit{{DocID: 6, ChunkID: 60}}},
		{Name: "b", Weight: -3, Hits: []Hit{{DocID: 5, ChunkID: 50}}},
	}
	got := RRF(lists, 0)
	// Equal scores and equal best ranks: lower DocID first.
	if ids := docIDs(got); !reflect.DeepEqual(ids, []int64{5, 6}) {
		t.Fatalf("order = %v, want [5 6]", ids)
	}
	if !near(got[0].RRF, 1.0/61) || !near(got[1].RRF, 1.0/61) {
		t.Errorf("scores = %v, %v; want 1/61", got[0].RRF, got[1].RRF)
	}

	// Equal RRF, different best rank. With k = 1 (exact in binary):
	// d7 is rank 1 in x: 1/2; d8 is rank 3 in y and z: 1/4 + 1/4 = 1/2.
	lists = []List{
		{Name: "x", Hits: []Hit{{DocID: 7, ChunkID: 70}}},
		{Name: "y", Hits: []Hit{{DocID: 9}, {DocID: 11}, {DocID: 8, ChunkID: 80}}},
		{Name: "z", Hits: []Hit{{DocID: 10}, {DocID: 12}, {DocID: 8, ChunkID: 81}}},
	}
	got = RRF(lists, 1)
	var p7, p8 int
	for i, f := range got {
		switch f.DocID {
		case 7:
			p7 = i
		case 8:
			p8 = i
			// Two chunks with equal contributions: the one seen first wins.
			if f.ChunkID != 80 {
				t.Errorf("d8 chunk = %d, want 80 (first seen on a tie)", f.ChunkID)
			}
		}
	}
	if got[p7].RRF != 0.5 || got[p8].RRF != 0.5 {
		t.Fatalf("fixture broken: d7 %.15f d8 %.15f", got[p7].RRF, got[p8].RRF)
	}
	if p7 > p8 {
		t.Errorf("tie on score should go to the better single-list rank (d7), got d8 first")
	}
}

func TestRRFChunkVotesSum(t *testing.T) {
	// c2 is picked by two weak lists (1/62 + 1/62 = 0.03226) and beats c1
	// picked by one list at rank 1 (1/61 = 0.01639).
	lists := []List{
		{Name: "a", Hits: []Hit{{DocID: 1, ChunkID: 1}}},
		{Name: "b", Hits: []Hit{{DocID: 9, ChunkID: 9}, {DocID: 1, ChunkID: 2}}},
		{Name: "c", Hits: []Hit{{DocID: 9, ChunkID: 9}, {DocID: 1, ChunkID: 2}}},
	}
	got := RRF(lists, 60)
	for _, f := range got {
		if f.DocID == 1 && f.ChunkID != 2 {
			t.Errorf("doc 1 chunk = %d, want 2", f.ChunkID)
		}
	}
}

func TestListNames(t *testing.T) {
	got := ListNames([]List{{Name: "lex"}, {Name: "lex"}, {}, {Name: "lex"}})
	want := []string{"lex", "lex#2", "#2", "lex#3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListNames = %v, want %v", got, want)
	}
	f := RRF([]List{
		{Name: "lex", Hits: []Hit{{DocID: 1}}},
		{Name: "lex", Hits: []Hit{{DocID: 1}}},
	}, 60)
	if !reflect.DeepEqual(f[0].Ranks, map[string]int{"lex": 1, "lex#2": 1}) {
		t.Errorf("ranks = %v", f[0].Ranks)
	}
}

func TestRRFEmpty(t *testing.T) {
	if got := RRF(nil, 60); len(got) != 0 {
		t.Errorf("RRF(nil) = %v", got)
	}
	if got := RRF([]List{{Name: "a"}, {Name: "b"}}, 60); len(got) != 0 {
		t.Errorf("RRF(empty lists) = %v", got)
	}
}

func TestMaxRRFAndNormalize(t *testing.T) {
	lists := sample()
	m := MaxRRF(lists, 60)
	if !near(m, 3.0/61) {
		t.Fatalf("MaxRRF = %v, want 3/61", m)
	}
	f := Normalize(RRF(lists, 60), m)
	// d2: (2/62 + 1/61) / (3/61) = 11224/11346
	if !near(f[0].Score, 11224.0/11346) {
		t.Errorf("normalised d2 = %.12f, want %.12f", f[0].Score, 11224.0/11346)
	}
	// d4: (1/63) / (3/61) = 61/189
	if !near(f[3].Score, 61.0/189) {
		t.Errorf("normalised d4 = %.12f, want %.12f", f[3].Score, 61.0/189)
	}
	// A document first in every list scores exactly 1.
	one := Normalize(RRF([]List{
		{Name: "a", Weight: 2, Hits: []Hit{{DocID: 1}}},
		{Name: "b", Weight: 1, Hits: []Hit{{DocID: 1}}},
	}, 60), MaxRRF([]List{{Weight: 2}, {Weight: 1}}, 60))
	if !near(one[0].Score, 1) {
		t.Errorf("top of every list = %v, want 1", one[0].Score)
	}

	odd := []Fused{{Score: 1.5}, {Score: -0.2}, {Score: math.NaN()}, {Score: 0.3}}
	Normalize(odd, 1)
	for i, w := range []float64{1, 0, 0, 0.3} {
		if !near(odd[i].Score, w) {
			t.Errorf("clamp %d = %v, want %v", i, odd[i].Score, w)
		}
	}
}

// A document the vector list cannot hold (no vector) is scored over the
// BM25 list alone, on the scale of one both lists could hold: d1, first
// by BM25 and without a vector, reaches the score of a document first in
// both lists, and d3, which has a vector but was not found by it, is
// not lifted.
func TestCoverUnreachableList(t *testing.T) {
	noVec := map[int64]bool{1: true}
	lists := []List{
		{Name: "bm25", Weight: 1, Hits: []Hit{{DocID: 1, ChunkID: 1}, {DocID: 2, ChunkID: 2}, {DocID: 3, ChunkID: 3}}},
		{Name: "vector", Weight: 2, Hits: []Hit{{DocID: 2, ChunkID: 2}, {DocID: 4, ChunkID: 4}}, Reachable: func(f *Fused) bool { return !noVec[f.DocID] }},
	}
	before := RRF(lists, 60)
	if before[0].DocID != 2 {
		t.Fatalf("plain RRF first = %d, want 2", before[0].DocID)
	}
	got := RRF(lists, 60)
	if n := Cover(got, lists, 60); n != 1 {
		t.Fatalf("Cover rescaled %d documents, want 1", n)
	}
	if got[0].DocID != 1 || !near(got[0].RRF, 3.0/61) || !near(got[0].Score, 3.0/61) {
		t.Fatalf("first = doc %d rrf %.6f, want doc 1 at 3/61", got[0].DocID, got[0].RRF)
	}
	for i, f := range got {
		if f.FusedRank != i+1 {
			t.Errorf("pos %d has FusedRank %d", i, f.FusedRank)
		}
		if f.DocID == 3 && !near(f.RRF, 1.0/63) {
			t.Errorf("doc 3 (has a vector, not found by it) rrf %.6f, want 1/63", f.RRF)
		}
	}
	if s := Normalize(got, MaxRRF(lists, 60))[0].Score; !near(s, 1) {
		t.Errorf("normalised score of doc 1 = %v, want 1", s)
	}
}

// Lists every document can reach leave the fusion as it was.
func TestCoverAllReachable(t *testing.T) {
	want := RRF(sample(), 60)
	got := RRF(sample(), 60)
	if n := Cover(got, sample(), 60); n != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("Cover changed a fusion without unreachable lists (%d)", n)
	}
}

// TestLead: BM25 (w=1) ranks d1 first, the vectors (w=2) rank d2 first
// and d1 second, so RRF puts d2 above d1; a lead of 0.5 on the bm25 list
// adds 0.5/61 to d1 alone and puts it first, re-ranked.
//
//	d1 = 1/61 + 2/62 (+ 0.5/61) = 0.04865150… (0.05684822…)
//	d2 = 1/62 + 2/61            = 0.04891591…
func TestLead(t *testing.T) {
	lists := []List{
		{Name: "bm25", Weight: 1, Hits: []Hit{{DocID: 1, ChunkID: 11}, {DocID: 2, ChunkID: 21}}},
		{Name: "vector", Weight: 2, Hits: []Hit{{DocID: 2, ChunkID: 21}, {DocID: 1, ChunkID: 11}, {DocID: 3, ChunkID: 31}}},
	}
	fused := RRF(lists, 60)
	if fused[0].DocID != 2 || fused[1].DocID != 1 {
		t.Fatalf("before: %+v", fused)
	}
	added := Lead(fused, lists, "bm25", 0.5, 60, nil)
	if !near(added, 0.5/61) {
		t.Fatalf("added %v, want %v", added, 0.5/61)
	}
	want := []struct {
		doc int64
		rrf float64
	}{{1, 1.0/61 + 2.0/62 + 0.5/61}, {2, 1.0/62 + 2.0/61}, {3, 2.0 / 63}}
	for i, w := range want {
		f := fused[i]
		if f.DocID != w.doc || !near(f.RRF, w.rrf) || !near(f.Score, w.rrf) || f.FusedRank != i+1 {
			t.Fatalf("rank %d: %+v, want doc %d rrf %v", i+1, f, w.doc, w.rrf)
		}
	}
	if got := Normalize(fused, MaxRRF(lists, 60)+added)[0].Score; got > 1 || got <= 0 {
		t.Fatalf("normalized lead score %v", got)
	}
	for _, w := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if Lead(fused, lists, "bm25", w, 60, nil) != 0 {
			t.Errorf("weight %v added something", w)
		}
	}
	if Lead(fused, lists, "lex1", 0.5, 60, nil) != 0 {
		t.Error("a list no document is ranked in added something")
	}
	both := []List{lists[0], {Name: "vector", Weight: 2, Hits: lists[0].Hits}}
	agree := RRF(both, 60)
	if Lead(agree, both, "bm25", 0.5, 60, nil) != 0 || !near(agree[0].RRF, 3.0/61) {
		t.Errorf("a document first in both lists got a lead: %+v", agree[0])
	}
	fresh := RRF(lists, 60)
	asked := int64(0)
	no := func(f *Fused) bool { asked = f.DocID; return false }
	if Lead(fresh, lists, "bm25", 0.5, 60, no) != 0 || asked != 1 || fresh[0].DocID != 2 {
		t.Errorf("a lead turned down was given (asked about %d): %+v", asked, fresh)
	}
}
