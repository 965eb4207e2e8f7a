package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/retrieval/fusion"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// Default budgets per mode, for the query's own work in a warm process
// (loading models happens before the clock starts). A stage that would
// overrun is cut and meta says so. They are the spec's ceilings, which the
// measured warm p95 × 1.5 reaches (bench/README.md, "How the budgets are
// chosen"); config search.budgets overrides them.
var defaultBudgets = map[string]time.Duration{"fast": 50 * time.Millisecond, "default": 400 * time.Millisecond, "thorough": 2500 * time.Millisecond}

// defaultRerankTokens caps a (query, passage) pair for the cross-encoder
// when the config does not: 30 pairs of 128 tokens take about 300 ms here,
// inside the default mode's budget; 256 tokens take 530 ms.
const defaultRerankTokens = 128

// Fusion weights, tuned on SciFact train (bench/RESULTS.md has the
// ablation): an expansion variant counts half the user's own BM25 list;
// the vector list's weight depends on how good the embedder is
// (vectorWeightFor).
const (
	bm25Weight      = 1.0
	expansionWeight = 0.5
	// candidatesPerList is how deep each retriever's list goes into fusion.
	candidatesPerList = 50 // raised to the request limit when that is larger
)

// Query runs the hybrid pipeline: BM25 and vector candidates (plus
// expansion variants in thorough mode) fused by RRF, the top candidates
// reranked, scores blended. Missing parts degrade and say so in meta.
//
// The stages run in data-flow order, each a method of queryRun: BM25 of
// the user's words, expansion, the candidate lists, fusion and reranking,
// results.
func (e *Engine) Query(ctx context.Context, req QueryRequest) (*SearchResults, error) {
	return readAs(ctx, e, func(ctx context.Context) (*SearchResults, error) { return e.query(ctx, req) })
}

func (e *Engine) query(ctx context.Context, req QueryRequest) (*SearchResults, error) {
	start := time.Now()
	r, err := e.newQueryRun(ctx, req)
	if err != nil {
		return nil, err
	}
	// Loading models is a one-off per process that no budget can cut: it
	// happens before the clock starts, so a cold CLI call is judged like a
	// warm one. The vector stage needs the query's embedding: it starts as
	// soon as the models are loaded (at once in a warm process), beside
	// BM25 (queryvec.go).
	ready := make(chan struct{})
	var warmPanic any // raised again here, where the caller can recover it
	go func() {
		defer func() {
			warmPanic = recover()
			close(ready)
		}()
		// The models and the vector graph are shared caches: they load
		// outside this query's snapshot, beside BM25 rather than queued
		// on its connection.
		e.models.warm(e.detach(ctx), r.wantRerank)
		r.ctx, r.cancel = context.WithTimeout(ctx, r.budget)
		r.lang, r.embedModel, r.covered = e.models.covers(r.req.Query)
		if r.covered {
			r.qvec = e.startQueryVector(r.ctx, r.req.Query)
		}
	}()

	// BM25 of the user's own words is the floor every mode stands on: it
	// runs outside the budget (only the caller can cancel it), and needs
	// no model, so a cold process runs it while the models load.
	t0 := time.Now()
	bm, err := e.bm25(ctx, r.q, r.f, r.depth)
	r.stage("bm25", t0)
	<-ready
	if warmPanic != nil {
		panic(warmPanic)
	}
	defer r.cancel()
	if err != nil && !r.q.Empty() {
		return nil, err
	}
	strong := strongSignal(bm)
	r.expand(strong)
	lists, err := r.candidateLists(bm)
	if err != nil {
		return nil, err
	}
	fused := r.fuse(lists, bm, strong)
	res, err := r.results(fused)
	if err != nil {
		return nil, err
	}
	if req.Explain {
		r.timings["total"] = ms(time.Since(start))
		res.Meta.Timings = r.timings
	}
	return res, nil
}

// queryRun is one Query call's state as it passes through the stages.
type queryRun struct {
	e       *Engine
	req     QueryRequest
	doc     query.Doc
	q       query.Keywords
	f       store.Filter
	mode    string // fast, default or thorough
	depth   int    // candidates per list
	budget  time.Duration
	base    context.Context // the caller's: BM25 and a prefetched vector's search
	ctx     context.Context // the budgeted context of the model stages
	cancel  context.CancelFunc
	meta    Meta
	timings map[string]float64

	wantRerank bool

	// Whether the embedder covers the query's language (Models.covers),
	// with the language and the model for the note when it does not.
	lang, embedModel string
	covered          bool
	qvec             *queryVector // the query's embedding, started beside BM25; nil when not
}

