package store

import (
	"context"
	"fmt"
)

// The change feed: documents carry the generation that added and last
// changed them, and the removed table keeps what a sync deleted.

// ChangedDoc is a document added or modified after some generation.
type ChangedDoc struct {
	Collection, RelPath, Hash string
	AddedGen, ChangedGen      int64
}

// RemovedDoc is a document a sync deleted, and when.
type RemovedDoc struct {
	Collection, RelPath, Hash string
	Gen                       int64
}

// ChangedSince lists documents changed after generation since, by path,
// optionally within one collection.
func (s *Store) ChangedSince(ctx context.Context, collection string, since int64) ([]ChangedDoc, error) {
	q := "SELECT collection, rel_path, hash, added_gen, changed_gen FROM documents WHERE changed_gen > ?"
	args := []any{since}
	if collection != "" {
		q += " AND collection = ?"
		args = append(args, collection)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY collection, rel_path", args...)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	var out []ChangedDoc
	for rows.Next() {
		var c ChangedDoc
		if err := rows.Scan(&c.Collection, &c.RelPath, &c.Hash, &c.AddedGen, &c.ChangedGen); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RemovedSince lists documents removed after generation since, oldest
// first, optionally within one collection.
func (s *Store) RemovedSince(ctx context.Context, collection string, since int64) ([]RemovedDoc, error) {
	q := "SELECT collection, rel_path, hash, gen FROM removed WHERE gen > ?"
	args := []any{since}
	if collection != "" {
		q += " AND collection = ?"
		args = append(args, collection)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY gen, collection, rel_path", args...)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	var out []RemovedDoc
	for rows.Next() {
		var r RemovedDoc
		if err := rows.Scan(&r.Collection, &r.RelPath, &r.Hash, &r.Gen); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
