package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/mark3labs/mcp-go/mcp"
)

// Content limits of graph-tools-schema.md: the primary document, list
// results, and neighbours shown in a document's context.
const (
	primaryChars  = 10000
	listChars     = 500
	neighborChars = 200
	maxNeighbors  = 20
)

// graphTools are the read-only links-graph tools, always on.
func graphTools() []toolDef {
	return []toolDef{
		{name: "gno_links", title: "Links and backlinks", input: linksInputSchema, output: linksOutput,
			desc:     "A document's outgoing links ([[wikilinks]], embeds, Markdown and gno:// links, each with its line) and the documents linking to it (backlinks). Unresolved links are kept: a broken link is information.",
			readOnly: true, idempotent: true, run: (*Server).links},
		{name: "gno_find_path", title: "Find path", input: findPathInputSchema, output: pathOutput,
			desc:     "Shortest chain of links from one document to another (breadth-first, optionally ignoring link direction). found is false when none exists within maxDepth.",
			readOnly: true, idempotent: true, run: (*Server).findPath},
		{name: "gno_hubs", title: "Hub documents", input: hubsInputSchema, output: hubsOutput,
			desc:     "The most central documents of the link graph by in_degree (most linked to), out_degree or pagerank.",
			readOnly: true, idempotent: true, run: (*Server).hubs},
		{name: "gno_resolve", title: "Resolve names", input: resolveInputSchema, output: resolveOutput,
			desc:     "Batch-resolve names to existing documents: exact (title, file name or alias), fuzzy (typos; trigram Dice) or semantic (synonyms; needs vectors). Use before writing [[links]] to name notes that exist.",
			readOnly: true, idempotent: true, run: (*Server).resolveNames},
		{name: "gno_related", title: "Related notes", input: relatedInputSchema, output: relatedOutput,
			desc:     "Notes near a note by its links and its meaning together (reciprocal-rank fusion of link neighbours and vector neighbours; links only without vectors).",
			readOnly: true, idempotent: true, run: (*Server).related},
	}
}