func (e *Engine) newQueryRun(ctx context.Context, req QueryRequest) (*queryRun, error) {
	// The limits apply to what the user sent, before the typed lines
	// are taken apart.
	if err := req.SearchRequest.Validate(); err != nil {
		return nil, err
	}
	doc := query.ParseDoc(req.Query)
	req.Query = doc.Text
	f, err := e.prepare(ctx, &req.SearchRequest)
	if err != nil {
		return nil, err
	}
	r := &queryRun{e: e, req: req, doc: doc, f: f, mode: "default", q: query.Parse(req.Query), base: ctx,
		meta: Meta{Query: req.Query}, timings: map[string]float64{}}
	switch {
	case req.Fast:
		r.mode = "fast"
	case req.Thorough:
		r.mode = "thorough"
	}
	r.depth = max(candidatesPerList, req.listLimit())
	r.budget = defaultBudgets[r.mode]
	if b, ok := e.Config().Search.Budgets[r.mode]; ok && b > 0 {
		r.budget = time.Duration(b)
	}
	r.wantRerank = r.mode != "fast" && (req.Rerank == nil || *req.Rerank)
	return r, nil
}

func (r *queryRun) stage(name string, t0 time.Time) { r.timings[name] = ms(time.Since(t0)) }

func (r *queryRun) note(s string) { r.meta.Notes = append(r.meta.Notes, s) }

// expand adds expansion variants (thorough or --expand), skipped on a
// strong BM25 signal or when the caller gave the variants.
func (r *queryRun) expand(strong bool) {
	doc := &r.doc
	wantExpand := (r.mode == "thorough" || r.req.Expand) && !r.req.Fast
	switch {
	case !wantExpand:
	case len(doc.Lex)+len(doc.Vec) > 0 || doc.Hyde != "":
		r.meta.Expanded = true // the caller gave the variants
	case strong:
		r.note("expansion skipped: strong keyword match")
	default:
		t0 := time.Now()
		exp, reason := r.e.expand(r.ctx, r.req.Query, r.budget/2)
		r.stage("expand", t0)
		if exp == nil {
			r.note("expansion unavailable: " + reason)
			return
		}
		r.meta.Expanded = true
		r.meta.Expansion = exp
		doc.Lex = append(doc.Lex, exp.Keywords...)
		doc.Hyde = exp.Passage
	}
}

// candidateLists gathers the ranked lists to fuse: the user's BM25 list,
// the keyword variants', and the vector lists when the embedder covers the
// query's language.
func (r *queryRun) candidateLists(bm []hit) ([]fusion.List, error) {
	sc := r.e.Config().Search
	bmW, vecW := bm25Weight, vectorWeightFor(r.e.models.EmbedModel())
	if sc.BM25Weight > 0 {
		bmW = sc.BM25Weight
	}
	if sc.VectorWeight > 0 {
		vecW = sc.VectorWeight
	}
	lists := []fusion.List{{Name: "bm25", Weight: bmW, Hits: toFusion(bm)}}
	for i, lx := range r.doc.Lex {
		lq := query.Parse(lx)
		if lq.Empty() {
			continue
		}
		h, err := r.e.bm25(r.ctx, lq, r.f, r.depth)
		if err != nil {
			if r.ctx.Err() != nil {
				r.note("keyword variants cut: budget exceeded")
				break
			}
			return nil, err
		}
		lists = append(lists, fusion.List{Name: fmt.Sprintf("lex%d", i+1), Weight: expansionWeight, Hits: toFusion(h)})
	}
	t0 := time.Now()
	defer r.stage("vector", t0)
	r.meta.Mode = "bm25_only"
	if !r.covered {
		// An embedder that does not know the language ranks nearly at
		// random, and fusing that list pulls good BM25 hits down.
		r.note(fmt.Sprintf("vector list skipped: embedder %s does not cover the query's language (%s); name one that does in models.embed (see `gno models list`)", r.embedModel, r.lang))
		return lists, nil
	}
	var reach func(*fusion.Fused) bool
	vecTexts := append([]string{r.req.Query}, r.doc.Vec...)
	if r.doc.Hyde != "" {
		vecTexts = append(vecTexts, r.doc.Hyde)
	}
	for i, vt := range vecTexts {
		var pre *queryVector
		if i == 0 {
			pre = r.qvec // vecTexts[0] is r.req.Query
		}
		got, err := r.vectorLists(i, vt, pre, vecW)
		if err != nil {
			if gnoerr.Is(err, gnoerr.Unavailable) {
				r.note("vectors unavailable: " + firstLine(err))
				break
			}
			if r.ctx.Err() != nil {
				r.note("vector search cut: budget exceeded")
				break
			}
			return nil, err
		}
		if len(got) == 0 {
			continue // a split search whose sides have no vectors
		}
		r.meta.VectorsUsed = true
		r.meta.VectorIndex = r.e.vectorIndexKind(r.base)
		r.meta.Mode = "hybrid"
		if reach == nil {
			reach = r.vectorReach()
		}
		for _, l := range got {
			l.Reachable = bothReach(reach, l.Reachable)
			lists = append(lists, l)
		}
	}
	return lists, nil
}

