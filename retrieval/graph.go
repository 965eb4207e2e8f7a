package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/graph"
	"github.com/gnosearch/gno/retrieval/store"
)

// Graph answers questions about the link graph of the index: a
// document's links and backlinks, broken links, neighbours, shortest
// paths, hubs, orphans, related notes and which note a name means.
//
// It owns the in-memory graph and its PageRank, cached for one committed
// state of the index (store.LinkVersion: every write batch changes it, so
// a graph read between two batches of a long sync is not kept past the
// next one); the next graph question after a change brings them up to
// date: the graph follows the store's link index (LinkGraphSince: only
// the documents a sync touched are read again, unless the link index was
// rebuilt) and PageRank is computed only when asked, starting from the
// last ranks. Whole (graphwhole.go) is the graph a view draws, cached
// the same way.
type Graph struct {
	e *Engine

	mu      sync.Mutex
	version string
	g       *graph.Graph
	pr      []float64 // g.Ranks, in the order of g.Nodes
	// base and touched are the link index's the graph was read from
	// (store.LinkGraphDelta), for the next LinkGraphSince.
	base    uint64
	touched []int64
	// prevIDs and prevPR are the nodes and ranks of the last graph whose
	// ranks were computed: the start of the next PageRank.
	prevIDs []int64
	prevPR  []float64

	whole wholeCache
}

// linkGraph returns the graph of the current generation.
func (gr *Graph) linkGraph(ctx context.Context) (*graph.Graph, store.Backend, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return nil, nil, err
	}
	version, err := st.LinkVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	gs := gr
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.g != nil && gs.version == version {
		return gs.g, st, nil
	}
	old := gs.g
	if old != nil && gs.pr != nil {
		gs.prevIDs, gs.prevPR = old.Nodes(), gs.pr
	}
	// Drop the stale graph and ranks before building the new ones, so
	// a rebuild after a sync does not hold both (a patch needs the old).
	gs.g, gs.pr = nil, nil
	base, touched := gs.base, gs.touched
	if old == nil {
		base = 0
	}
	d, err := st.LinkGraphSince(ctx, base, touched)
	if err != nil {
		return nil, nil, err
	}
	edges := make([]graph.Edge, len(d.Edges))
	for i, p := range d.Edges {
		edges[i] = graph.Edge{Src: p[0], Dst: p[1]}
	}
	if d.Full {
		gs.g = graph.New(d.Nodes, edges)
	} else {
		gs.g = old.Patch(d.Changed, d.Nodes, edges)
	}
	gs.version, gs.base, gs.touched = version, d.Base, d.Touched
	return gs.g, st, nil
}

// pageRank returns the cached PageRank of g (read with g.Rank).
func (gr *Graph) pageRank(g *graph.Graph) []float64 {
	gs := gr
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.g == g && gs.pr != nil {
		return gs.pr
	}
	pr := g.RanksFrom(0.85, gs.prevIDs, gs.prevPR)
	if gs.g == g {
		gs.pr = pr
		gs.prevIDs, gs.prevPR = nil, nil
	}
	return pr
}

// PathResult is a shortest chain of links between two documents.
type PathResult struct {
	Path []NoteRef `json:"path"`
	// Length is the number of links (len(Path)-1).
	Length int `json:"length"`
}

// DefaultMaxPathDepth bounds a path search.
const DefaultMaxPathDepth = 12

// PathRequest asks for a shortest chain of links between two documents.
type PathRequest struct {
	Source, Target string
	// Undirected follows links both ways.
	Undirected bool
	// MaxDepth bounds the chain, in links (DefaultMaxPathDepth if 0).
	MaxDepth int
}

// Path returns a shortest chain of links from Source to Target, following
// links forwards (or both ways when Undirected), at most MaxDepth links
// long. No path gives nil and no error.
func (gr *Graph) Path(ctx context.Context, req PathRequest) (*PathResult, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*PathResult, error) { return gr.path(ctx, req) })
}

func (gr *Graph) path(ctx context.Context, req PathRequest) (*PathResult, error) {
	a, err := gr.e.resolve(ctx, req.Source)
	if err != nil {
		return nil, err
	}
	b, err := gr.e.resolve(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	maxDepth := req.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxPathDepth
	}
	g, st, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	ids := g.ShortestPath(a.ID, b.ID, req.Undirected, maxDepth)
	if ids == nil {
		return nil, nil
	}
	metas, err := st.Docs(ctx, ids)
	if err != nil {
		return nil, err
	}
	res := &PathResult{Length: len(ids) - 1}
	for _, id := range ids {
		m := metas[id]
		if m == nil {
			return nil, fmt.Errorf("find path: document %d vanished", id)
		}
		res.Path = append(res.Path, noteRef(m))
	}
	return res, nil
}

