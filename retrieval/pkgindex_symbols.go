package retrieval

import (
	"context"
	"math"

	"github.com/gnosearch/gno/retrieval/query"
)

// SymbolCandidates returns the API items of the versions (by id) whose
// last name part is one of leaves, lowercased: the candidates of an exact
// symbol lookup, at most limit, shortest names first.
func (p *Packages) SymbolCandidates(ctx context.Context, versionIDs []int64, leaves []string, limit int) ([]PackageUnit, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgSymbolsByLeaf(ctx, versionIDs, leaves, limit)
}

// UnitResults makes search results of units (document ids, in order,
// with their scores), each shown from its first chunk: an API item's
// signature and doc. A unit removed meanwhile is left out.
func (p *Packages) UnitResults(ctx context.Context, docIDs []int64, scores []float64) ([]Result, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	first, err := st.PkgFirstChunks(ctx, docIDs)
	if err != nil {
		return nil, err
	}
	hits := make([]hit, 0, len(docIDs))
	for i, id := range docIDs {
		if c, ok := first[id]; ok {
			hits = append(hits, hit{DocID: id, ChunkID: c, Score: scores[i]})
		}
	}
	res, err := p.e.results(ctx, hits, query.Keywords{}, SearchRequest{Limit: len(hits), MinScore: math.Inf(-1)})
	if err != nil {
		return nil, err
	}
	return res.Results, nil
}