// vectorReach tells, in a package-docs index, whether a document could
// appear in a vector list: whether it has a vector. A standard library
// is BM25-only by design and a version may still be embedding, and
// without this rule their units reach at most a third of a fused score
// and never compete (fusion.Cover; bench/RESULTS.md, "Ranking: the
// answer first"). nil (every document could) in the notes index, whose
// documents all get vectors, and when the graph cannot be read.
func (r *queryRun) vectorReach() func(*fusion.Fused) bool {
	if !r.e.pkgs {
		return nil
	}
	emb, err := r.e.models.Embedder(r.base)
	if err != nil || emb == nil || r.e.vectorSearcher(r.base) != nil {
		// Over a backend that searches its vectors there is no graph to
		// ask: every document could appear.
		return nil
	}
	ix, err := r.e.vectorIndex(r.base, emb.ModelID())
	if err != nil {
		return nil
	}
	return func(f *fusion.Fused) bool {
		if ix.Has(store.ChunkID(f.DocID, 0)) {
			return true
		}
		for _, c := range f.Chunks {
			if ix.Has(c) {
				return true
			}
		}
		return false
	}
}

// fuse merges the lists by RRF and, in default and thorough modes,
// reranks the top candidates and blends the scores.
func (r *queryRun) fuse(lists []fusion.List, bm []hit, strong bool) []fusion.Fused {
	k := r.e.Config().Search.RRFK
	if k <= 0 {
		k = fusion.DefaultK
	}
	fused := fusion.RRF(lists, k)
	if n := r.withoutVector(fused, lists, fusion.Cover(fused, lists, k)); n > 0 {
		r.note(fmt.Sprintf("%d candidates have no vector (a standard library, or not embedded yet): scored over the keyword lists alone, on the scale of the embedded ones", n))
	}
	maxRRF := fusion.MaxRRF(lists, k)
	// Measured for fast mode; a reranker judges candidates itself.
	if r.e.pkgs && r.meta.VectorsUsed && !r.wantRerank {
		if fusion.Lead(fused, lists, "bm25", pkgBM25Lead, k, r.nearInVersion(lists)) > 0 {
			r.note("the keyword search's first hit, which the vectors also rank near the top of its package, leads the fusion (package docs)")
		}
	}
	if !r.wantRerank || len(fused) == 0 {
		return fusion.Normalize(fused, maxRRF)
	}
	t0 := time.Now()
	n := r.req.Candidates
	if n <= 0 {
		n = r.e.Config().Search.Candidates
	}
	if n <= 0 {
		n = 30
	}
	scores, note := r.e.rerank(r.ctx, r.doc, fused, n)
	r.stage("rerank", t0)
	if rr, _ := r.e.models.Reranker(r.ctx); rr != nil {
		r.meta.RerankModel = rr.ModelID()
	}
	if scores == nil {
		r.note(note)
		return fusion.Normalize(fused, maxRRF)
	}
	r.meta.Reranked = true
	fused = fusion.Blend(fused, scores, nil)
	protected := map[int64]bool{}
	if strong && len(bm) > 0 {
		protected[bm[0].DocID] = true
	}
	fused = fusion.Protect(fused, protected, 3)
	return fusion.Normalize(fused, 1)
}

// results turns fused documents into contract results with explanations.
func (r *queryRun) results(fused []fusion.Fused) (*SearchResults, error) {
	hits := make([]hit, len(fused))
	for i, fd := range fused {
		x := &Explain{FusionRank: fd.FusedRank, FusionScore: round4(fd.RRF)}
		if rk, ok := fd.Ranks["bm25"]; ok {
			x.BM25Rank, x.BM25Score = rk, round4(fd.Scores["bm25"])
		}
		x.VectorRank, x.VectorScore = r.vectorRank(fd)
		if fd.Reranked {
			x.RerankScore = round4(fd.Rerank)
		}
		hits[i] = hit{DocID: fd.DocID, ChunkID: fd.ChunkID, Score: fd.Score, Explain: x}
	}
	res, err := r.e.results(context.WithoutCancel(r.ctx), hits, r.q, r.req.SearchRequest)
	if err != nil {
		return nil, err
	}
	r.meta.TotalResults = res.Meta.TotalResults
	r.meta.Replica = res.Meta.Replica
	if r.meta.VectorsUsed {
		r.e.noteCoverage(&r.meta, true)
	}
	res.Meta = r.meta
	return res, nil
}

