package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// upgradeLockWait is how long an upgrade waits for a table lock (an
// ALTER TABLE waits for every open read of the table, and every search
// after it waits behind it) before giving up: the index is busy.
var upgradeLockWait = "5s"

// upgradeErr is the error of a failed step of an upgrade from schema
// old: busy (a lock not had within upgradeLockWait) or, else, one only
// the tables' owner can run; the server's text stays in the chain only.
func (s *Store) upgradeErr(err error, old int) error {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "55P03" {
		return gnoerr.New(gnoerr.Unavailable, "the index at %s needs an upgrade to schema %d (from %d) and is busy: searches or syncs by other gno processes hold its tables; retry when they are done", s.Path(), schemaVersion, old)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("upgrade the index at %s: %w", s.Path(), err)
	}
	return gnoerr.Wrap(gnoerr.Unavailable, err, "the index at %s needs an upgrade to schema %d (from %d), which a user that owns its tables must run: open it once as that user", s.Path(), schemaVersion, old)
}

// addSubBounds adds schema 5's columns (schema5) in migrate's
// transaction. For an older index they are added at once (no row is
// rewritten) and filled after that transaction by fillSubs, in short
// ones, so no search waits on the table meanwhile; meta subfill says a
// fill is due, upgraded when the upgrade ran.
func (s *Store) addSubBounds(ctx context.Context, tx pgx.Tx, old int) error {
	t0 := time.Now()
	if _, err := tx.Exec(ctx, schema5); err != nil {
		if old > 0 {
			return s.upgradeErr(err, old)
		}
		return fmt.Errorf("create the index's tables: %w", err)
	}
	if old == 0 {
		return nil
	}
	note := fmt.Sprintf("from schema %d to %d at %s in %.1f s", old, schemaVersion, t0.UTC().Format(time.RFC3339), time.Since(t0).Seconds())
	if _, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES('upgraded', $1), ('subfill', 'pending') ON CONFLICT(key) DO UPDATE SET value = excluded.value`, note); err != nil {
		return fmt.Errorf("upgrade the index at %s: %w", s.Path(), err)
	}
	return nil
}

// subFillPages is how many heap pages of fts_blocks one transaction of
// fillSubs reads (a TID range scan): 16 MiB.
const subFillPages = 2048

// fillSubs runs an upgrade's fill of the blocks' sub-bounds while meta
// subfill says it is due (an open after the upgrade's resumes one cut
// short), a transaction per subFillPages pages, then clears subfill and
// adds the time it took to upgraded. A block without sub-bounds is read
// as one sub-block (exact, less pruning), so a failed fill (a reader
// without the right to update, a cancelled open) costs no answer: the
// open goes on, and doctor says the fill is not complete. Concurrent
// fills and writers are safe: each block's bounds are computed from its
// own row (sub_n says for which n).
func (s *Store) fillSubs(ctx context.Context) {
	if v, err := s.Meta(ctx, "subfill"); err != nil || v == "" {
		return
	}
	t0 := time.Now()
	for p := int64(0); ; p += subFillPages {
		var pages int64
		if err := s.pool.QueryRow(ctx, "SELECT pg_relation_size('fts_blocks') / current_setting('block_size')::bigint").Scan(&pages); err != nil || p >= pages {
			if err != nil {
				return
			}
			break
		}
		if _, err := s.pool.Exec(ctx, fillSubBounds+" AND b.ctid >= $1::tid AND b.ctid < $2::tid",
			fmt.Sprintf("(%d,0)", p), fmt.Sprintf("(%d,0)", p+subFillPages)); err != nil {
			return
		}
	}
	_, _ = s.pool.Exec(ctx, `WITH d AS (DELETE FROM meta WHERE key = 'subfill' RETURNING 1)
		UPDATE meta SET value = value || $1 WHERE key = 'upgraded' AND EXISTS (SELECT 1 FROM d)`,
		fmt.Sprintf("; sub-bounds filled in %.1f s", time.Since(t0).Seconds()))
}
