// Package fusion merges ranked candidate lists into one document ranking.
//
// It is pure arithmetic over ranks and scores (no I/O), so the query
// pipeline can call it the same way in every mode:
//
//	fast:     f := RRF(lists, k); Normalize(f, MaxRRF(lists, k))
//	          (package docs: Cover, then Lead; Normalize clamps the led one)
//	default:  f := RRF(lists, k); f = Blend(f, rerank, nil); f = Protect(f, strong, 3); Normalize(f, 1)
//
// Scores are chunk-level on input (BM25 and vector search rank chunks) and
// document-level on output: every document keeps the chunk that earned it
// its place, so the reranker and the snippet see the best passage.
//
// It owns the fusion arithmetic; it must not import anything of gno.
package fusion

import (
	"math"
	"slices"
	"sort"
	"strconv"
)

// DefaultK is the RRF damping constant from Cormack et al. (2009); larger k
// flattens the difference between the first ranks.
const DefaultK = 60

// Hit is one chunk in a ranked list. Lists are ordered best first; Score is
// kept only for --explain and never used for ordering.
type Hit struct {
	DocID   int64
	ChunkID int64
	Score   float64
}

// List is one retriever's ranking (BM25, vector, or one expansion variant).
// Weight scales the list's RRF contribution; the original query's lists are
// meant to weigh more than expansion lists (e.g. 2 vs 1). A Weight <= 0 or
// NaN counts as 1, so the zero value is usable. Name keys the per-list
// explain maps; a repeated Name gets "#2", "#3"… appended, an empty one
// becomes "#<index>".
type List struct {
	Name   string
	Weight float64
	Hits   []Hit
	// Reachable reports whether a document could appear in this list at
	// all (a vector list cannot hold a document that has no vector); nil
	// means every document could. Only Cover reads it.
	Reachable func(f *Fused) bool
}

// Fused is one document after fusion (and, later, blending). Score is the
// value the slice is ordered by: the raw RRF score after RRF, the blended
// score after Blend, and 0–1 after Normalize. The other fields explain how
// Score came about.
type Fused struct {
	DocID int64
	// ChunkID is the chunk with the largest weighted RRF contribution
	// among the lists that ranked this document.
	ChunkID int64
	Score   float64
	// RRF is the fusion score: sum over lists of Weight / (k + rank).
	RRF float64
	// FusedRank is the 1-based position after RRF, before any reranking.
	FusedRank int
	// Rerank is the reranker's 0–1 score; Reranked says it was set.
	Rerank   float64
	Reranked bool
	// Protected says Protect moved this document back into the top ranks.
	Protected bool
	// Ranks is the 1-based document rank in each list that holds it
	// (chunks of the same document count once, at their best position).
	Ranks map[string]int
	// Scores is the raw retriever score of the document's best hit per list.
	Scores map[string]float64
	// Chunks is the chunk that gave the document its rank in each list.
	Chunks map[string]int64
}

// ListNames returns the names RRF uses as keys in Ranks/Scores/Chunks, in
// list order, applying the same defaulting and de-duplication.
func ListNames(lists []List) []string {
	names := make([]string, len(lists))
	seen := make(map[string]int, len(lists))
	for i, l := range lists {
		name := l.Name
		if name == "" {
			name = "#" + strconv.Itoa(i)
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name += "#" + strconv.Itoa(n)
		}
		names[i] = name
	}
	return names
}

func weightOf(l List) float64 {
	if l.Weight > 0 && !math.IsInf(l.Weight, 0) {
		return l.Weight
	}
	return 1
}

func kOrDefault(k float64) float64 {
	if k > 0 && !math.IsInf(k, 0) {
		return k
	}
	return DefaultK
}

