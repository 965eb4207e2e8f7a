package retrieval

import (
	"context"
	"time"

	"github.com/gnosearch/gno/retrieval/ftsquery"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// VSearch runs a vector search: embed the query, k-NN over chunk vectors,
// best chunk per document.
func (e *Engine) VSearch(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	if _, err := e.prepare(&req); err != nil {
		return nil, err
	}
	return nil, gnoerr.New(gnoerr.Unavailable, "vectors not available: run `gno index` (or `gno embed`) to build them")
}

// Query runs the hybrid pipeline; without vectors it degrades to BM25 and
// says so in meta.
func (e *Engine) Query(ctx context.Context, req QueryRequest) (*SearchResults, error) {
	start := time.Now()
	f, err := e.prepare(&req.SearchRequest)
	if err != nil {
		return nil, err
	}
	q := ftsquery.Parse(req.Query)
	if q.Empty() {
		return nil, gnoerr.New(gnoerr.InvalidInput, "query %q has no searchable words", req.Query)
	}
	hits, err := e.bm25(ctx, q, f, req.Limit)
	if err != nil {
		return nil, err
	}
	res, err := e.results(ctx, hits, q, req.SearchRequest)
	if err != nil {
		return nil, err
	}
	res.Meta.Mode = "bm25_only"
	res.Meta.Notes = append(res.Meta.Notes, "no vectors: run `gno index` to enable hybrid search", "no reranker installed")
	if req.Explain {
		res.Meta.Timings = map[string]float64{"total": ms(time.Since(start))}
	}
	return res, nil
}
