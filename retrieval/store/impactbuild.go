package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// When the block-max postings (impacts.go) are built outside gno cleanup:
// a first gno update, a daemon's idle time.

// BuildPostings builds the word index's block-max postings when they
// were never built or were built in the first encoding (before the delta,
// impactdelta.go), and with behind also when more than half of impactDeltaMax
// rows changed since (a rebuild costs in proportion to the whole index:
// the daemon does it when idle, a one-shot gno update only for a missing
// build). It reports progress (token instances read of all) and whether
// it built. The build is one transaction: a sync waits for it (it holds
// the writer lock), reads do not.
func (s *Store) BuildPostings(ctx context.Context, behind bool, progress func(done, total int)) (bool, error) {
	need, err := s.postingsNeeded(ctx, behind)
	if err != nil || !need {
		return false, err
	}
	if _, err := s.buildImpactsWith(ctx, progress); err != nil {
		if errors.Is(err, errImpactsDisagree) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// postingsNeeded says whether BuildPostings has work: an index with rows
// whose postings are missing, out of date, or far behind.
func (s *Store) postingsNeeded(ctx context.Context, behind bool) (bool, error) {
	var built sql.NullString
	var rows, stale int64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?),
		(SELECT count(*) FROM (SELECT 1 FROM chunks LIMIT 1)),
		coalesce((SELECT count(*) FROM pragma_table_list WHERE name = 'impacts_stale'), 0)`, impactsKey).Scan(&built, &rows, &stale)
	if err != nil {
		return false, fmt.Errorf("postings: %w", err)
	}
	if rows == 0 {
		return false, nil
	}
	if !built.Valid {
		return true, nil
	}
	if _, _, ok := parseBuilt(built.String); !ok || stale == 0 {
		// The first encoding, without the delta: rebuilt.
		return true, nil
	}
	if !behind {
		return false, nil
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_stale").Scan(&stale); err != nil {
		return false, fmt.Errorf("postings: %w", err)
	}
	return stale > impactDeltaMax/2, nil
}
