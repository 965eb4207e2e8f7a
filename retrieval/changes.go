package retrieval

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// Change is one document in the change feed.
type Change struct {
	URI        string `json:"uri"`
	DocID      string `json:"docid"`
	Generation int64  `json:"generation"`
	// Diff is the unified diff since the generation asked about (with
	// ChangesRequest.Diff); DiffNote says why there is none.
	Diff     string `json:"diff,omitempty"`
	DiffNote string `json:"diffNote,omitempty"`
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
	// Diff adds each added or modified document's diff since Since,
	// within MaxTokens (DefaultReconcileTokens if 0).
	Diff      bool
	MaxTokens int
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
	if req.Diff {
		if err := addDiffs(ctx, st, since, req.MaxTokens, out.Added, out.Modified); err != nil {
			return nil, err
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

// addDiffs fills the Diff of each change, in order, while they fit the
// budget.
func addDiffs(ctx context.Context, st store.Backend, since int64, budget int, lists ...[]Change) error {
	if budget <= 0 {
		budget = DefaultReconcileTokens
	}
	used := 0
	for _, list := range lists {
		for i := range list {
			c := &list[i]
			r, err := ref.Parse(c.URI)
			if err != nil {
				return err
			}
			d, whole, large, err := textDiff(ctx, st, r.Collection, r.Path, since)
			if err != nil {
				return err
			}
			switch t := chunk.EstimateTokens(d); {
			case large:
				c.DiffNote = fmt.Sprintf("larger than %d bytes: not diffed; read the document", MaxDiffFile)
			case whole != nil:
				c.DiffNote = "earlier text no longer kept (gno cleanup or the store's limit): read the whole document"
			case used+t > budget:
				c.DiffNote = "diff over the token budget: ask with a later since, or read the document"
			default:
				c.Diff, used = d, used+t
			}
		}
	}
	return nil
}
