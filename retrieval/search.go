package retrieval

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// MaxLimit caps how many results one search returns.
const MaxLimit = 1000

// bm25Saturation sets how the best hit's score reflects its absolute BM25
// strength. A result scores (raw/top) * (0.5 + 0.5*top/(top+bm25Saturation)):
// the best hit of a strong query scores near 1, the best of a weak one (or
// of a tiny corpus, where IDF is small) not below 0.5, and the rest in
// proportion to it, so --min-score cuts a weak tail the same way everywhere.
const bm25Saturation = 5.0

// hit is a scored document candidate with its best chunk.
type hit struct {
	DocID   int64
	ChunkID int64
	Score   float64
	Explain *Explain
}

// prepare validates a request, fills its defaults and turns its filters
// into a store filter.
func (e *Engine) prepare(ctx context.Context, req *SearchRequest) (store.Filter, error) {
	if err := req.Validate(); err != nil {
		return store.Filter{}, err
	}
	req.Query = strings.TrimSpace(req.Query)
	if req.Limit <= 0 {
		req.Limit = 5
	}
	if req.Limit > MaxLimit {
		req.Limit = MaxLimit
	}
	f := store.Filter{Lang: req.Lang}
	if e.pkgs {
		return e.packageFilter(req, f)
	}
	if req.Collection != "" {
		name := strings.ToLower(req.Collection)
		if _, ok := e.Config().Collection(name); !ok {
			return f, gnoerr.New(gnoerr.NotFound, "collection %q not found", req.Collection)
		}
		f.Collections = []string{name}
	} else if e.hasOrphans(ctx) {
		// Documents of a removed collection stay until `gno cleanup`;
		// they must not be found.
		for _, c := range e.Config().Collections {
			f.Collections = append(f.Collections, c.Name)
		}
		if len(f.Collections) == 0 {
			f.Collections = []string{""}
		}
	}
	for _, t := range req.TagsAny {
		if t = ingest.NormalizeTag(t); t != "" {
			f.TagsAny = append(f.TagsAny, t)
		}
	}
	for _, t := range req.TagsAll {
		if t = ingest.NormalizeTag(t); t != "" {
			f.TagsAll = append(f.TagsAll, t)
		}
	}
	return f, nil
}

// Search runs a BM25 keyword search.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	return readAs(ctx, e, func(ctx context.Context) (*SearchResults, error) { return e.search(ctx, req) })
}

func (e *Engine) search(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	start := time.Now()
	partial := req.Query != "" && !unicode.IsSpace(rune(req.Query[len(req.Query)-1]))
	f, err := e.prepare(ctx, &req)
	if err != nil {
		return nil, err
	}
	q := query.Parse(req.Query)
	if req.AsYouType {
		q = q.AsYouType(partial)
	}
	if q.Empty() {
		return nil, gnoerr.New(gnoerr.InvalidInput, "query %q has no searchable words", req.Query)
	}
	hits, err := e.bm25(ctx, q, f, req.Limit)
	if err != nil {
		return nil, err
	}
	res, err := e.results(ctx, hits, q, req)
	if err != nil {
		return nil, err
	}
	res.Meta.Mode = "bm25"
	if req.Explain {
		res.Meta.Timings = map[string]float64{"total": ms(time.Since(start))}
	}
	return res, nil
}

// bm25 returns BM25 hits with 0-1 scores.
func (e *Engine) bm25(ctx context.Context, q query.Keywords, f store.Filter, limit int) ([]hit, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := st.SearchFTS(ctx, q, f, limit)
	if err != nil {
		return nil, err
	}
	out := make([]hit, len(raw))
	top := 0.0
	if len(raw) > 0 {
		top = raw[0].Score
	}
	scale := 0.0
	if top > 0 {
		scale = (0.5 + 0.5*top/(top+bm25Saturation)) / top
	}
	for i, h := range raw {
		s := h.Score * scale
		out[i] = hit{DocID: h.DocID, ChunkID: h.ChunkID, Score: s,
			Explain: &Explain{BM25Rank: i + 1, BM25Score: round4(h.Score)}}
	}
	return out, nil
}

