package retrieval

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// TagCount is a tag and how many documents carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Tags lists tags with document counts, optionally within a collection
// and starting with prefix.
func (e *Engine) Tags(ctx context.Context, collection, prefix string) ([]TagCount, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	collection = strings.ToLower(collection)
	if collection != "" {
		if _, ok := e.Config().Collection(collection); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", collection)
		}
	}
	q := "SELECT t.tag, count(*) FROM tags t JOIN documents d ON d.id = t.doc_id WHERE 1=1"
	var args []any
	if collection != "" {
		q += " AND d.collection = ?"
		args = append(args, collection)
	}
	if prefix != "" {
		q += " AND substr(t.tag, 1, ?) = ?"
		p := ingest.NormalizeTag(prefix)
		args = append(args, len(p), p)
	}
	q += " GROUP BY t.tag ORDER BY count(*) DESC, t.tag"
	rows, err := st.DB().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	defer rows.Close()
	out := []TagCount{}
	for rows.Next() {
		var t TagCount
		if err := rows.Scan(&t.Tag, &t.Count); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TagResult is the state of a document's tags after a change.
type TagResult struct {
	DocID string   `json:"docid"`
	URI   string   `json:"uri"`
	Tags  []string `json:"tags"`
}

// Tag adds or removes a user tag on a document, under the writer lock.
// User tags survive re-indexing; front-matter tags come from the file.
func (e *Engine) Tag(ctx context.Context, refStr, tag string, add bool) (*TagResult, error) {
	tag = ingest.NormalizeTag(tag)
	if tag == "" || strings.ContainsAny(tag, "\x00\n") || len(tag) > 100 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "invalid tag %q", tag)
	}
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	m, err := e.resolve(ctx, refStr)
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	if add {
		_, err = st.DB().ExecContext(ctx, "INSERT INTO tags(doc_id, tag, user) VALUES(?, ?, 1) ON CONFLICT DO NOTHING", m.ID, tag)
	} else {
		var res interface{ RowsAffected() (int64, error) }
		res, err = st.DB().ExecContext(ctx, "DELETE FROM tags WHERE doc_id = ? AND tag = ?", m.ID, tag)
		if err == nil {
			if n, _ := res.RowsAffected(); n == 0 {
				return nil, gnoerr.New(gnoerr.NotFound, "document %s has no tag %q", refStr, tag)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", refStr, err)
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

// ChangesSince returns documents added, modified and removed after
// generation since, optionally within one collection.
func (e *Engine) ChangesSince(ctx context.Context, collection string, since int64) (*Changes, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	collection = strings.ToLower(collection)
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, err
	}
	out := &Changes{Since: since, Generation: gen, Added: []Change{}, Modified: []Change{}, Removed: []Change{}}
	q := "SELECT collection, rel_path, hash, added_gen, changed_gen FROM documents WHERE changed_gen > ?"
	args := []any{since}
	if collection != "" {
		q += " AND collection = ?"
		args = append(args, collection)
	}
	rows, err := st.DB().QueryContext(ctx, q+" ORDER BY collection, rel_path", args...)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var col, rel, hash string
		var added, changed int64
		if err := rows.Scan(&col, &rel, &hash, &added, &changed); err != nil {
			return nil, err
		}
		c := Change{URI: ref.URI(col, rel), DocID: docID(hash), Generation: changed}
		if added > since {
			out.Added = append(out.Added, c)
		} else {
			out.Modified = append(out.Modified, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	q = "SELECT collection, rel_path, hash, gen FROM removed WHERE gen > ?"
	if collection != "" {
		q += " AND collection = ?"
	}
	rows2, err := st.DB().QueryContext(ctx, q+" ORDER BY gen, collection, rel_path", args...)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows2.Close()
	for rows2.Next() {
		var col, rel, hash string
		var g int64
		if err := rows2.Scan(&col, &rel, &hash, &g); err != nil {
			return nil, err
		}
		out.Removed = append(out.Removed, Change{URI: ref.URI(col, rel), DocID: docID(hash), Generation: g})
	}
	return out, rows2.Err()
}
