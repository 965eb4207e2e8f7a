package postgres

import (
	"context"
	"sync/atomic"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Read-your-writes beside a replica.
//
// A process that reads from a replica (--read-url) and has just written
// to the primary (a `gno update`, a tag edit over MCP, a note written
// through the server) must not then read the replica's older state: the
// index it answers from would lack what it just reported done. So every
// write this process makes on the primary is noticed (rywTracer: a
// statement that is no read), and the next read takes the primary's WAL
// position then as the point the replica must reach; until the replica's
// replay passes it (pg_last_wal_replay_lsn), this process reads from the
// primary. Other processes read the replica as before: they did not
// write, and reading slightly old state is what a replica is for.
// Bookkeeping writes (store.Bookkeeping: the status counts' cache, token
// use, job records, embedding progress) are not noticed: no read depends
// on them, and counting them would send every read after a `gno status`
// or an authenticated request to the primary.

// readYourWrites is a store's write watch: dirty when this process wrote
// since the primary's position was last taken, target that position
// (a WAL byte offset; 0: none pending).
type readYourWrites struct {
	dirty  atomic.Bool
	target atomic.Uint64
	// taking counts reads between clearing dirty and publishing the new
	// target: a read meanwhile must not see "nothing pending" and go to
	// the replica before its own write's position is known.
	taking atomic.Int32
}

// watchWrites returns the write watch of a store opened with cfg, which
// it sets to feed it when there is a replica to read from (readURL).
func watchWrites(cfg *pgxpool.Config, readURL string) *readYourWrites {
	rw := new(readYourWrites)
	if readURL != "" {
		cfg.ConnConfig.Tracer = rywTracer{rw}
	}
	return rw
}

// The statements that write nothing: everything else on the primary's
// pools marks the store dirty (a spurious mark only costs one look at
// the positions).
var readOnlyTags = map[string]bool{"": true, "SELECT": true, "SET": true, "SHOW": true, "BEGIN": true, "ROLLBACK": true}

func (rw *readYourWrites) saw(ctx context.Context, tag pgconn.CommandTag) {
	if !readOnlyTags[firstWord(tag.String())] && !store.IsBookkeeping(ctx) {
		rw.dirty.Store(true)
	}
}

func firstWord(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i]
		}
	}
	return s
}

// rywTracer is the pgx tracer of the primary's pools that feeds
// readYourWrites: statements, batches and COPY.
type rywTracer struct{ rw *readYourWrites }

func (t rywTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (t rywTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	t.rw.saw(ctx, d.CommandTag)
}

func (t rywTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (t rywTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	t.rw.saw(ctx, d.CommandTag)
}

func (t rywTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (t rywTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return ctx
}

func (t rywTracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	if !store.IsBookkeeping(ctx) {
		t.rw.dirty.Store(true)
	}
}

// replicaBehind reports whether the replica has yet to replay a write of
// this process: then reads go to the primary. Any doubt (a position that
// cannot be read) says behind: the primary is never older.
func (s *Store) replicaBehind(ctx context.Context) bool {
	rw := s.rw
	// taking is raised before dirty is cleared, so a read that finds
	// dirty already cleared finds taking raised until the target is out.
	if rw.dirty.Load() {
		rw.taking.Add(1)
		if rw.dirty.Swap(false) {
			// The insert position, not the write position: with
			// synchronous_commit off a commit record can lie past the latter.
			var lsn int64
			if err := s.pool.QueryRow(ctx, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint").Scan(&lsn); err != nil {
				rw.dirty.Store(true)
				rw.taking.Add(-1)
				return true
			}
			for {
				old := rw.target.Load()
				if uint64(lsn) <= old || rw.target.CompareAndSwap(old, uint64(lsn)) {
					break
				}
			}
		}
		rw.taking.Add(-1)
	}
	if rw.taking.Load() > 0 {
		// Another read is taking the position of a write of ours.
		return true
	}
	target := rw.target.Load()
	if target == 0 {
		return false
	}
	// A replica promoted since is a primary: its own position counts.
	var replayed int64
	err := s.rpool.QueryRow(ctx, `SELECT CASE WHEN pg_is_in_recovery() THEN coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)
		ELSE (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint END`).Scan(&replayed)
	if err != nil || uint64(replayed) < target {
		return true
	}
	rw.target.CompareAndSwap(target, 0)
	return false
}
