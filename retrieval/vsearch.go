package retrieval

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/vector"
)

// searchGraph returns the best chunk of each of the top k documents among
// chunks whose document passes allow (nil: all). The graph's best
// candidates are re-scored with their exact vectors from the store.
func (e *Engine) searchGraph(ctx context.Context, ix *vector.Graph, q []float32, k int, allow func(doc int64) bool, admitted int) ([]hit, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	model := ix.ModelID()
	vq := vector.Query{Vector: q, K: k * 3, Admitted: admitted,
		Exact: func(keys []int64) ([][]float32, error) { return st.VectorsOf(ctx, model, keys) }}
	if allow != nil {
		vq.Filter = func(key int64) bool { return allow(store.DocOfChunk(key)) }
	}
	hs, err := ix.Search(vq)
	if errors.Is(err, vector.ErrDamaged) {
		// Rebuilt from the stored vectors, once.
		e.dropDamaged(model)
		if ix, err = e.vectorIndex(ctx, model); err != nil {
			return nil, err
		}
		hs, err = ix.Search(vq)
	}
	if err != nil {
		return nil, err
	}
	var out []hit
	seen := map[int64]bool{}
	for _, h := range hs {
		doc := store.DocOfChunk(h.Key)
		if seen[doc] {
			continue
		}
		seen[doc] = true
		out = append(out, hit{DocID: doc, ChunkID: h.Key, Score: float64(h.Score)})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// errNoVectors is returned when the index has no vectors for the model.
var errNoVectors = gnoerr.New(gnoerr.Unavailable, "vectors not available: run `gno index` (or `gno embed`) to build them")

// vectorHits embeds text and returns the top documents by similarity.
func (e *Engine) vectorHits(ctx context.Context, text string, f store.Filter, k int) ([]hit, error) {
	return e.vectorHitsFor(ctx, ctx, text, nil, f, k)
}

// vectorHitsFor is vectorHits taking text's vector from pre, an embedding
// of text started earlier under the budget ctx, when it can (pre may be
// nil). Its pass began within the budget, so its vector is searched even
// when the budget has ended since: the stage's own reads then run under
// base, the caller's context (queryvec.go says why).
func (e *Engine) vectorHitsFor(ctx, base context.Context, text string, pre *queryVector, f store.Filter, k int) ([]hit, error) {
	return e.vectorHitsIn(ctx, base, text, pre, f, k, nil)
}

// vectorHitsIn is vectorHitsFor with the documents f admits already read
// (nil: read them here), for a caller that needs them too.
func (e *Engine) vectorHitsIn(ctx, base context.Context, text string, pre *queryVector, f store.Filter, k int, in *admittedDocs) ([]hit, error) {
	emb, err := e.models.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	if pre.serves(emb) {
		ctx = base
	}
	vs := e.vectorSearcher(ctx)
	var ix *vector.Graph
	// The graph (or the server's count) first: without vectors the
	// query is not embedded.
	if vs == nil {
		if ix, err = e.vectorIndex(ctx, emb.ModelID()); err != nil {
			return nil, err
		}
		if ix.Len() == 0 {
			return nil, errNoVectors
		}
	} else if n, _, err := e.serverVectors(ctx, emb.ModelID()); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, errNoVectors
	}
	vec, ok, err := pre.vector(ctx, emb)
	if !ok {
		vec, err = embedQuery(ctx, emb, text)
	}
	if err != nil {
		return nil, err
	}
	var hits []hit
	if vs != nil {
		hits, err = e.serverNearest(ctx, vs, emb.ModelID(), vec, f, k, 0)
	} else {
		if in == nil {
			in = &admittedDocs{}
			if in.allow, in.n, err = e.allowed(ctx, f); err != nil {
				return nil, err
			}
		}
		hits, err = e.searchGraph(ctx, ix, vec, k, in.allow, in.n)
	}
	if err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Explain = &Explain{VectorRank: i + 1, VectorScore: round4(hits[i].Score)}
		hits[i].Score = math.Max(0, math.Min(1, hits[i].Score))
	}
	return hits, nil
}

