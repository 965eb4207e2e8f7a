package metrics

import (
	"math"
	"testing"
)

// The expected figures below were worked out by hand:
//
//	q1: relevant {d1, d2}; run d3 d1 d3 d9 d2 → deduplicated d3 d1 d9 d2,
//	    hits at ranks 2 and 4.
//	    DCG  = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606
//	    IDCG = 1/log2(2) + 1/log2(3) = 1 + 0.630930       = 1.630930
//	    nDCG@10 = 0.650921, Recall@10 = 1, Recall@2 = 0.5, MRR@10 = 1/2
//	q2: relevant {d4} (grade 2 counts as 1); run d4 → all measures 1
//	q3: relevant {d7}; run empty → 0, counted as empty
//	q4: only a grade-0 judgement → not a judged query, left out
//
//	means over 3 queries: nDCG@10 = (0.650921+1+0)/3 = 0.550307,
//	Recall@10 = 2/3, MRR@10 = 1.5/3 = 0.5
func example() (Qrels, map[string][]string) {
	qrels := Qrels{
		"q1": {"d1": 1, "d2": 1, "d9": 0},
		"q2": {"d4": 2},
		"q3": {"d7": 1},
		"q4": {"d5": 0},
	}
	run := map[string][]string{
		"q1": {"d3", "d1", "d3", "d9", "d2"},
		"q2": {"d4"},
		"q4": {"d5"},
	}
	return qrels, run
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %.6f, want %.6f", name, got, want)
	}
}

func TestPerQuery(t *testing.T) {
	qrels, run := example()
	rel := qrels.Relevant("q1")
	near(t, "nDCG@10(q1)", NDCG(run["q1"], rel, 10), 0.650921)
	near(t, "nDCG@1(q1)", NDCG(run["q1"], rel, 1), 0)
	// Cut at 2: DCG = 1/log2(3), IDCG = 1 + 1/log2(3).
	near(t, "nDCG@2(q1)", NDCG(run["q1"], rel, 2), 0.386853)
	near(t, "Recall@10(q1)", Recall(run["q1"], rel, 10), 1)
	near(t, "Recall@2(q1)", Recall(run["q1"], rel, 2), 0.5)
	near(t, "MRR@10(q1)", MRR(run["q1"], rel, 10), 0.5)
	near(t, "MRR@1(q1)", MRR(run["q1"], rel, 1), 0)
	near(t, "nDCG(empty run)", NDCG(nil, rel, 10), 0)
	near(t, "nDCG(no relevant)", NDCG(run["q4"], qrels.Relevant("q4"), 10), 0)
}

func TestEvaluate(t *testing.T) {
	qrels, run := example()
	s := Evaluate(qrels, run, nil)
	if s.Queries != 3 || s.Empty != 1 {
		t.Fatalf("queries=%d empty=%d, want 3 and 1", s.Queries, s.Empty)
	}
	near(t, "nDCG@10", s.NDCG10, 0.550307)
	near(t, "Recall@10", s.Recall10, 2.0/3)
	near(t, "Recall@100", s.Recall100, 2.0/3)
	near(t, "MRR@10", s.MRR10, 0.5)

	sub := Evaluate(qrels, run, []string{"q2", "q4"})
	if sub.Queries != 1 {
		t.Fatalf("subset queries=%d, want 1 (q4 has no relevant document)", sub.Queries)
	}
	near(t, "subset nDCG@10", sub.NDCG10, 1)
}

func TestJudgedQueries(t *testing.T) {
	qrels, _ := example()
	got := qrels.JudgedQueries()
	want := []string{"q1", "q2", "q3"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
