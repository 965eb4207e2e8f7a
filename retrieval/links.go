package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/graph"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// NoteRef names a document in graph answers.
type NoteRef struct {
	URI   string `json:"uri"`
	DocID string `json:"docid"`
	Title string `json:"title"`
}

func noteRef(m *store.DocMeta) NoteRef {
	return NoteRef{URI: ref.URI(m.Collection, m.RelPath), DocID: docID(m.Hash), Title: m.Title}
}

// LinkInfo is one link of a document: for an outgoing link, the document
// it names; for an incoming one, the document it comes from.
type LinkInfo struct {
	// URI, DocID and Title name the document at the other end; empty
	// when the link is unresolved.
	URI   string `json:"uri,omitempty"`
	DocID string `json:"docid,omitempty"`
	Title string `json:"title,omitempty"`
	// Target is the link's target as written (decoded), Fragment its
	// #heading or ^block, Alias its display text.
	Target   string `json:"target"`
	Fragment string `json:"fragment,omitempty"`
	Alias    string `json:"alias,omitempty"`
	// Kind is wiki, embed, markdown or uri.
	Kind string `json:"kind"`
	// Line is the 1-based line of the link in the linking document.
	Line       int  `json:"line"`
	Resolved   bool `json:"resolved"`
	Attachment bool `json:"attachment,omitempty"`
	// Content is the linked document's text, when asked for (truncated).
	Content string `json:"content,omitempty"`
}

func linkInfo(r store.LinkRow) LinkInfo {
	li := LinkInfo{Target: r.Target, Fragment: r.Fragment, Alias: r.Alias, Kind: r.Kind.String(), Line: r.Line, Attachment: r.Attach}
	if r.Other != nil {
		li.URI, li.DocID, li.Title, li.Resolved = ref.URI(r.Other.Collection, r.Other.RelPath), docID(r.Other.Hash), r.Other.Title, true
	}
	return li
}

// LinksRequest asks for the links of one document.
type LinksRequest struct {
	Ref string
	// Direction is "out", "in" or "both" (default).
	Direction string
	// Limit bounds each list (0: all).
	Limit int
	// Unresolved keeps only outgoing links that name no document.
	Unresolved bool
}

// LinksResult is a document with its outgoing links and its backlinks.
type LinksResult struct {
	NoteRef
	Outgoing []LinkInfo `json:"outgoing"`
	Incoming []LinkInfo `json:"incoming"`
	// OutgoingCount and IncomingCount count every link, past Limit.
	OutgoingCount int `json:"outgoingCount"`
	IncomingCount int `json:"incomingCount"`
}

// Links returns a document's outgoing links (in order) and the links
// pointing at it (by source path), each with the REF, title and line of
// the document at the other end.
func (e *Engine) Links(ctx context.Context, req LinksRequest) (*LinksResult, error) {
	dir := strings.ToLower(req.Direction)
	if dir == "" {
		dir = "both"
	}
	if dir != "in" && dir != "out" && dir != "both" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "direction must be in, out or both, not %q", req.Direction)
	}
	m, err := e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	res := &LinksResult{NoteRef: noteRef(m), Outgoing: []LinkInfo{}, Incoming: []LinkInfo{}}
	if dir != "in" {
		rows, err := st.LinksFrom(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if req.Unresolved && (r.Other != nil || r.Attach) {
				continue
			}
			res.OutgoingCount++
			if req.Limit <= 0 || len(res.Outgoing) < req.Limit {
				res.Outgoing = append(res.Outgoing, linkInfo(r))
			}
		}
	}
	if dir != "out" && !req.Unresolved {
		rows, err := st.LinksTo(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			res.IncomingCount++
			if req.Limit <= 0 || len(res.Incoming) < req.Limit {
				res.Incoming = append(res.Incoming, linkInfo(r))
			}
		}
	}
	return res, nil
}

// UnresolvedLink is a link that names no indexed document.
type UnresolvedLink struct {
	// Source is the document the link is in.
	Source   NoteRef `json:"source"`
	Target   string  `json:"target"`
	Fragment string  `json:"fragment,omitempty"`
	Kind     string  `json:"kind"`
	Line     int     `json:"line"`
}

// UnresolvedLinks lists the broken links of a collection (all when ""),
// by source path; limit 0 means all.
func (e *Engine) UnresolvedLinks(ctx context.Context, collection string, limit int) ([]UnresolvedLink, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := st.Unresolved(ctx, strings.ToLower(collection), limit)
	if err != nil {
		return nil, err
	}
	out := make([]UnresolvedLink, 0, len(rows))
	for _, r := range rows {
		out = append(out, UnresolvedLink{Source: noteRef(r.Other), Target: r.Target, Fragment: r.Fragment, Kind: r.Kind.String(), Line: r.Line})
	}
	return out, nil
}

// graphState caches the in-memory link graph and its PageRank for one
// index generation: a sync that changes anything bumps the generation, and
// the next graph question rebuilds.
type graphState struct {
	mu  sync.Mutex
	gen int64
	g   *graph.Graph
	pr  map[int64]float64
}

// linkGraph returns the graph of the current generation.
func (e *Engine) linkGraph(ctx context.Context) (*graph.Graph, *store.Store, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, nil, err
	}
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, nil, err
	}
	gs := &e.graph
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.g != nil && gs.gen == gen {
		return gs.g, st, nil
	}
	nodes, pairs, err := st.LinkGraph(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	edges := make([]graph.Edge, len(pairs))
	for i, p := range pairs {
		edges[i] = graph.Edge{Src: p[0], Dst: p[1]}
	}
	gs.g, gs.gen, gs.pr = graph.New(nodes, edges), gen, nil
	return gs.g, st, nil
}

