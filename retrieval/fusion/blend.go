package fusion

import "sort"

// Tier sets how much the fusion rank counts against the reranker for the
// documents whose FusedRank is at most MaxRank (0 = no upper bound).
type Tier struct {
	MaxRank         int
	RetrievalWeight float64
}

// DefaultTiers trust retrieval most at the top, where a fused rank 1–3
// usually means several retrievers agreed (often an exact match the
// cross-encoder under-rates), and trust the reranker more further down,
// where fusion ranks are noisy. Same split as qmd's hybrid query.
var DefaultTiers = []Tier{
	{MaxRank: 3, RetrievalWeight: 0.75},
	{MaxRank: 10, RetrievalWeight: 0.60},
	{MaxRank: 0, RetrievalWeight: 0.40},
}

// retrievalWeight picks the tier for a fused rank; tiers are tried in
// order, and a rank beyond every tier uses the last one.
func retrievalWeight(tiers []Tier, rank int) float64 {
	for _, t := range tiers {
		if t.MaxRank <= 0 || rank <= t.MaxRank {
			return clamp01(t.RetrievalWeight)
		}
	}
	return clamp01(tiers[len(tiers)-1].RetrievalWeight)
}

// Blend combines the reranker's scores with the fusion ranking:
//
//	final(d) = w(r) · 1/r  +  (1 − w(r)) · rerank(d)
//
// where r is d's FusedRank (1-based) and w(r) the RetrievalWeight of the
// first tier covering r (nil tiers = DefaultTiers). 1/r rather than the raw
// RRF score keeps the retrieval term on the same 0–1 scale as the rerank
// probability, so final is in [0, 1]. Rerank scores are clamped to [0, 1];
// documents absent from rerank (not among the reranked candidates) get a
// rerank term of 0 and Reranked false, which keeps them below reranked
// documents of similar rank. fused must carry FusedRank (from RRF).
//
// It returns a new slice ordered by final score (ties: better FusedRank);
// the input is not reordered. Score holds the final score, Rerank the
// clamped reranker score.
func Blend(fused []Fused, rerank map[int64]float64, tiers []Tier) []Fused {
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	out := make([]Fused, len(fused))
	copy(out, fused)
	for i := range out {
		f := &out[i]
		r := f.FusedRank
		if r < 1 {
			r = i + 1
		}
		w := retrievalWeight(tiers, r)
		s, ok := rerank[f.DocID]
		if ok {
			s = clamp01(s)
			f.Rerank, f.Reranked = s, true
		} else {
			s = 0
		}
		f.Score = w/float64(r) + (1-w)*s
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].FusedRank < out[j].FusedRank
	})
	return out
}

// Protect guarantees that up to top documents of the protected set appear
// within the first top positions, in their current relative order. It is
// the guard that stops a reranker from burying a clear exact-title or
// strong-BM25 match: the caller decides what counts as protected (e.g. the
// BM25 top hit when its score and gap clear the strong-signal thresholds).
//
// A protected document outside the top is moved up just far enough, and its
// Score is raised to the score of the document it now precedes so scores
// stay non-increasing; moved documents get Protected = true. When more than
// top documents are protected, only the best-placed top are guaranteed.
// fused is expected in score order (as Blend returns it); it is not modified.
func Protect(fused []Fused, protected map[int64]bool, top int) []Fused {
	out := make([]Fused, len(fused))
	copy(out, fused)
	if top <= 0 || len(protected) == 0 {
		return out
	}
	// The guaranteed set: the first `top` protected documents in current order.
	var queue []int // indices into out, in order
	for i := range out {
		if protected[out[i].DocID] && len(queue) < top {
			queue = append(queue, i)
		}
	}
	if len(queue) == 0 {
		return out
	}
	guaranteed := make(map[int]bool, len(queue))
	for _, i := range queue {
		guaranteed[i] = true
	}
	placed := make(map[int]bool, len(queue))
	moved := make(map[int]bool)
	res := make([]Fused, 0, len(out))
	q := 0
	for i := range out {
		if placed[i] {
			continue
		}
		if guaranteed[i] {
			res = append(res, out[i])
			placed[i] = true
			q++
			continue
		}
		// Pull queued protected documents forward while the slots left in
		// the top are only just enough for them.
		for q < len(queue) && len(res) >= top-(len(queue)-q) {
			j := queue[q]
			moved[len(res)] = true
			res = append(res, out[j])
			placed[j] = true
			q++
		}
		res = append(res, out[i])
	}
	for p := len(res) - 1; p >= 0; p-- {
		if !moved[p] {
			continue
		}
		res[p].Protected = true
		if p+1 < len(res) && res[p+1].Score > res[p].Score {
			res[p].Score = res[p+1].Score
		}
	}
	return res
}