// vectorWeightFor is the default fusion weight of the vector list for an
// embedder. bge-small-en-v1.5 is strong enough (vsearch 0.743 vs BM25 0.706
// nDCG@10 on SciFact train) that weighting it 2× gains 0.009; for weaker
// models (all-MiniLM-L6-v2 0.657, e5-small-v2 0.692) 2× loses, so they
// fuse evenly. On CMRC2018-zh, where BM25 over the segmented index is
// nearly perfect (0.9865) and bge-small-zh-v1.5-q alone scores 0.954, the
// vector list at weight 1 costs 0.008 nDCG@10 and at 0.25 still 0.0007; at
// 0.1 it gains 0.0024 (0.9889) and lifts R@100, so a tenth: it breaks BM25's
// near-ties and adds what BM25 misses without reordering what it finds
// (bench/RESULTS.md, "CJK search").
func vectorWeightFor(model string) float64 {
	switch {
	case strings.HasPrefix(model, "bge-small-en-v1.5"):
		return 2.0
	case strings.HasPrefix(model, "bge-small-zh-v1.5"):
		return 0.1
	}
	return 1.0
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func toFusion(hs []hit) []fusion.Hit {
	out := make([]fusion.Hit, len(hs))
	for i, h := range hs {
		out[i] = fusion.Hit{DocID: h.DocID, ChunkID: h.ChunkID, Score: h.Score}
	}
	return out
}

// strongSignal reports a BM25 top hit clearly ahead of the rest: then
// expansion cannot help and reranking must not bury it. Tuned on SciFact
// train: a gap of 0.3 flags 29% of claims with the top hit relevant in 93%
// of them (0.2: 47% at 86%; 0.4: 20% at 97.5%; overall P@1 is 61%).
func strongSignal(bm []hit) bool {
	if len(bm) == 0 {
		return false
	}
	top := bm[0].Score
	second := 0.0
	if len(bm) > 1 {
		second = bm[1].Score
	}
	return top >= 0.8 && top-second >= 0.3
}

// rerank scores the top n fused candidates' best chunks. It returns nil and
// a reason when no usable reranker is there or the budget ran out.
func (e *Engine) rerank(ctx context.Context, doc query.Doc, fused []fusion.Fused, n int) (map[int64]float64, string) {
	rr, err := e.models.Reranker(ctx)
	if err != nil {
		return nil, "not reranked: " + firstLine(err)
	}
	if rr == nil {
		return nil, "not reranked: no reranker configured (`gno models pull` one and set models.rerank)"
	}
	if n > len(fused) {
		n = len(fused)
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, "not reranked: " + gnoerr.Public(err)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = fused[i].ChunkID
	}
	chunks, err := st.Chunks(ctx, ids)
	if err != nil {
		return nil, "not reranked: " + gnoerr.Public(err)
	}
	texts := make([]string, n)
	for i, id := range ids {
		if c := chunks[id]; c != nil {
			texts[i] = c.Body // a chunk gone in a concurrent sync scores as empty text
		}
	}
	text := doc.Text
	if doc.Intent != "" {
		text = doc.Intent + ": " + text
	}
	scores, err := rr.Score(ctx, text, texts)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, "rerank cut: budget exceeded"
		}
		return nil, "not reranked: " + firstLine(err)
	}
	out := make(map[int64]float64, n)
	for i := 0; i < n; i++ {
		out[fused[i].DocID] = float64(scores[i])
	}
	return out, ""
}

// expand asks the configured expander for variants within limit. It returns
// nil and a reason when there is none or it fails.
func (e *Engine) expand(ctx context.Context, text string, limit time.Duration) (*inference.Expansion, string) {
	ex, err := e.models.Expander()
	if err != nil {
		return nil, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	exp, err := ex.Expand(ctx, text)
	if err != nil {
		var r interface{ Reason() string }
		if errors.As(err, &r) {
			return nil, r.Reason()
		}
		return nil, firstLine(err)
	}
	return exp, ""
}