// Where vectors are searched: the one place that decides. A backend that
// searches its own vectors (store.VectorSearcher: Postgres's HNSW index)
// answers every vector search, so a gno server over it keeps no graph and
// holds no state; any other gets gno's graph (vectorindex.go). Meta's
// vectorIndex says which answered.
const (
	vectorIndexGraph  = "graph"
	vectorIndexServer = "store"
)

// vectorSearcher returns the backend as a VectorSearcher, nil when it is
// not one (or cannot be opened: the graph path reports that).
func (e *Engine) vectorSearcher(ctx context.Context) store.VectorSearcher {
	st, err := e.store(ctx)
	if err != nil {
		return nil
	}
	vs, _ := st.(store.VectorSearcher)
	return vs
}

// vectorIndexKind names what answers vector searches, for meta.
func (e *Engine) vectorIndexKind(ctx context.Context) string {
	if e.vectorSearcher(ctx) != nil {
		return vectorIndexServer
	}
	return vectorIndexGraph
}

// serverNearest is searchGraph's answer from the backend's own index: the
// best chunk of each of the top k documents under f, without the
// document skip (0: none); errNoVectors when model has none.
func (e *Engine) serverNearest(ctx context.Context, vs store.VectorSearcher, model string, q []float32, f store.Filter, k int, skip int64) ([]hit, error) {
	n := k
	if skip != 0 {
		n++
	}
	hs, err := vs.SearchVectors(ctx, model, q, f, n)
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		st, err := e.store(ctx)
		if err != nil {
			return nil, err
		}
		if c, _, err := st.VectorCount(ctx, model); err != nil {
			return nil, err
		} else if c == 0 {
			return nil, errNoVectors
		}
	}
	out := make([]hit, 0, len(hs))
	for _, h := range hs {
		if h.DocID == skip {
			continue
		}
		out = append(out, hit{DocID: h.DocID, ChunkID: h.ChunkID, Score: h.Score})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// admittedDocs is what allowed returns: the test of a document, and an
// estimate of how many pass it.
type admittedDocs struct {
	allow func(int64) bool
	n     int
}

// allowed returns a predicate over document ids for a filter, nil if the
// filter lets everything through. The filter applies before the top-k.
func (e *Engine) allowed(ctx context.Context, f store.Filter) (func(int64) bool, int, error) {
	if f.Empty() {
		return nil, 0, nil
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, 0, err
	}
	ids, err := st.FilterDocs(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	// Documents average about one chunk; the graph only needs an estimate.
	return func(id int64) bool { return ids[id] }, len(ids) + 1, nil
}

// VSearch runs a vector search: embed the query, scan chunk vectors, best
// chunk per document.
func (e *Engine) VSearch(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	return readAs(ctx, e, func(ctx context.Context) (*SearchResults, error) { return e.vsearch(ctx, req) })
}

func (e *Engine) vsearch(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	start := time.Now()
	f, err := e.prepare(ctx, &req)
	if err != nil {
		return nil, err
	}
	hits, err := e.vectorHits(ctx, req.Query, f, req.Limit)
	if err != nil {
		if gnoerr.Is(err, gnoerr.Unavailable) && !errors.Is(err, errNoVectors) {
			return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "vectors not available: install an embedding model (`make models`) and run `gno index`")
		}
		return nil, err
	}
	res, err := e.results(ctx, hits, query.Parse(req.Query), req)
	if err != nil {
		return nil, err
	}
	res.Meta.Mode = "vector"
	res.Meta.VectorsUsed = true
	res.Meta.VectorIndex = e.vectorIndexKind(ctx)
	e.noteCoverage(&res.Meta, false)
	if req.Explain {
		res.Meta.Timings = map[string]float64{"total": ms(time.Since(start))}
	}
	return res, nil
}