// RRF fuses lists by weighted reciprocal-rank fusion at document level.
//
// Within each list a document's rank is the position of its first (best)
// chunk among distinct documents, so a document with many matching chunks
// neither gains extra votes nor pushes others down. Its score is
//
//	RRF(d) = Σ_lists  w_list / (k + rank_list(d))
//
// k <= 0 means DefaultK. The winning chunk is the one whose lists
// contributed most (summing contributions when several lists picked the
// same chunk); ties go to the chunk seen first. The result is ordered by
// RRF descending, then by best single-list rank, then by DocID, so it is
// deterministic. FusedRank and Score are set; Score == RRF.
func RRF(lists []List, k float64) []Fused {
	k = kOrDefault(k)
	names := ListNames(lists)

	type chunkVote struct {
		chunk int64
		score float64
		order int // first time this chunk was seen, for ties
	}
	type acc struct {
		f       Fused
		votes   []chunkVote
		minRank int
	}
	total := 0
	for _, l := range lists {
		total += len(l.Hits)
	}
	docs := make(map[int64]int, total) // DocID → index into accs
	accs := make([]acc, 0, total)      // first-seen order, for stable output
	nl := len(lists)
	seenOrder := 0

	for li, l := range lists {
		w := weightOf(l)
		name := names[li]
		rank := 0
		inList := make(map[int64]bool, len(l.Hits))
		for _, h := range l.Hits {
			if inList[h.DocID] {
				continue
			}
			inList[h.DocID] = true
			rank++
			ai, ok := docs[h.DocID]
			if !ok {
				ai = len(accs)
				accs = append(accs, acc{f: Fused{
					DocID:  h.DocID,
					Ranks:  make(map[string]int, nl),
					Scores: make(map[string]float64, nl),
					Chunks: make(map[string]int64, nl),
				}, minRank: rank})
				docs[h.DocID] = ai
			}
			a := &accs[ai]
			c := w / (k + float64(rank))
			a.f.RRF += c
			a.f.Ranks[name] = rank
			a.f.Scores[name] = h.Score
			a.f.Chunks[name] = h.ChunkID
			if rank < a.minRank {
				a.minRank = rank
			}
			voted := false
			for i := range a.votes {
				if a.votes[i].chunk == h.ChunkID {
					a.votes[i].score += c
					voted = true
					break
				}
			}
			if !voted {
				a.votes = append(a.votes, chunkVote{chunk: h.ChunkID, score: c, order: seenOrder})
				seenOrder++
			}
		}
	}

	out := make([]Fused, 0, len(accs))
	minRank := make(map[int64]int, len(accs))
	for i := range accs {
		a := &accs[i]
		best := a.votes[0]
		for _, v := range a.votes[1:] {
			if v.score > best.score || (v.score == best.score && v.order < best.order) {
				best = v
			}
		}
		a.f.ChunkID = best.chunk
		a.f.Score = a.f.RRF
		minRank[a.f.DocID] = a.minRank
		out = append(out, a.f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].RRF != out[j].RRF {
			return out[i].RRF > out[j].RRF
		}
		if ri, rj := minRank[out[i].DocID], minRank[out[j].DocID]; ri != rj {
			return ri < rj
		}
		return out[i].DocID < out[j].DocID
	})
	for i := range out {
		out[i].FusedRank = i + 1
	}
	return out
}

// MaxRRF is the RRF score of a document ranked first in every list: the
// divisor that maps fast-mode (fusion-only) scores into 0–1 with a fixed
// meaning (1 = top of every list) instead of "relative to this query's best".
func MaxRRF(lists []List, k float64) float64 {
	k = kOrDefault(k)
	var m float64
	for _, l := range lists {
		m += weightOf(l) / (k + 1)
	}
	return m
}

