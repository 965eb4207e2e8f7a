package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// The reconcile cache, as SQLite keeps it (store/reconcile.go): per
// cursor, each file's content hash when last marked. Marking is no index
// write (the writes counter stays), so no engine cache drops.

// MarkReconciled records the hashes of files under cursor in one
// statement (one transaction).
func (s *Store) MarkReconciled(ctx context.Context, cursor string, files []store.Reconciled) (int, error) {
	if len(files) == 0 {
		return 0, nil
	}
	cols, rels, hashes := make([]string, len(files)), make([]string, len(files)), make([]string, len(files))
	for i, f := range files {
		cols[i], rels[i], hashes[i] = f.Collection, f.RelPath, f.Hash
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO reconciled(cursor, collection, rel_path, hash, marked_at)
		SELECT DISTINCT ON (c, r) $1, c, r, h, $5 FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(c, r, h, n) ORDER BY c, r, n DESC
		ON CONFLICT(cursor, collection, rel_path) DO UPDATE SET hash = excluded.hash, marked_at = excluded.marked_at`,
		cursor, cols, rels, hashes, time.Now().Unix())
	if err != nil {
		return 0, fmt.Errorf("mark reconciled: %w", err)
	}
	return len(files), nil
}

// ClearReconciled forgets every hash of cursor and returns how many there
// were.
func (s *Store) ClearReconciled(ctx context.Context, cursor string) (int, error) {
	res, err := s.pool.Exec(ctx, "DELETE FROM reconciled WHERE cursor = $1", cursor)
	if err != nil {
		return 0, fmt.Errorf("clear reconciled: %w", err)
	}
	return int(res.RowsAffected()), nil
}

// ReconciledHashes returns the hashes cursor holds for a collection, keyed
// by relative path.
func (s *Store) ReconciledHashes(ctx context.Context, cursor, collection string) (map[string]string, error) {
	out := map[string]string{}
	err := s.each(ctx, "SELECT rel_path, hash FROM reconciled WHERE cursor = $1 AND collection = $2", []any{cursor, collection}, func(r pgx.Rows) error {
		var rel, h string
		err := r.Scan(&rel, &h)
		out[rel] = h
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read reconciled: %w", err)
	}
	return out, nil
}
