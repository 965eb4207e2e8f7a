package retrieval

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// TaggedRequest lists the documents carrying a tag.
type TaggedRequest struct {
	// Tags are the tags wanted (any of them); a tag also stands for the
	// tags nested under it ("project" finds "project/alpha").
	Tags       []string
	Collection string
	// Limit caps the list (default 200, at most 1000).
	Limit int
}

// Tagged lists the documents carrying any of the tags, by title: what a
// tag browser opens when a tag is clicked.
func (n *Notes) Tagged(ctx context.Context, req TaggedRequest) ([]Entry, error) {
	return readAs(ctx, n.e, func(ctx context.Context) ([]Entry, error) { return n.tagged(ctx, req) })
}

func (n *Notes) tagged(ctx context.Context, req TaggedRequest) ([]Entry, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = 200
	}
	limit = min(limit, 1000)
	col := strings.ToLower(req.Collection)
	f := store.Filter{}
	if col != "" {
		if _, ok := n.e.Config().Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", col)
		}
		f.Collections = []string{col}
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range req.Tags {
		if t = ingest.NormalizeTag(t); t == "" {
			continue
		}
		f.TagsAny = append(f.TagsAny, t)
		nested, err := st.TagCounts(ctx, col, t+"/")
		if err != nil {
			return nil, err
		}
		for _, c := range nested {
			f.TagsAny = append(f.TagsAny, c.Tag)
		}
	}
	if len(f.TagsAny) == 0 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give a tag")
	}
	ids, err := st.FilterDocs(ctx, f)
	if err != nil {
		return nil, err
	}
	list := make([]int64, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	docs, err := st.Docs(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(docs))
	for _, m := range docs {
		title := m.Title
		if title == "" {
			title = m.RelPath
		}
		out = append(out, Entry{DocID: docID(m.Hash), URI: ref.URI(m.Collection, m.RelPath), Title: title, Collection: m.Collection,
			RelPath: m.RelPath, SizeBytes: m.Size, ModifiedAt: time.Unix(0, m.MtimeNS).UTC().Format(time.RFC3339), Tags: m.Tags})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := strings.ToLower(out[i].Title), strings.ToLower(out[j].Title)
		if a != b {
			return a < b
		}
		return out[i].URI < out[j].URI
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
