package postgres

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/retrieval/store"
)

// countsKey is the meta row that holds the status counts' cache: in the
// database, so every server over the index shares one (its key, the
// writes counter, says when it is stale).
const countsKey = "status_counts"

// CountsCache returns the cached status counts, nil when there are none.
func (s *Store) CountsCache(ctx context.Context) ([]byte, error) {
	v, err := s.Meta(ctx, countsKey)
	if err != nil || v == "" {
		return nil, err
	}
	return []byte(v), nil
}

// PutCountsCache replaces the cached status counts. It is written on the
// primary outside any write batch and the writer lock: a cache keyed by
// the index's write state is never wrong, and any reader may keep it.
func (s *Store) PutCountsCache(ctx context.Context, body []byte) error {
	ctx = store.Bookkeeping(ctx)
	_, err := s.pool.Exec(ctx, `INSERT INTO meta(key, value) VALUES($1, $2)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, countsKey, string(body))
	if err != nil {
		return fmt.Errorf("save status counts: %w", err)
	}
	return nil
}
