package store

import (
	"context"
	"fmt"
	"time"
)

// reconcileSchema is the reconcile cache (schema 5): per named cursor (one
// per agent or task), the BLAKE3 hash of each file's content when it was
// last marked reconciled. It lives in the index database, never in the
// user's folders; marking writes only here and does not count as an index
// write (no document changed), so no cache of the engine is dropped.
const reconcileSchema = `
CREATE TABLE IF NOT EXISTS reconciled(
	cursor TEXT NOT NULL,
	collection TEXT NOT NULL,
	rel_path TEXT NOT NULL,
	hash TEXT NOT NULL,
	marked_at INTEGER NOT NULL,
	PRIMARY KEY(cursor, collection, rel_path)) WITHOUT ROWID;
`

// Reconciled is one file's content hash under a cursor.
type Reconciled struct {
	Collection, RelPath, Hash string
}

// MarkReconciled records the hashes of files under cursor, all of them in
// one transaction (never half-written: a kill leaves the cache as it was
// before the call). It returns how many rows it wrote.
func (s *Store) MarkReconciled(ctx context.Context, cursor string, files []Reconciled) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("mark reconciled: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO reconciled(cursor, collection, rel_path, hash, marked_at) VALUES(?,?,?,?,?)
		ON CONFLICT(cursor, collection, rel_path) DO UPDATE SET hash = excluded.hash, marked_at = excluded.marked_at`)
	if err != nil {
		return 0, fmt.Errorf("mark reconciled: %w", err)
	}
	defer st.Close()
	now := time.Now().Unix()
	for _, f := range files {
		if _, err := st.ExecContext(ctx, cursor, f.Collection, f.RelPath, f.Hash, now); err != nil {
			return 0, fmt.Errorf("mark reconciled %s/%s: %w", f.Collection, f.RelPath, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("mark reconciled: %w", err)
	}
	return len(files), nil
}

// ClearReconciled forgets every hash of cursor and returns how many there
// were.
func (s *Store) ClearReconciled(ctx context.Context, cursor string) (int, error) {
	res, err := s.db.ExecContext(ctx, "DELETE FROM reconciled WHERE cursor = ?", cursor)
	if err != nil {
		return 0, fmt.Errorf("clear reconciled: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ReconciledHashes returns the hashes cursor holds for a collection, keyed
// by relative path (empty for a cold cache).
func (s *Store) ReconciledHashes(ctx context.Context, cursor, collection string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT rel_path, hash FROM reconciled WHERE cursor = ? AND collection = ?", cursor, collection)
	if err != nil {
		return nil, fmt.Errorf("read reconciled: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var rel, h string
		if err := rows.Scan(&rel, &h); err != nil {
			return nil, fmt.Errorf("read reconciled: %w", err)
		}
		out[rel] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read reconciled: %w", err)
	}
	return out, nil
}
