package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/graph"
	"github.com/gnosearch/gno/retrieval/store"
)

// RelatedNote is a note near another by its links, its meaning or both.
type RelatedNote struct {
	NoteRef
	// Score is the fused reciprocal-rank score, scaled so the best is 1.
	Score float64 `json:"score"`
	// Linked means a link joins the two notes (either way).
	Linked bool `json:"linked"`
	// LinkRank and VectorRank are the 1-based ranks in each list (0:
	// absent).
	LinkRank   int `json:"linkRank,omitempty"`
	VectorRank int `json:"vectorRank,omitempty"`
}

// RelatedResult lists a note's related notes.
type RelatedResult struct {
	NoteRef
	Related []RelatedNote `json:"related"`
	// VectorsUsed is false when the index has no vectors for the note:
	// then only links count.
	VectorsUsed bool `json:"vectorsUsed"`
}

// rrfK is the reciprocal-rank-fusion constant (as in search).
const rrfK = 60

// RelatedRequest asks for the notes nearest a note.
type RelatedRequest struct {
	Ref string
	// Limit is how many (10 if 0).
	Limit int
}

// Related returns the notes nearest a note: its link neighbourhood (direct
// links first, mutual ones ahead, then notes sharing neighbours) fused by
// reciprocal rank with its vector neighbours (the mean of its chunk
// vectors). Without vectors it ranks by links alone.
func (gr *Graph) Related(ctx context.Context, req RelatedRequest) (*RelatedResult, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*RelatedResult, error) { return gr.related(ctx, req) })
}

func (gr *Graph) related(ctx context.Context, req RelatedRequest) (*RelatedResult, error) {
	e, refStr, limit := gr.e, req.Ref, req.Limit
	if limit <= 0 {
		limit = 10
	}
	m, err := e.resolve(ctx, refStr)
	if err != nil {
		return nil, err
	}
	g, st, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	// Link list: direct neighbours score 2 (3 when mutual); notes two
	// steps away score 1/2 per shared neighbour.
	score := map[int64]float64{}
	outs := g.Neighbors(m.ID, true, false)
	ins := map[int64]bool{}
	for _, id := range g.Neighbors(m.ID, false, true) {
		ins[id] = true
	}
	direct := map[int64]bool{}
	for _, id := range outs {
		direct[id] = true
	}
	for id := range ins {
		direct[id] = true
	}
	for id := range direct {
		score[id] += 2
		if ins[id] && contains(outs, id) {
			score[id]++
		}
		for _, n := range g.Neighbors(id, true, true) {
			if n != m.ID {
				score[n] += 0.5
			}
		}
	}
	delete(score, m.ID)
	linkIDs := make([]int64, 0, len(score))
	for id := range score {
		linkIDs = append(linkIDs, id)
	}
	pr := gr.pageRank(g)
	sort.Slice(linkIDs, func(i, j int) bool {
		a, b := linkIDs[i], linkIDs[j]
		if score[a] != score[b] {
			return score[a] > score[b]
		}
		if ra, rb := graph.RankKey(g.Rank(pr, a)), graph.RankKey(g.Rank(pr, b)); ra != rb {
			return ra > rb
		}
		return a < b
	})
	if len(linkIDs) > 3*limit {
		linkIDs = linkIDs[:3*limit]
	}
	vecIDs, err := e.vectorNeighbours(ctx, st, m.ID, 3*limit)
	if err != nil {
		return nil, err
	}
	res := &RelatedResult{NoteRef: noteRef(m), Related: []RelatedNote{}, VectorsUsed: vecIDs != nil}
	fused := map[int64]*RelatedNote{}
	var order []int64
	add := func(ids []int64, vec bool) {
		for i, id := range ids {
			r := fused[id]
			if r == nil {
				r = &RelatedNote{Linked: direct[id]}
				fused[id] = r
				order = append(order, id)
			}
			r.Score += 1 / float64(rrfK+i+1)
			if vec {
				r.VectorRank = i + 1
			} else {
				r.LinkRank = i + 1
			}
		}
	}
	add(linkIDs, false)
	add(vecIDs, true)
	sort.SliceStable(order, func(i, j int) bool { return fused[order[i]].Score > fused[order[j]].Score })
	if len(order) > limit {
		order = order[:limit]
	}
	metas, err := st.Docs(ctx, order)
	if err != nil {
		return nil, err
	}
	top := 0.0
	if len(order) > 0 {
		top = fused[order[0]].Score
	}
	for _, id := range order {
		mm := metas[id]
		if mm == nil {
			continue
		}
		r := fused[id]
		r.NoteRef = noteRef(mm)
		r.Score = math.Round(r.Score/top*10000) / 10000
		res.Related = append(res.Related, *r)
	}
	return res, nil
}

