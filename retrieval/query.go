package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/ollama"
	"github.com/gnosearch/gno/inference/openai"
	"github.com/gnosearch/gno/retrieval/ftsquery"
	"github.com/gnosearch/gno/retrieval/fusion"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// QueryDoc is a query split into its typed variants. A plain query has only
// Text; a query document gives lex:, vec:, hyde: and intent: lines.
type QueryDoc struct {
	Text   string
	Lex    []string
	Vec    []string
	Hyde   string
	Intent string
}

// ParseQueryDoc reads a plain query or a query document of typed lines.
// Untyped lines of a query document join the plain text.
func ParseQueryDoc(s string) QueryDoc {
	var d QueryDoc
	var plain []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch k := strings.ToLower(strings.TrimSpace(key)); {
		case ok && k == "lex" && val != "":
			d.Lex = append(d.Lex, val)
		case ok && k == "vec" && val != "":
			d.Vec = append(d.Vec, val)
		case ok && k == "hyde" && val != "":
			d.Hyde = val
		case ok && k == "intent" && val != "":
			d.Intent = val
		case line != "":
			plain = append(plain, line)
		}
	}
	d.Text = strings.Join(plain, " ")
	if d.Text == "" {
		// The first variant stands for the query in meta and reranking.
		switch {
		case len(d.Lex) > 0:
			d.Text = d.Lex[0]
		case len(d.Vec) > 0:
			d.Text = d.Vec[0]
		default:
			d.Text = d.Hyde
		}
	}
	return d
}

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
func (e *Engine) Query(ctx context.Context, req QueryRequest) (*SearchResults, error) {
	start := time.Now()
	doc := ParseQueryDoc(req.Query)
	req.Query = doc.Text
	f, err := e.prepare(ctx, &req.SearchRequest)
	if err != nil {
		return nil, err
	}
	mode := "default"
	switch {
	case req.Fast:
		mode = "fast"
	case req.Thorough:
		mode = "thorough"
	}
	depth := max(candidatesPerList, req.Limit)
	budget := defaultBudgets[mode]
	if b, ok := e.Config().Search.Budgets[mode]; ok && b > 0 {
		budget = time.Duration(b)
	}
	// Loading models is a one-off per process that no budget can cut: do it
	// before the clock starts, so a cold CLI call is judged like a warm one.
	wantRerank := mode != "fast" && (req.Rerank == nil || *req.Rerank)
	e.warm(ctx, wantRerank)
	baseCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	meta := Meta{Query: req.Query}
	timings := map[string]float64{}
	stage := func(name string, t0 time.Time) { timings[name] = ms(time.Since(t0)) }

	// 1. Expansion (thorough or --expand), skipped on a strong BM25 signal.
	q := ftsquery.Parse(req.Query)
	t0 := time.Now()
	// BM25 of the user's own words is the floor every mode stands on: it
	// runs outside the budget (only the caller can cancel it).
	bm, err := e.bm25(baseCtx, q, f, depth)
	if err != nil && !q.Empty() {
		return nil, err
	}
	stage("bm25", t0)
	strong := strongSignal(bm)
	wantExpand := (mode == "thorough" || req.Expand) && !req.Fast
	if wantExpand && len(doc.Lex)+len(doc.Vec) == 0 && doc.Hyde == "" {
		switch {
		case strong:
			meta.Notes = append(meta.Notes, "expansion skipped: strong keyword match")
		default:
			t0 = time.Now()
			exp, reason := e.expand(ctx, req.Query, budget/2)
			stage("expand", t0)
			if exp != nil {
				meta.Expanded = true
				meta.Expansion = exp
				doc.Lex = append(doc.Lex, exp.Keywords...)
				doc.Hyde = exp.Passage
			} else {
				meta.Notes = append(meta.Notes, "expansion unavailable: "+reason)
			}
		}
	} else if wantExpand {
		meta.Expanded = true // the caller gave the variants
	}

	// 2. Candidate lists.
	sc := e.Config().Search
	bmW, vecW := bm25Weight, vectorWeightFor(e.embedModelName())
	if sc.BM25Weight > 0 {
		bmW = sc.BM25Weight
	}
	if sc.VectorWeight > 0 {
		vecW = sc.VectorWeight
	}
	lists := []fusion.List{{Name: "bm25", Weight: bmW, Hits: toFusion(bm)}}
	for i, lx := range doc.Lex {
		lq := ftsquery.Parse(lx)
		if lq.Empty() {
			continue
		}
		h, err := e.bm25(ctx, lq, f, depth)
		if err != nil {
			if ctx.Err() != nil {
				meta.Notes = append(meta.Notes, "keyword variants cut: budget exceeded")
				break
			}
			return nil, err
		}
		lists = append(lists, fusion.List{Name: fmt.Sprintf("lex%d", i+1), Weight: expansionWeight, Hits: toFusion(h)})
	}
	t0 = time.Now()
	vecTexts := append([]string{req.Query}, doc.Vec...)
	if doc.Hyde != "" {
		vecTexts = append(vecTexts, doc.Hyde)
	}
	for i, vt := range vecTexts {
		h, err := e.vectorHits(ctx, vt, f, depth)
		if err != nil {
			if gnoerr.Is(err, gnoerr.Unavailable) {
				meta.Notes = append(meta.Notes, "vectors unavailable: "+firstLine(err))
				break
			}
			if ctx.Err() != nil {
				meta.Notes = append(meta.Notes, "vector search cut: budget exceeded")
				break
			}
			return nil, err
		}
		meta.VectorsUsed = true
		name, w := "vector", vecW
		if i > 0 {
			name, w = fmt.Sprintf("vec%d", i), expansionWeight
		}
		lists = append(lists, fusion.List{Name: name, Weight: w, Hits: toFusion(h)})
	}
	stage("vector", t0)
	meta.Mode = "hybrid"
	if !meta.VectorsUsed {
		meta.Mode = "bm25_only"
	}

	// 3. Fusion.
	k := e.Config().Search.RRFK
	if k <= 0 {
		k = fusion.DefaultK
	}
	fused := fusion.RRF(lists, k)
	maxRRF := fusion.MaxRRF(lists, k)

	// 4. Rerank the top candidates (default and thorough modes).
	if wantRerank && len(fused) > 0 {
		t0 = time.Now()
		n := req.Candidates
		if n <= 0 {
			n = e.Config().Search.Candidates
		}
		if n <= 0 {
			n = 30
		}
		scores, note := e.rerank(ctx, doc, fused, n)
		stage("rerank", t0)
		if scores != nil {
			meta.Reranked = true
			fused = fusion.Blend(fused, scores, nil)
			protected := map[int64]bool{}
			if strong && len(bm) > 0 {
				protected[bm[0].DocID] = true
			}
			fused = fusion.Protect(fused, protected, 3)
			fused = fusion.Normalize(fused, 1)
		} else {
			meta.Notes = append(meta.Notes, note)
			fused = fusion.Normalize(fused, maxRRF)
		}
		if rr, _ := e.reranker(ctx); rr != nil {
			meta.RerankModel = rr.ModelID()
		}
	} else {
		fused = fusion.Normalize(fused, maxRRF)
	}

	// 5. Results.
	hits := make([]hit, len(fused))
	for i, fd := range fused {
		x := &Explain{FusionRank: fd.FusedRank, FusionScore: round4(fd.RRF)}
		if r, ok := fd.Ranks["bm25"]; ok {
			x.BM25Rank, x.BM25Score = r, round4(fd.Scores["bm25"])
		}
		if r, ok := fd.Ranks["vector"]; ok {
			x.VectorRank, x.VectorScore = r, round4(fd.Scores["vector"])
		}
		if fd.Reranked {
			x.RerankScore = round4(fd.Rerank)
		}
		hits[i] = hit{DocID: fd.DocID, ChunkID: fd.ChunkID, Score: fd.Score, Explain: x}
	}
	res, err := e.results(context.WithoutCancel(ctx), hits, q, req.SearchRequest)
	if err != nil {
		return nil, err
	}
	meta.TotalResults = res.Meta.TotalResults
	res.Meta = meta
	if req.Explain {
		timings["total"] = ms(time.Since(start))
		res.Meta.Timings = timings
	}
	return res, nil
}