// pageRank returns the cached PageRank of g.
func (e *Engine) pageRank(g *graph.Graph) map[int64]float64 {
	gs := &e.graph
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.g == g && gs.pr != nil {
		return gs.pr
	}
	pr := g.PageRank(0.85)
	if gs.g == g {
		gs.pr = pr
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

// FindPath returns a shortest chain of links from src to dst, following
// links forwards (or both ways when undirected), at most maxDepth links
// long (DefaultMaxPathDepth if 0). No path gives nil and no error.
func (e *Engine) FindPath(ctx context.Context, src, dst string, undirected bool, maxDepth int) (*PathResult, error) {
	a, err := e.resolve(ctx, src)
	if err != nil {
		return nil, err
	}
	b, err := e.resolve(ctx, dst)
	if err != nil {
		return nil, err
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxPathDepth
	}
	g, st, err := e.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	ids := g.ShortestPath(a.ID, b.ID, undirected, maxDepth)
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

// Hubs returns the most central documents by in-degree (documents linking
// to it, the default), out-degree or PageRank.
func (e *Engine) Hubs(ctx context.Context, metric string, limit int) ([]Hub, error) {
	if metric == "" {
		metric = MetricInDegree
	}
	if limit <= 0 {
		limit = 10
	}
	g, st, err := e.linkGraph(ctx)
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
		pr := e.pageRank(g)
		score = func(id int64) float64 { return pr[id] }
	default:
		return nil, gnoerr.New(gnoerr.InvalidInput, "metric must be in_degree, out_degree or pagerank, not %q", metric)
	}
	ids := TopNodes(g.Nodes(), score, limit)
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

// TopNodes returns the limit ids with the highest score, ties by id.
func TopNodes(ids []int64, score func(int64) float64, limit int) []int64 {
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

// Orphans returns documents with no resolved link in or out, by path;
// limit 0 means all.
func (e *Engine) Orphans(ctx context.Context, limit int) ([]NoteRef, error) {
	g, st, err := e.linkGraph(ctx)
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

// GraphStats counts links, distinct edges, unresolved links and orphans.
func (e *Engine) GraphStats(ctx context.Context) (*GraphStats, error) {
	g, st, err := e.linkGraph(ctx)
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

// Truncated is the marker appended to content cut to a length.
const Truncated = "... [truncated]"

// Truncate cuts s to at most n characters (runes), marking the cut; n <= 0
// leaves s whole.
func Truncate(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			return s[:i] + Truncated, true
		}
		count++
	}
	return s, false
}

// Node is a document with (possibly truncated) content, as graph answers
// give neighbours.
type Node struct {
	NoteRef
	Content string   `json:"content,omitempty"`
	Tags    []string `json:"tags,omitempty"`
}

// Neighbourhood is the documents linking to and linked from a document.
type Neighbourhood struct {
	Incoming []Node `json:"incomingNeighbors"`
	Outgoing []Node `json:"outgoingNeighbors"`
	// IncomingCount and OutgoingCount count distinct documents, past the
	// limit.
	IncomingCount int `json:"incomingCount"`
	OutgoingCount int `json:"outgoingCount"`
}

// Neighbours returns up to limit documents on each side of a document's
// links (distinct, self excluded), with content cut to contentChars (0:
// none).
func (e *Engine) Neighbours(ctx context.Context, refStr string, limit, contentChars int) (*Neighbourhood, error) {
	m, err := e.resolve(ctx, refStr)
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	out, err := st.LinksFrom(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	in, err := st.LinksTo(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	res := &Neighbourhood{Incoming: []Node{}, Outgoing: []Node{}}
	collect := func(rows []store.LinkRow, list *[]Node, count *int) error {
		seen := map[int64]bool{}
		for _, r := range rows {
			if r.Other == nil || r.Other.ID == m.ID || seen[r.Other.ID] {
				continue
			}
			seen[r.Other.ID] = true
			*count++
			if limit > 0 && len(*list) >= limit {
				continue
			}
			n, err := e.node(ctx, st, r.Other.ID, contentChars)
			if err != nil {
				return err
			}
			if n != nil {
				*list = append(*list, *n)
			}
		}
		return nil
	}
	if err := collect(out, &res.Outgoing, &res.OutgoingCount); err != nil {
		return nil, err
	}
	if err := collect(in, &res.Incoming, &res.IncomingCount); err != nil {
		return nil, err
	}
	return res, nil
}

// node reads a document as a Node with content cut to contentChars.
func (e *Engine) node(ctx context.Context, st *store.Store, id int64, contentChars int) (*Node, error) {
	metas, err := st.Docs(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	m := metas[id]
	if m == nil {
		return nil, nil
	}
	n := &Node{NoteRef: noteRef(m), Tags: m.Tags}
	if contentChars > 0 {
		c, err := st.Content(ctx, id)
		if err != nil {
			return nil, err
		}
		n.Content, _ = Truncate(c, contentChars)
	}
	return n, nil
}

// Content returns a document's text cut to n characters (for list
// results that include content).
func (e *Engine) Content(ctx context.Context, uri string, n int) (string, error) {
	m, err := e.resolve(ctx, uri)
	if err != nil {
		return "", err
	}
	st, _ := e.store(ctx)
	c, err := st.Content(ctx, m.ID)
	if err != nil {
		return "", err
	}
	s, _ := Truncate(c, n)
	return s, nil
}