func contains(a []int64, x int64) bool {
	for _, v := range a {
		if v == x {
			return true
		}
	}
	return false
}

// vectorNeighbours returns the documents whose chunks lie nearest the
// mean of doc's chunk vectors, or nil when doc has no vectors.
func (e *Engine) vectorNeighbours(ctx context.Context, st store.Backend, doc int64, k int) ([]int64, error) {
	vecs, err := st.DocVectors(ctx, doc)
	if err != nil {
		return nil, err
	}
	var model string
	var mean []float32
	for _, dv := range vecs {
		if model == "" {
			model = dv.Model
		}
		v := dv.Vec
		if dv.Model != model || (mean != nil && len(v) != len(mean)) {
			continue
		}
		if mean == nil {
			mean = make([]float32, len(v))
		}
		for i, x := range v {
			mean[i] += x
		}
	}
	if mean == nil {
		return nil, nil
	}
	var norm float64
	for _, x := range mean {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return nil, nil
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range mean {
		mean[i] *= inv
	}
	var hits []hit
	if vs := e.vectorSearcher(ctx); vs != nil {
		if hits, err = e.serverNearest(ctx, vs, model, mean, store.Filter{}, k, doc); err != nil {
			return nil, nil // degrade to links
		}
	} else {
		ix, err := e.vectorIndex(ctx, model)
		if err != nil || ix.Len() == 0 {
			return nil, nil // degrade to links
		}
		if hits, err = e.searchGraph(ctx, ix, mean, k+1, func(d int64) bool { return d != doc }, 0); err != nil {
			return nil, nil
		}
	}
	out := make([]int64, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.DocID)
	}
	return out, nil
}

// Resolve strategies.
const (
	ResolveExact    = "exact"
	ResolveFuzzy    = "fuzzy"
	ResolveSemantic = "semantic"
)

// NameMatch is the note a name resolves to; URI is empty when none
// reaches the threshold.
type NameMatch struct {
	Query string  `json:"query"`
	URI   string  `json:"match,omitempty"`
	DocID string  `json:"docid,omitempty"`
	Title string  `json:"title,omitempty"`
	Score float64 `json:"score"`
}

// ResolveRequest asks which notes some names mean.
type ResolveRequest struct {
	Names []string
	// Strategy is ResolveExact, ResolveFuzzy (the default) or
	// ResolveSemantic.
	Strategy string
	// Threshold is the least score a fuzzy or semantic match needs (0.7
	// if 0).
	Threshold float64
}

// Resolve finds the note each name means: exact (case-insensitive
// equality with a title, file name or alias), fuzzy (trigram Dice
// similarity with them, for typos; the default) or semantic (embedding
// similarity, for synonyms; needs vectors).
func (gr *Graph) Resolve(ctx context.Context, req ResolveRequest) ([]NameMatch, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) ([]NameMatch, error) { return gr.resolve(ctx, req) })
}

