package retrieval

import (
	"context"
	"strings"

	"github.com/gnosearch/gno/retrieval/ref"
)

// Change is one document in the change feed.
type Change struct {
	URI        string `json:"uri"`
	DocID      string `json:"docid"`
	Generation int64  `json:"generation"`
}

// Changes lists what changed after generation since.
type Changes struct {
	Since      int64    `json:"since"`
	Generation int64    `json:"generation"`
	Added      []Change `json:"added"`
	Modified   []Change `json:"modified"`
	Removed    []Change `json:"removed"`
}

// ChangesRequest asks for the change feed.
type ChangesRequest struct {
	// Collection limits the feed to one collection ("": all).
	Collection string
	// Since is the generation the caller last saw (0: everything).
	Since int64
}

// Changes returns documents added, modified and removed after generation
// req.Since: a reader re-reads only what changed since it last looked.
func (n *Notes) Changes(ctx context.Context, req ChangesRequest) (*Changes, error) {
	return readAs(ctx, n.e, func(ctx context.Context) (*Changes, error) { return n.changes(ctx, req) })
}

func (n *Notes) changes(ctx context.Context, req ChangesRequest) (*Changes, error) {
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	collection := strings.ToLower(req.Collection)
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, err
	}
	since := req.Since
	out := &Changes{Since: since, Generation: gen, Added: []Change{}, Modified: []Change{}, Removed: []Change{}}
	changed, err := st.ChangedSince(ctx, collection, since)
	if err != nil {
		return nil, err
	}
	for _, d := range changed {
		c := Change{URI: ref.URI(d.Collection, d.RelPath), DocID: docID(d.Hash), Generation: d.ChangedGen}
		if d.AddedGen > since {
			out.Added = append(out.Added, c)
		} else {
			out.Modified = append(out.Modified, c)
		}
	}
	removed, err := st.RemovedSince(ctx, collection, since)
	if err != nil {
		return nil, err
	}
	for _, d := range removed {
		out.Removed = append(out.Removed, Change{URI: ref.URI(d.Collection, d.RelPath), DocID: docID(d.Hash), Generation: d.Gen})
	}
	return out, nil
}
