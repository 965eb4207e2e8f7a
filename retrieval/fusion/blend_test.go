package fusion

import (
	"reflect"
	"testing"
)

// Fused order from sample(): d2 (rank 1), d3 (2), d1 (3), d4 (4).
// With rerank d2 0.1, d3 0.2, d1 0.9, d4 1.0 and DefaultTiers:
//
//	d2: 0.75·1/1 + 0.25·0.1 = 0.775
//	d3: 0.75·1/2 + 0.25·0.2 = 0.425
//	d1: 0.75·1/3 + 0.25·0.9 = 0.475
//	d4: 0.60·1/4 + 0.40·1.0 = 0.55
func blended(t *testing.T) []Fused {
	t.Helper()
	f := RRF(sample(), 60)
	return Blend(f, map[int64]float64{2: 0.1, 3: 0.2, 1: 0.9, 4: 1.0}, nil)
}

func TestBlendHandComputed(t *testing.T) {
	got := blended(t)
	wantIDs := []int64{2, 4, 1, 3}
	wantScores := []float64{0.775, 0.55, 0.475, 0.425}
	if ids := docIDs(got); !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("order = %v, want %v", ids, wantIDs)
	}
	for i, w := range wantScores {
		if !near(got[i].Score, w) {
			t.Errorf("%d (doc %d): score %.12f, want %v", i, got[i].DocID, got[i].Score, w)
		}
		if !got[i].Reranked {
			t.Errorf("doc %d not marked reranked", got[i].DocID)
		}
	}
	if got[1].Rerank != 1.0 || got[1].FusedRank != 4 {
		t.Errorf("d4 rerank %v fused rank %d, want 1.0 and 4", got[1].Rerank, got[1].FusedRank)
	}
}

func TestBlendDoesNotReorderInput(t *testing.T) {
	f := RRF(sample(), 60)
	before := docIDs(f)
	_ = Blend(f, map[int64]float64{4: 1}, nil)
	if after := docIDs(f); !reflect.DeepEqual(before, after) {
		t.Errorf("input reordered: %v → %v", before, after)
	}
}

func TestBlendMissingAndClamped(t *testing.T) {
	f := RRF(sample(), 60)
	// d4 not reranked → 0.60·1/4 = 0.15; d1 rerank 7 clamps to 1 →
	// 0.25 + 0.25 = 0.5; d3 rerank −1 clamps to 0 → 0.375.
	got := Blend(f, map[int64]float64{2: 0.1, 3: -1, 1: 7}, nil)
	wantIDs := []int64{2, 1, 3, 4}
	wantScores := []float64{0.775, 0.5, 0.375, 0.15}
	if ids := docIDs(got); !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("order = %v, want %v", ids, wantIDs)
	}
	for i, w := range wantScores {
		if !near(got[i].Score, w) {
			t.Errorf("doc %d: score %.12f, want %v", got[i].DocID, got[i].Score, w)
		}
	}
	if got[3].Reranked || got[3].Rerank != 0 {
		t.Errorf("d4 should be unreranked: %+v", got[3])
	}
}

func TestBlendTiers(t *testing.T) {
	f := []Fused{
		{DocID: 1, FusedRank: 1},
		{DocID: 2, FusedRank: 10},
		{DocID: 3, FusedRank: 12},
	}
	got := Blend(f, map[int64]float64{1: 0, 2: 0.5, 3: 0.5}, nil)
	// rank 1:  0.75·1          = 0.75
	// rank 10: 0.60/10 + 0.40·0.5 = 0.26
	// rank 12: 0.40/12 + 0.60·0.5 = 0.3333…
	want := map[int64]float64{1: 0.75, 2: 0.26, 3: 0.4/12 + 0.3}
	for _, g := range got {
		if !near(g.Score, want[g.DocID]) {
			t.Errorf("doc %d: %.12f, want %.12f", g.DocID, g.Score, want[g.DocID])
		}
	}
	if ids := docIDs(got); !reflect.DeepEqual(ids, []int64{1, 3, 2}) {
		t.Errorf("order = %v, want [1 3 2]", ids)
	}

	// Custom tiers: rank 1 is pure retrieval, everything else pure rerank.
	got = Blend(f, map[int64]float64{1: 0, 2: 0.2, 3: 0.9}, []Tier{{MaxRank: 1, RetrievalWeight: 1}, {RetrievalWeight: 0}})
	want = map[int64]float64{1: 1, 2: 0.2, 3: 0.9}
	for _, g := range got {
		if !near(g.Score, want[g.DocID]) {
			t.Errorf("custom tiers doc %d: %v, want %v", g.DocID, g.Score, want[g.DocID])
		}
	}
	// Ranks beyond every bounded tier use the last tier.
	if w := retrievalWeight([]Tier{{MaxRank: 3, RetrievalWeight: 0.9}, {MaxRank: 5, RetrievalWeight: 0.2}}, 50); w != 0.2 {
		t.Errorf("beyond all tiers: %v, want 0.2", w)
	}
}