func (gr *Graph) resolve(ctx context.Context, req ResolveRequest) ([]NameMatch, error) {
	e, names, strategy, threshold := gr.e, req.Names, req.Strategy, req.Threshold
	if strategy == "" {
		strategy = ResolveFuzzy
	}
	if threshold <= 0 {
		threshold = 0.7
	}
	if len(names) > 1000 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "at most 1000 names at once, not %d", len(names))
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]NameMatch, len(names))
	best := make([]int64, len(names))
	switch strategy {
	case ResolveExact, ResolveFuzzy:
		cands, err := e.nameCandidates(ctx, st)
		if err != nil {
			return nil, err
		}
		for i, n := range names {
			out[i].Query = n
			q := strings.ToLower(strings.TrimSpace(n))
			qg := trigrams(q)
			for _, c := range cands {
				s := 0.0
				if c.lower == q {
					s = 1
				} else if strategy == ResolveFuzzy {
					s = dice(qg, c.grams)
				}
				if s > out[i].Score || s == out[i].Score && s > 0 && c.id < best[i] {
					out[i].Score, best[i] = s, c.id
				}
			}
			if strategy == ResolveExact && out[i].Score < 1 || out[i].Score < threshold {
				best[i] = 0
			}
		}
	case ResolveSemantic:
		for i, n := range names {
			out[i].Query = n
			if strings.TrimSpace(n) == "" {
				continue
			}
			hits, err := e.vectorHits(ctx, n, store.Filter{}, 1)
			if err != nil {
				if gnoerr.Is(err, gnoerr.Unavailable) {
					return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "semantic resolve needs vectors: run `gno index`")
				}
				return nil, err
			}
			if len(hits) > 0 && hits[0].Score >= threshold {
				out[i].Score, best[i] = hits[0].Score, hits[0].DocID
			} else if len(hits) > 0 {
				out[i].Score = hits[0].Score
			}
		}
	default:
		return nil, gnoerr.New(gnoerr.InvalidInput, "strategy must be exact, fuzzy or semantic, not %q", strategy)
	}
	metas, err := st.Docs(ctx, best)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Score = math.Round(out[i].Score*10000) / 10000
		if m := metas[best[i]]; m != nil && best[i] != 0 {
			r := noteRef(m)
			out[i].URI, out[i].DocID, out[i].Title = r.URI, r.DocID, r.Title
		}
	}
	return out, nil
}

type nameCand struct {
	id    int64
	lower string
	grams map[string]bool
}

// nameCandidates lists every title, file name and alias with its
// trigrams.
func (e *Engine) nameCandidates(ctx context.Context, st store.Backend) ([]nameCand, error) {
	names, err := st.DocNames(ctx, nil)
	if err != nil {
		return nil, err
	}
	docs, err := st.List(ctx, e.Config().CollectionNames(), "", 0, 0)
	if err != nil {
		return nil, err
	}
	live := map[int64]bool{}
	var out []nameCand
	seen := map[string]bool{}
	add := func(id int64, s string) {
		l := strings.ToLower(strings.TrimSpace(s))
		k := fmt.Sprint(id, "\x00", l)
		if l == "" || seen[k] {
			return
		}
		seen[k] = true
		out = append(out, nameCand{id: id, lower: l, grams: trigrams(l)})
	}
	for _, d := range docs {
		live[d.ID] = true
		add(d.ID, d.Title)
	}
	for _, n := range names {
		if live[n.DocID] {
			add(n.DocID, n.Name)
		}
	}
	return out, nil
}

// trigrams returns the character trigrams of s padded with spaces, so
// short names and word starts count.
func trigrams(s string) map[string]bool {
	r := []rune("  " + s + " ")
	out := make(map[string]bool, len(r))
	for i := 0; i+3 <= len(r); i++ {
		out[string(r[i:i+3])] = true
	}
	return out
}

// dice is the Sørensen–Dice coefficient of two trigram sets.
func dice(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	n := 0
	for g := range a {
		if b[g] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}