// hasOrphans reports documents of collections no longer configured.
func (e *Engine) hasOrphans(ctx context.Context) bool {
	st, err := e.store(ctx)
	if err != nil {
		return false
	}
	names, err := st.CollectionNames(ctx)
	if err != nil {
		return false
	}
	cfg := e.Config()
	for _, n := range names {
		if _, ok := cfg.Collection(n); !ok {
			return true
		}
	}
	return false
}

func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// results turns hits into contract results: metadata, snippets, contexts,
// the min-score cut and the limit.
func (e *Engine) results(ctx context.Context, hits []hit, q query.Keywords, req SearchRequest) (*SearchResults, error) {
	var kept []hit
	for _, h := range hits {
		if h.Score >= req.MinScore && len(kept) < req.Limit {
			kept = append(kept, h)
		}
	}
	out := &SearchResults{Results: []Result{}, Meta: Meta{Query: req.Query}}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	out.Meta.Replica = replicaLag(ctx, st)
	if len(kept) == 0 {
		return out, nil
	}
	ids := make([]int64, len(kept))
	for i, h := range kept {
		ids[i] = h.DocID
	}
	docs, err := st.Docs(ctx, ids)
	if err != nil {
		return nil, err
	}
	cids := make([]int64, len(kept))
	for i, h := range kept {
		cids[i] = h.ChunkID
	}
	chunks, err := st.Chunks(ctx, cids)
	if err != nil {
		return nil, err
	}
	cfg := e.Config()
	for _, h := range kept {
		m, c := docs[h.DocID], chunks[h.ChunkID]
		if m == nil || c == nil {
			continue // removed by a concurrent sync
		}
		r := e.result(cfg, m, h, makeSnippet(c.Body, q))
		r.Lines = LineRange{Start: c.StartLine, End: c.EndLine}
		r.Headings = c.Headings
		if m.Mime == "application/pdf" {
			r.Page = pageOf(c.Headings)
		}
		if req.Full {
			if r.Content, err = st.Content(ctx, m.ID); err != nil {
				return nil, err
			}
		}
		if req.Explain && h.Explain != nil {
			h.Explain.FinalScore = r.Score
			r.Explain = h.Explain
		}
		out.Results = append(out.Results, r)
	}
	if e.pkgs {
		if err := e.addPackageInfo(ctx, st, out.Results, docs); err != nil {
			return nil, err
		}
	}
	out.Meta.TotalResults = len(out.Results)
	// The collections the user finds things in are embedded first.
	var cols []string
	seen := map[string]bool{}
	for _, r := range out.Results {
		if !seen[r.Collection] {
			seen[r.Collection] = true
			cols = append(cols, r.Collection)
		}
	}
	e.countQuery(cols)
	return out, nil
}

func (e *Engine) result(cfg *config.Config, m *store.DocMeta, h hit, snippet string) Result {
	return Result{
		DocID:      docID(m.Hash),
		Score:      round4(h.Score),
		URI:        e.uri(m),
		Title:      m.Title,
		Collection: m.Collection,
		Snippet:    snippet,
		Source:     e.source(cfg, m, false),
		Tags:       m.Tags,
		Lang:       m.Lang,
		Context:    cfg.ContextsFor(m.Collection, m.RelPath),
	}
}

// Mode names one of the three searches, as the CLI commands, the MCP
// tools and the web app call them.
type Mode string

// The search modes.
const (
	// ModeSearch is BM25 keyword search (Search).
	ModeSearch Mode = "search"
	// ModeVSearch is vector search (VSearch).
	ModeVSearch Mode = "vsearch"
	// ModeQuery is the hybrid pipeline (Query).
	ModeQuery Mode = "query"
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeSearch, ModeVSearch, ModeQuery:
		return m, nil
	}
	return "", gnoerr.New(gnoerr.InvalidInput, "mode %q: want search, vsearch or query", s)
}

// Run runs the search of mode: every front end builds one QueryRequest
// and lets the engine pick the search, so a mode means the same
// everywhere. Search and VSearch read only req.SearchRequest.
func (e *Engine) Run(ctx context.Context, mode Mode, req QueryRequest) (*SearchResults, error) {
	switch mode {
	case ModeSearch:
		return e.Search(ctx, req.SearchRequest)
	case ModeVSearch:
		return e.VSearch(ctx, req.SearchRequest)
	case ModeQuery:
		return e.Query(ctx, req)
	}
	_, err := ParseMode(string(mode))
	return nil, err
}