// Cover makes fusion fair to documents that could not appear in some
// lists (Reachable false): such a document's RRF is divided by the most
// it could reach over the lists it could appear in, and multiplied by
// MaxRRF(lists), so that it stands on the same scale as a document every
// list could hold. A document without a vector, ranked first by BM25,
// then scores as one ranked first by BM25 and by vectors, instead of
// reaching at most a third of it (BM25 weight 1 against vectors' 2) and
// never competing. RRF and Score are both rescaled; the slice is re-sorted
// (ties: best single-list rank, then DocID, as RRF orders) and FusedRank
// set again. It returns how many documents were rescaled.
func Cover(fused []Fused, lists []List, k float64) int {
	k = kOrDefault(k)
	full := MaxRRF(lists, k)
	names := ListNames(lists)
	n := 0
	for i := range fused {
		f := &fused[i]
		reach := 0.0
		for li, l := range lists {
			_, in := f.Ranks[names[li]]
			if in || l.Reachable == nil || l.Reachable(f) {
				reach += weightOf(l) / (k + 1)
			}
		}
		if reach <= 0 || reach >= full {
			continue
		}
		f.RRF *= full / reach
		f.Score = f.RRF
		n++
	}
	if n > 0 {
		reorder(fused)
	}
	return n
}

// Lead adds votes first-rank votes of the named list (votes × its
// weight/(k+1)) to the RRF score of the document that list ranks first,
// and orders the slice again. It is for a list whose first hit is better
// evidence than its rank alone says: in an API index, BM25's first hit
// shares the question's words with a name or doc, while the vector list
// at twice BM25's weight passes it with any look-alike it ranks near the
// top (bench/RESULTS.md, "fast below search"). The lead breaks the
// lists' disagreement: a document every one of lists ranks first gets
// nothing, nor one that ok (nil: any) turns down, such as one the other
// lists rank far down. It returns the amount added (0 when none). The
// caller keeps MaxRRF as Normalize's divisor: only the led document can
// pass it (no other is first in every list), and Normalize clamps it to
// 1, so every other score keeps the scale it has without a lead (a
// larger divisor moved every score, and with it what a minimum score
// lets through, whenever a lead fired).
func Lead(fused []Fused, lists []List, list string, votes, k float64, ok func(f *Fused) bool) float64 {
	if votes <= 0 || math.IsInf(votes, 0) || math.IsNaN(votes) {
		return 0
	}
	i := slices.IndexFunc(lists, func(l List) bool { return l.Name == list })
	if i < 0 {
		return 0
	}
	bonus := votes * weightOf(lists[i]) / (kOrDefault(k) + 1)
	for i := range fused {
		if fused[i].Ranks[list] == 1 {
			first := 0
			for _, r := range fused[i].Ranks {
				if r == 1 {
					first++
				}
			}
			if first >= len(lists) || ok != nil && !ok(&fused[i]) {
				return 0
			}
			fused[i].RRF += bonus
			fused[i].Score = fused[i].RRF
			reorder(fused)
			return bonus
		}
	}
	return 0
}

// reorder sorts fused by RRF as RRF orders it (ties: best single-list
// rank, then DocID) and sets FusedRank again.
func reorder(fused []Fused) {
	best := func(f *Fused) int {
		m := math.MaxInt
		for _, r := range f.Ranks {
			m = min(m, r)
		}
		return m
	}
	sort.SliceStable(fused, func(i, j int) bool {
		if fused[i].RRF != fused[j].RRF {
			return fused[i].RRF > fused[j].RRF
		}
		if ri, rj := best(&fused[i]), best(&fused[j]); ri != rj {
			return ri < rj
		}
		return fused[i].DocID < fused[j].DocID
	})
	for i := range fused {
		fused[i].FusedRank = i + 1
	}
}

// Normalize maps Score into [0, 1] in place by dividing by max and clamping;
// max is MaxRRF(...) for fusion-only results and 1 for blended ones (which
// are already in [0, 1] and only get clamped). max <= 0 leaves the scores
// merely clamped. NaN scores become 0. The slice is returned for chaining.
func Normalize(fused []Fused, max float64) []Fused {
	for i := range fused {
		s := fused[i].Score
		if max > 0 && !math.IsInf(max, 0) {
			s /= max
		}
		fused[i].Score = clamp01(s)
	}
	return fused
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
