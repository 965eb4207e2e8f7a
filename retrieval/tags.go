package retrieval

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/ref"
)

// TagCount is a tag and how many documents carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// TagsRequest lists the tags in use.
type TagsRequest struct {
	// Collection limits the list to one collection ("": all).
	Collection string
	// Prefix keeps the tags starting with it (e.g. "project/").
	Prefix string
}

// Tags lists tags with document counts, most used first.
func (n *Notes) Tags(ctx context.Context, req TagsRequest) ([]TagCount, error) {
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	collection := strings.ToLower(req.Collection)
	if collection != "" {
		if _, ok := n.e.Config().Collection(collection); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", collection)
		}
	}
	prefix := ""
	if req.Prefix != "" {
		prefix = ingest.NormalizeTag(req.Prefix)
	}
	rows, err := st.TagCounts(ctx, collection, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]TagCount, len(rows))
	for i, r := range rows {
		out[i] = TagCount{Tag: r.Tag, Count: r.Count}
	}
	return out, nil
}

// TagResult is the state of a document's tags after a change.
type TagResult struct {
	DocID string   `json:"docid"`
	URI   string   `json:"uri"`
	Tags  []string `json:"tags"`
}

// TagRequest adds a user tag to a document, or removes one.
type TagRequest struct {
	Ref string
	Tag string
	// Remove takes the tag off instead of adding it.
	Remove bool
}

// Tag adds or removes a user tag on a document. User tags survive
// re-indexing; front-matter tags come from the file.
func (n *Notes) Tag(ctx context.Context, req TagRequest) (*TagResult, error) {
	tag := ingest.NormalizeTag(req.Tag)
	if tag == "" || strings.ContainsAny(tag, "\x00\n") || len(tag) > 100 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "invalid tag %q", tag)
	}
	_, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, err := n.e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	st, _ := n.e.store(ctx)
	if !req.Remove {
		err = st.AddUserTag(ctx, m.ID, tag)
	} else {
		var had bool
		had, err = st.RemoveTag(ctx, m.ID, tag)
		if err == nil && !had {
			return nil, gnoerr.New(gnoerr.NotFound, "document %s has no tag %q", req.Ref, tag)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", req.Ref, err)
	}
	m, err = st.DocByPath(ctx, m.Collection, m.RelPath)
	if err != nil {
		return nil, err
	}
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return &TagResult{DocID: docID(m.Hash), URI: ref.URI(m.Collection, m.RelPath), Tags: tags}, nil
}