func TestProtect(t *testing.T) {
	base := blended(t) // d2 .775, d4 .55, d1 .475, d3 .425

	tests := []struct {
		name       string
		protected  map[int64]bool
		top        int
		wantIDs    []int64
		wantScores []float64
		wantMoved  []int64
	}{
		{
			name:      "pushed to 4th comes back to 3rd",
			protected: map[int64]bool{3: true}, top: 3,
			wantIDs: []int64{2, 4, 3, 1}, wantScores: []float64{0.775, 0.55, 0.475, 0.475},
			wantMoved: []int64{3},
		},
		{
			name:      "top 1",
			protected: map[int64]bool{3: true}, top: 1,
			wantIDs: []int64{3, 2, 4, 1}, wantScores: []float64{0.775, 0.775, 0.55, 0.475},
			wantMoved: []int64{3},
		},
		{
			name:      "two protected in top 2 keep their order",
			protected: map[int64]bool{1: true, 3: true}, top: 2,
			wantIDs: []int64{1, 3, 2, 4}, wantScores: []float64{0.775, 0.775, 0.775, 0.55},
			wantMoved: []int64{1, 3},
		},
		{
			name:      "already in top: unchanged",
			protected: map[int64]bool{4: true}, top: 3,
			wantIDs: []int64{2, 4, 1, 3}, wantScores: []float64{0.775, 0.55, 0.475, 0.425},
		},
		{
			name:      "more protected than slots: best placed wins",
			protected: map[int64]bool{4: true, 1: true, 3: true}, top: 1,
			wantIDs: []int64{4, 2, 1, 3}, wantScores: []float64{0.775, 0.775, 0.475, 0.425},
			wantMoved: []int64{4},
		},
		{
			name:      "unknown doc and top 0 are no-ops",
			protected: map[int64]bool{99: true}, top: 3,
			wantIDs: []int64{2, 4, 1, 3}, wantScores: []float64{0.775, 0.55, 0.475, 0.425},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Protect(base, tc.protected, tc.top)
			if ids := docIDs(got); !reflect.DeepEqual(ids, tc.wantIDs) {
				t.Fatalf("order = %v, want %v", ids, tc.wantIDs)
			}
			var moved []int64
			for i, g := range got {
				if !near(g.Score, tc.wantScores[i]) {
					t.Errorf("doc %d score %v, want %v", g.DocID, g.Score, tc.wantScores[i])
				}
				if g.Protected {
					moved = append(moved, g.DocID)
				}
			}
			if !reflect.DeepEqual(moved, tc.wantMoved) {
				t.Errorf("moved = %v, want %v", moved, tc.wantMoved)
			}
		})
	}
	if ids := docIDs(base); !reflect.DeepEqual(ids, []int64{2, 4, 1, 3}) {
		t.Errorf("Protect modified its input: %v", ids)
	}
	if got := Protect(base, map[int64]bool{3: true}, 0); !reflect.DeepEqual(docIDs(got), []int64{2, 4, 1, 3}) {
		t.Errorf("top 0 changed order: %v", docIDs(got))
	}
	short := Protect(base[:2], map[int64]bool{4: true}, 3)
	if !reflect.DeepEqual(docIDs(short), []int64{2, 4}) {
		t.Errorf("fewer docs than top: %v", docIDs(short))
	}
}

// TestPipelineFastAndDefault runs the calls the query pipeline makes, end
// to end, and checks scores land in [0, 1] and stay non-increasing.
func TestPipelineFastAndDefault(t *testing.T) {
	lists := sample()
	fast := Normalize(RRF(lists, 60), MaxRRF(lists, 60))
	f := RRF(lists, 60)
	f = Blend(f, map[int64]float64{2: 0.1, 3: 0.2, 1: 0.9, 4: 1.0}, nil)
	f = Protect(f, map[int64]bool{3: true}, 3)
	def := Normalize(f, 1)
	for name, res := range map[string][]Fused{"fast": fast, "default": def} {
		for i, r := range res {
			if r.Score < 0 || r.Score > 1 {
				t.Errorf("%s: doc %d score %v outside [0,1]", name, r.DocID, r.Score)
			}
			if i > 0 && r.Score > res[i-1].Score {
				t.Errorf("%s: scores increase at %d: %v > %v", name, i, r.Score, res[i-1].Score)
			}
		}
	}
}