// warm opens and loads the embedder, the vector graph and (when wanted)
// the reranker. Failures are left for the stages to report.
func (e *Engine) warm(ctx context.Context, rerank bool) {
	type loader interface{ Load() error }
	if emb, err := e.embedder(ctx); err == nil {
		if l, ok := emb.(loader); ok {
			l.Load()
		}
		e.vectors(ctx, emb.ModelID())
	}
	if rerank {
		if rr, err := e.reranker(ctx); err == nil && rr != nil {
			if l, ok := rr.(loader); ok {
				l.Load()
			}
		}
	}
}

// vectorWeightFor is the default fusion weight of the vector list for an
// embedder. bge-small-en-v1.5 is strong enough (vsearch 0.743 vs BM25 0.706
// nDCG@10 on SciFact train) that weighting it 2× gains 0.009; for weaker
// models (all-MiniLM-L6-v2 0.657, e5-small-v2 0.692) 2× loses, so they
// fuse evenly.
func vectorWeightFor(model string) float64 {
	if strings.HasPrefix(model, "bge-small-en-v1.5") {
		return 2.0
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
func (e *Engine) rerank(ctx context.Context, doc QueryDoc, fused []fusion.Fused, n int) (map[int64]float64, string) {
	rr, err := e.reranker(ctx)
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
		return nil, "not reranked: " + err.Error()
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = fused[i].ChunkID
	}
	chunks, err := st.Chunks(ctx, ids)
	if err != nil {
		return nil, "not reranked: " + err.Error()
	}
	texts := make([]string, n)
	for i, id := range ids {
		if c := chunks[id]; c != nil {
			texts[i] = c.Body // a chunk gone in a concurrent sync scores as empty text
		}
	}
	query := doc.Text
	if doc.Intent != "" {
		query = doc.Intent + ": " + query
	}
	scores, err := rr.Score(ctx, query, texts)
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
func (e *Engine) expand(ctx context.Context, query string, limit time.Duration) (*inference.Expansion, string) {
	ex, err := e.expander()
	if err != nil {
		return nil, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	exp, err := ex.Expand(ctx, query)
	if err != nil {
		var r interface{ Reason() string }
		if errors.As(err, &r) {
			return nil, r.Reason()
		}
		return nil, firstLine(err)
	}
	return exp, ""
}

// expander builds the configured expander once (cheap: no connection is
// made until the first call).
func (e *Engine) expander() (inference.Expander, error) {
	b := e.Config().Models.Expand
	e.vec.mu.Lock()
	defer e.vec.mu.Unlock()
	if e.vec.exp != nil {
		return e.vec.exp, nil
	}
	var x inference.Expander
	var err error
	switch b.Kind {
	case "":
		return nil, errors.New("no expansion model configured (models.expand in config)")
	case "ollama":
		x, err = ollama.NewExpander(ollama.ExpanderConfig{URL: b.URL, Model: b.Model})
	case "openai":
		x, err = openai.NewExpander(openai.ExpanderConfig{Config: openai.Config{BaseURL: b.URL, APIKey: b.APIKey, Model: b.Model}})
	default:
		return nil, fmt.Errorf("unknown expansion backend %q (ollama or openai)", b.Kind)
	}
	if err != nil {
		return nil, err
	}
	e.vec.exp = x
	return x, nil
}
