package web

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/graph/layout"
)

// engineGraph is the LinkGraph of the index itself (Graph.Links): the
// default whenever Options.Links is nil.
type engineGraph struct{ srv Backend }

// Links lists a document's resolved outgoing links and its backlinks.
// Unresolved links and attachments have no document to open, so the
// page leaves them out.
func (g engineGraph) Links(ctx context.Context, ref string) (outgoing, incoming []Link, err error) {
	e, err := g.srv.Engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(ref, "#") && !strings.Contains(ref, "/") {
		ref = "#" + ref // a bare docid
	}
	res, err := e.Graph().Links(ctx, retrieval.LinksRequest{Ref: ref, Direction: "both", Limit: 200})
	if err != nil {
		return nil, nil, err
	}
	conv := func(ls []retrieval.LinkInfo) []Link {
		var out []Link
		seen := map[string]bool{}
		for _, l := range ls {
			// One entry per note: a note linking here twice is listed once, at its first link.
			if l.Resolved && !l.Attachment && l.DocID != "" && !seen[l.DocID] {
				seen[l.DocID] = true
				out = append(out, Link{DocID: l.DocID, URI: l.URI, Title: l.Title, Line: l.Line})
			}
		}
		return out
	}
	return conv(res.Outgoing), conv(res.Incoming), nil
}

// engineScene is the GraphSource of the index itself (Graph.Whole): the
// default whenever Options.Graph is nil. Its version is Whole's digest,
// so a write that leaves the drawing as it was costs no layout; its
// state is the index's write counter, one small query to poll.
type engineScene struct{ srv Backend }

func (g engineScene) whole(ctx context.Context) (*retrieval.WholeGraph, error) {
	e, err := g.srv.Engine(ctx)
	if err != nil {
		return nil, err
	}
	return e.Graph().Whole(ctx)
}

// GraphVersion is the digest of the whole graph.
func (g engineScene) GraphVersion(ctx context.Context) (string, error) {
	w, err := g.whole(ctx)
	if err != nil {
		return "", err
	}
	return w.Version, nil
}

// GraphInput is the whole graph.
func (g engineScene) GraphInput(ctx context.Context) (*layout.Input, error) {
	w, err := g.whole(ctx)
	if err != nil {
		return nil, err
	}
	return w.Input, nil
}

// GraphState is the index's committed state.
func (g engineScene) GraphState(ctx context.Context) (string, error) {
	e, err := g.srv.Engine(ctx)
	if err != nil {
		return "", err
	}
	return e.Graph().State(ctx)
}
