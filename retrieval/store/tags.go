package store

import (
	"context"
	"fmt"
)

// TagCount is a tag and how many documents carry it.
type TagCount struct {
	Tag   string
	Count int
}

// TagCounts lists tags with document counts, most used first, optionally
// within a collection and starting with prefix (already normalised).
func (s *Store) TagCounts(ctx context.Context, collection, prefix string) ([]TagCount, error) {
	q := "SELECT t.tag, count(*) FROM tags t JOIN documents d ON d.id = t.doc_id WHERE 1=1"
	var args []any
	if collection != "" {
		q += " AND d.collection = ?"
		args = append(args, collection)
	}
	if prefix != "" {
		q += " AND substr(t.tag, 1, ?) = ?"
		args = append(args, len(prefix), prefix)
	}
	q += " GROUP BY t.tag ORDER BY count(*) DESC, t.tag"
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	defer rows.Close()
	var out []TagCount
	for rows.Next() {
		var t TagCount
		if err := rows.Scan(&t.Tag, &t.Count); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// AddUserTag puts a user tag on a document (a no-op when it has it).
// User tags survive re-indexing; front-matter tags come from the file.
func (s *Store) AddUserTag(ctx context.Context, doc int64, tag string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO tags(doc_id, tag, user) VALUES(?, ?, 1) ON CONFLICT DO NOTHING", doc, tag)
	return err
}

// RemoveTag takes a tag off a document and reports whether it had it.
func (s *Store) RemoveTag(ctx context.Context, doc int64, tag string) (bool, error) {
	res, err := s.db.ExecContext(ctx, "DELETE FROM tags WHERE doc_id = ? AND tag = ?", doc, tag)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// UserTag is a user tag by document path, as a rebuild carries it over.
type UserTag struct {
	Collection, RelPath, Tag string
}

// RestoreUserTags puts user tags back on the documents at their paths.
func (s *Store) RestoreUserTags(ctx context.Context, tags []UserTag) error {
	for _, t := range tags {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO tags(doc_id, tag, user) SELECT id, ?, 1 FROM documents
			WHERE collection = ? AND rel_path = ? ON CONFLICT DO UPDATE SET user = 1`, t.Tag, t.Collection, t.RelPath); err != nil {
			return fmt.Errorf("rebuild: restore tag %s on %s/%s: %w", t.Tag, t.Collection, t.RelPath, err)
		}
	}
	return nil
}

// DocTagsOf is DocTags of the documents ids (in any order, repeats
// allowed) only: a view that draws a sample of a large index reads the
// tags of what it draws.
func (s *Store) DocTagsOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := inChunks(ids, 500, func(in string, args []any) error {
		return s.readTags(ctx, out, "SELECT doc_id, tag FROM tags WHERE doc_id IN ("+in+") ORDER BY doc_id, tag", args)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DocTags returns every document's tags (front matter and user tags),
// sorted, by document id: one statement for the whole index, for views
// that draw every document (the graph).
func (s *Store) DocTags(ctx context.Context) (map[int64][]string, error) {
	out := map[int64][]string{}
	if err := s.readTags(ctx, out, "SELECT doc_id, tag FROM tags ORDER BY doc_id, tag", nil); err != nil {
		return nil, err
	}
	return out, nil
}

// readTags adds the (document, tag) rows q selects to out.
func (s *Store) readTags(ctx context.Context, out map[int64][]string, q string, args []any) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return fmt.Errorf("read tags: %w", err)
		}
		out[id] = append(out[id], tag)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read tags: %w", err)
	}
	return nil
}
