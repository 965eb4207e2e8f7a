package retrieval

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/gnoerr"
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
func (gr *Graph) Links(ctx context.Context, req LinksRequest) (*LinksResult, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*LinksResult, error) { return gr.links(ctx, req) })
}

func (gr *Graph) links(ctx context.Context, req LinksRequest) (*LinksResult, error) {
	e := gr.e
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

// UnresolvedRequest asks for the broken links.
type UnresolvedRequest struct {
	// Collection limits the list to one collection ("": all).
	Collection string
	// Limit bounds the list (0: all).
	Limit int
}

// Unresolved lists the broken links, by source path.
func (gr *Graph) Unresolved(ctx context.Context, req UnresolvedRequest) ([]UnresolvedLink, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := st.Unresolved(ctx, strings.ToLower(req.Collection), req.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]UnresolvedLink, 0, len(rows))
	for _, r := range rows {
		out = append(out, UnresolvedLink{Source: noteRef(r.Other), Target: r.Target, Fragment: r.Fragment, Kind: r.Kind.String(), Line: r.Line})
	}
	return out, nil
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

// NeighboursRequest asks for the documents around one document.
type NeighboursRequest struct {
	Ref string
	// Limit bounds each side (0: all).
	Limit int
	// ContentChars cuts each neighbour's content (0: none).
	ContentChars int
}

// Neighbours returns up to Limit documents on each side of a document's
// links (distinct, self excluded), with content cut to ContentChars.
func (gr *Graph) Neighbours(ctx context.Context, req NeighboursRequest) (*Neighbourhood, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*Neighbourhood, error) { return gr.neighbours(ctx, req) })
}

func (gr *Graph) neighbours(ctx context.Context, req NeighboursRequest) (*Neighbourhood, error) {
	e, limit, contentChars := gr.e, req.Limit, req.ContentChars
	m, err := e.resolve(ctx, req.Ref)
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
			n, err := node(ctx, st, r.Other.ID, contentChars)
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
func node(ctx context.Context, st store.Backend, id int64, contentChars int) (*Node, error) {
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
		n.Content, _ = display.Truncate(c, contentChars)
	}
	return n, nil
}