// Hub metrics.
const (
	MetricInDegree  = "in_degree"
	MetricOutDegree = "out_degree"
	MetricPageRank  = "pagerank"
)

// Hub is a central document and its score under a metric.
type Hub struct {
	NoteRef
	Score     float64 `json:"score"`
	InDegree  int     `json:"inDegree"`
	OutDegree int     `json:"outDegree"`
}

// HubsRequest asks for the most central documents.
type HubsRequest struct {
	// Metric is MetricInDegree (the default), MetricOutDegree or
	// MetricPageRank.
	Metric string
	// Limit is how many (10 if 0).
	Limit int
}

// Hubs returns the most central documents by in-degree (documents linking
// to it, the default), out-degree or PageRank.
func (gr *Graph) Hubs(ctx context.Context, req HubsRequest) ([]Hub, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) ([]Hub, error) { return gr.hubs(ctx, req) })
}

func (gr *Graph) hubs(ctx context.Context, req HubsRequest) ([]Hub, error) {
	metric, limit := req.Metric, req.Limit
	if metric == "" {
		metric = MetricInDegree
	}
	if limit <= 0 {
		limit = 10
	}
	g, st, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	var score func(id int64) float64
	switch metric {
	case MetricInDegree:
		score = func(id int64) float64 { return float64(g.InDegree(id)) }
	case MetricOutDegree:
		score = func(id int64) float64 { return float64(g.OutDegree(id)) }
	case MetricPageRank:
		pr := gr.pageRank(g)
		// On RankKey, so that notes of equal rank come by id whatever
		// the start of the ranks.
		score = func(id int64) float64 { return graph.RankKey(g.Rank(pr, id)) }
	default:
		return nil, gnoerr.New(gnoerr.InvalidInput, "metric must be in_degree, out_degree or pagerank, not %q", metric)
	}
	ids := topNodes(g.Nodes(), score, limit)
	metas, err := st.Docs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Hub, 0, len(ids))
	for _, id := range ids {
		if m := metas[id]; m != nil {
			s := score(id)
			if metric == MetricPageRank {
				s = math.Round(s*1e6) / 1e6
			}
			out = append(out, Hub{NoteRef: noteRef(m), Score: s, InDegree: g.InDegree(id), OutDegree: g.OutDegree(id)})
		}
	}
	return out, nil
}

// topNodes returns the limit ids with the highest score, ties by id.
func topNodes(ids []int64, score func(int64) float64, limit int) []int64 {
	type scored struct {
		id int64
		s  float64
	}
	all := make([]scored, len(ids))
	for i, id := range ids {
		all[i] = scored{id, score(id)}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s > all[j].s
		}
		return all[i].id < all[j].id
	})
	out := make([]int64, 0, min(limit, len(all)))
	for _, x := range all[:min(limit, len(all))] {
		out = append(out, x.id)
	}
	return out
}

// OrphansRequest asks for the documents without links.
type OrphansRequest struct {
	// Limit bounds the list (0: all).
	Limit int
}

// Orphans returns documents with no resolved link in or out, by path.
func (gr *Graph) Orphans(ctx context.Context, req OrphansRequest) ([]NoteRef, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) ([]NoteRef, error) { return gr.orphans(ctx, req) })
}

func (gr *Graph) orphans(ctx context.Context, req OrphansRequest) ([]NoteRef, error) {
	limit := req.Limit
	g, st, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	ids := g.Orphans()
	metas, err := st.Docs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]NoteRef, 0, len(ids))
	for _, id := range ids {
		if m := metas[id]; m != nil {
			out = append(out, noteRef(m))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// GraphStats counts the link graph of the index.
type GraphStats struct {
	Documents   int `json:"documents"`
	Links       int `json:"links"`
	Edges       int `json:"edges"`
	Unresolved  int `json:"unresolved"`
	Attachments int `json:"attachments"`
	Orphans     int `json:"orphans"`
}

// Stats counts links, distinct edges, unresolved links and orphans.
func (gr *Graph) Stats(ctx context.Context) (*GraphStats, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*GraphStats, error) { return gr.stats(ctx) })
}

func (gr *Graph) stats(ctx context.Context) (*GraphStats, error) {
	g, st, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := st.LinkStats(ctx)
	if err != nil {
		return nil, err
	}
	s := &GraphStats{Documents: g.Len(), Edges: g.Edges(), Orphans: len(g.Orphans())}
	for _, x := range ls {
		s.Links += x.Links
		s.Unresolved += x.Unresolved
		s.Attachments += x.Attachments
	}
	return s, nil
}
