package web

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval"
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