func (s *Server) links(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Graph().Links(ctx, retrieval.LinksRequest{Ref: a.str("ref"), Direction: a.str("direction"), Limit: a.int("limit", 20), Unresolved: a.bool("unresolved", false)})
	if err != nil {
		return nil, "", err
	}
	if a.bool("includeContent", false) {
		for _, list := range [][]retrieval.LinkInfo{res.Outgoing, res.Incoming} {
			for i := range list {
				if list[i].URI != "" {
					list[i].Content = content(ctx, e, list[i].URI, listChars)
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d outgoing, %d incoming", res.URI, res.Title, res.OutgoingCount, res.IncomingCount)
	for _, l := range res.Outgoing {
		to := l.URI
		if !l.Resolved {
			to = "unresolved"
			if l.Attachment {
				to = "attachment"
			}
		}
		fmt.Fprintf(&b, "\nout line %d: %s -> %s", l.Line, oneLine(l.Target, 120), to)
	}
	for _, l := range res.Incoming {
		fmt.Fprintf(&b, "\nin: %s line %d (%s)", l.URI, l.Line, oneLine(l.Title, 120))
	}
	return res, b.String(), nil
}

// pathResult is the structuredContent of gno_find_path.
type pathResult struct {
	Found  bool                `json:"found"`
	Path   []retrieval.NoteRef `json:"path"`
	Length int                 `json:"length"`
}

func (s *Server) findPath(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	p, err := e.Graph().Path(ctx, retrieval.PathRequest{Source: a.str("source"), Target: a.str("target"), Undirected: a.bool("undirected", false), MaxDepth: a.int("maxDepth", retrieval.DefaultMaxPathDepth)})
	if err != nil {
		return nil, "", err
	}
	if p == nil {
		return pathResult{Path: []retrieval.NoteRef{}}, "No path from " + a.str("source") + " to " + a.str("target"), nil
	}
	uris := make([]string, len(p.Path))
	for i, n := range p.Path {
		uris[i] = n.URI
	}
	return pathResult{Found: true, Path: p.Path, Length: p.Length}, fmt.Sprintf("%d link(s): %s", p.Length, strings.Join(uris, " -> ")), nil
}

// hubItem is one hub with optional content.
type hubItem struct {
	retrieval.Hub
	Content string `json:"content,omitempty"`
}

// hubsResult is the structuredContent of gno_hubs.
type hubsResult struct {
	Metric string    `json:"metric"`
	Hubs   []hubItem `json:"hubs"`
}

func (s *Server) hubs(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	metric := a.str("metric")
	if metric == "" {
		metric = retrieval.MetricInDegree
	}
	hs, err := e.Graph().Hubs(ctx, retrieval.HubsRequest{Metric: metric, Limit: a.int("limit", 10)})
	if err != nil {
		return nil, "", err
	}
	res := hubsResult{Metric: metric, Hubs: make([]hubItem, len(hs))}
	var b strings.Builder
	fmt.Fprintf(&b, "Top %d by %s", len(hs), metric)
	for i, h := range hs {
		res.Hubs[i].Hub = h
		if a.bool("includeContent", false) {
			res.Hubs[i].Content = content(ctx, e, h.URI, listChars)
		}
		fmt.Fprintf(&b, "\n%d. %s (%s) %g", i+1, h.URI, oneLine(h.Title, 120), h.Score)
	}
	return res, b.String(), nil
}

// resolveResult is the structuredContent of gno_resolve.
type resolveResult struct {
	Results []retrieval.NameMatch `json:"results"`
}

func (s *Server) resolveNames(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Graph().Resolve(ctx, retrieval.ResolveRequest{Names: a.strs("names"), Strategy: a.str("strategy"), Threshold: a.num("threshold", 0.7)})
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	for i, r := range res {
		if i > 0 {
			b.WriteByte('\n')
		}
		m := r.URI
		if m == "" {
			m = "no match"
		}
		fmt.Fprintf(&b, "%s -> %s (%.2f)", r.Query, m, r.Score)
	}
	return resolveResult{Results: res}, b.String(), nil
}

func (s *Server) related(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Graph().Related(ctx, retrieval.RelatedRequest{Ref: a.str("ref"), Limit: a.int("limit", 10)})
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Related to %s (%s)", res.URI, res.Title)
	if !res.VectorsUsed {
		b.WriteString(" by links only (no vectors: run `gno index`)")
	}
	for i, r := range res.Related {
		fmt.Fprintf(&b, "\n%d. %s (%s) %.2f", i+1, r.URI, oneLine(r.Title, 120), r.Score)
	}
	return res, b.String(), nil
}

// content is a document's text cut to n characters ("" when it cannot
// be read), for list results that include content.
func content(ctx context.Context, e *retrieval.Engine, uri string, n int) string {
	d, err := e.Get(ctx, retrieval.GetRequest{Ref: uri})
	if err != nil {
		return ""
	}
	c, _ := display.Truncate(d.Content, n)
	return c
}

// documentWithContext is gno_get's answer at depth 1: the document (its
// content cut to 10,000 characters) and its neighbours (200 each).
type documentWithContext struct {
	*retrieval.Document
	*retrieval.Neighbourhood
}

// withNeighbours adds depth-1 context to a gno_get answer.
func (s *Server) withNeighbours(ctx context.Context, e *retrieval.Engine, d *retrieval.Document, text string) (any, string, error) {
	nb, err := e.Graph().Neighbours(ctx, retrieval.NeighboursRequest{Ref: d.URI, Limit: maxNeighbors, ContentChars: neighborChars})
	if err != nil {
		return nil, "", err
	}
	if c, cut := display.Truncate(d.Content, primaryChars); cut {
		d.Content, d.Truncated = c, true
		text, _ = display.Truncate(text, primaryChars)
	}
	var b strings.Builder
	b.WriteString(text)
	fmt.Fprintf(&b, "\n\n--- %d incoming, %d outgoing neighbours", nb.IncomingCount, nb.OutgoingCount)
	for _, n := range nb.Outgoing {
		fmt.Fprintf(&b, "\nout: %s (%s): %s", n.URI, oneLine(n.Title, 120), oneLine(n.Content, 200))
	}
	for _, n := range nb.Incoming {
		fmt.Fprintf(&b, "\nin: %s (%s): %s", n.URI, oneLine(n.Title, 120), oneLine(n.Content, 200))
	}
	return documentWithContext{d, nb}, b.String(), nil
}

// noteTools are the write-gated note edits.
func noteTools() []toolDef {
	return []toolDef{
		{name: "gno_update", title: "Update note", input: updateNoteInputSchema, output: noteOutput,
			desc:        "Replace a note's body and/or its front-matter tags. The rest of the file (front matter formatting, line ends) is kept byte for byte; the write is atomic and the note is re-indexed at once.",
			destructive: true, idempotent: true, run: (*Server).updateNote},
		{name: "gno_delete", title: "Delete note", input: deleteNoteInputSchema, output: noteOutput,
			desc:        "Delete a note's file and drop it from the index; links to it become unresolved. deleted is false when no document has the reference.",
			destructive: true, idempotent: true, run: (*Server).deleteNote},
		{name: "gno_rename", title: "Rename note", input: renameNoteInputSchema, output: noteOutput,
			desc:        "Rename or move a note inside its collection. With updateLinks, links in other notes that would break are rewritten; without it such a rename fails with LINK_INTEGRITY.",
			destructive: true, run: (*Server).renameNote},
	}
}

// noteBusy refuses a note edit while this server's own job holds the
// writer lock (the engine would wait for it).
func (s *Server) noteBusy() error {
	active := s.runner.Active()
	if active != "" {
		return gnoerr.New(gnoerr.Locked, "job %s holds the write lock; retry when it has finished", active)
	}
	return nil
}

func (s *Server) updateNote(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if err := s.noteBusy(); err != nil {
		return nil, "", err
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	var content *string
	if a.has("content") {
		c := a.str("content")
		content = &c
	}
	var tags []string
	if a.has("tags") {
		tags = append([]string{}, a.strs("tags")...)
	}
	res, err := e.Notes().Update(ctx, retrieval.UpdateNoteRequest{Ref: a.str("ref"), Content: content, Tags: tags})
	if err != nil {
		return nil, "", err
	}
	return res, "Updated " + res.URI, nil
}

func (s *Server) deleteNote(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if err := s.noteBusy(); err != nil {
		return nil, "", err
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().Delete(ctx, retrieval.DeleteNoteRequest{Ref: a.str("ref")})
	if err != nil {
		return nil, "", err
	}
	if res.Deleted == nil || !*res.Deleted {
		return res, "No document " + a.str("ref") + "; nothing deleted", nil
	}
	return res, fmt.Sprintf("Deleted %s; %d incoming link(s) now unresolved", res.URI, res.BrokenLinks), nil
}

func (s *Server) renameNote(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if err := s.noteBusy(); err != nil {
		return nil, "", err
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := e.Notes().Rename(ctx, retrieval.RenameNoteRequest{Ref: a.str("ref"), NewPath: a.str("newPath"), UpdateLinks: a.bool("updateLinks", false)})
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Moved %s to %s; %d link(s) rewritten in %d note(s)", res.From, res.URI, res.LinksUpdated, len(res.FilesUpdated)), nil
}
