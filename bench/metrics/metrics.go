// Package metrics scores ranked result lists against relevance judgements
// (qrels) with the measures the benchmark reports: nDCG@k, Recall@k and
// MRR@k.
//
// Conventions follow the eval data's README, so figures are comparable with
// the reference numbers there: gains are binary (any judgement > 0 counts as
// relevant), the discount is log2(rank+1), a query that returns nothing
// scores 0, and averages run over every query that has at least one relevant
// document, whether or not the system returned anything for it.
//
// It must not be imported by gno itself (bench is a tool).
package metrics

import (
	"math"
	"sort"
)

// Qrels maps a query id to its judged documents and their grades.
// Grades ≤ 0 mean "judged not relevant".
type Qrels map[string]map[string]int

// Relevant returns the ids of the documents judged relevant for query.
func (q Qrels) Relevant(query string) map[string]bool {
	rel := make(map[string]bool)
	for doc, grade := range q[query] {
		if grade > 0 {
			rel[doc] = true
		}
	}
	return rel
}

// JudgedQueries lists, sorted, the queries with at least one relevant
// document: the population every average runs over.
func (q Qrels) JudgedQueries() []string {
	var ids []string
	for id := range q {
		if len(q.Relevant(id)) > 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// dedup drops repeated document ids, keeping the first (best) rank, because
// a chunk-level engine may return a document twice and counting it twice
// would inflate every measure.
func dedup(ranked []string) []string {
	seen := make(map[string]bool, len(ranked))
	out := make([]string, 0, len(ranked))
	for _, d := range ranked {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// NDCG returns nDCG@k with binary gains for one ranked list.
// It is 0 when nothing is relevant or nothing was returned.
func NDCG(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 || k <= 0 {
		return 0
	}
	ranked = dedup(ranked)
	var dcg float64
	for i, d := range ranked {
		if i >= k {
			break
		}
		if relevant[d] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	var idcg float64
	for i := 0; i < min(k, len(relevant)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return dcg / idcg
}

// Recall returns the share of relevant documents found in the top k.
func Recall(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 || k <= 0 {
		return 0
	}
	ranked = dedup(ranked)
	found := 0
	for i, d := range ranked {
		if i >= k {
			break
		}
		if relevant[d] {
			found++
		}
	}
	return float64(found) / float64(len(relevant))
}

// MRR returns the reciprocal rank of the first relevant document within
// the top k, or 0 if there is none.
func MRR(ranked []string, relevant map[string]bool, k int) float64 {
	ranked = dedup(ranked)
	for i, d := range ranked {
		if i >= k {
			break
		}
		if relevant[d] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Scores are the averages the benchmark reports for one system on one
// dataset.
type Scores struct {
	NDCG10    float64 `json:"ndcg@10"`
	Recall10  float64 `json:"recall@10"`
	Recall100 float64 `json:"recall@100"`
	MRR10     float64 `json:"mrr@10"`
	// Queries is the number of judged queries averaged over.
	Queries int `json:"queries"`
	// Empty counts judged queries for which the run returned nothing;
	// a high figure explains a low score (AND-only engines).
	Empty int `json:"empty"`
}

// Evaluate averages the measures over qrels' judged queries. run maps a
// query id to its ranked document ids; a query missing from run scores 0.
// Only the queries listed in only are used when only is non-nil, so a run
// over a sample of queries is scored against that sample.
func Evaluate(qrels Qrels, run map[string][]string, only []string) Scores {
	ids := only
	if ids == nil {
		ids = qrels.JudgedQueries()
	}
	var s Scores
	for _, q := range ids {
		rel := qrels.Relevant(q)
		if len(rel) == 0 {
			continue
		}
		s.Queries++
		ranked := run[q]
		if len(ranked) == 0 {
			s.Empty++
			continue
		}
		s.NDCG10 += NDCG(ranked, rel, 10)
		s.Recall10 += Recall(ranked, rel, 10)
		s.Recall100 += Recall(ranked, rel, 100)
		s.MRR10 += MRR(ranked, rel, 10)
	}
	if s.Queries > 0 {
		n := float64(s.Queries)
		s.NDCG10 /= n
		s.Recall10 /= n
		s.Recall100 /= n
		s.MRR10 /= n
	}
	return s
}
