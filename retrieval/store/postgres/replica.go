package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads on a streaming replica.
//
// A store opened with a read URL (OpenRead: `--read-url`, `read_store:`,
// GNO_STORE_READ_URL) sends its reads and read snapshots to that server,
// a streaming replica of the primary, and its writes and the writer lock
// to the primary. While this process holds the writer lock (a syncing
// daemon, gno update), its reads go to the primary too: a writer must
// read what it has just written (the documents' states a sync compares
// with the files), which a replica shows only after its replay; and
// after any write of its own, until the replica has replayed it (ryw.go).
//
// Replication is asynchronous: a reader sees the index as it was some
// time ago. ServerInfo measures how long ago (pg_last_xact_replay_timestamp
// against the primary's clock) and how many bytes of WAL the replica has
// still to replay (the primary's LSN minus the replica's replayed one).
// A replica promoted to primary keeps its connections: reads go on.

// readers returns the pools reads use: the replica's, unless there is
// none, this process holds the writer lock, or the replica has yet to
// replay a write of this process (ryw.go).
func (s *Store) readers(ctx context.Context) (pool, snaps *pgxpool.Pool) {
	if s.rpool == nil || heldLock(s.key) != nil || s.replicaBehind(ctx) {
		return s.pool, s.snaps
	}
	return s.rpool, s.rsnaps
}

// openReplica connects the read pools to readURL.
func (s *Store) openReplica(ctx context.Context, readURL string) error {
	cfg, err := poolConfig(readURL)
	if err != nil {
		return err
	}
	rpool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return connectError(readURL, err)
	}
	var schema string
	if err := rpool.QueryRow(ctx, "SELECT coalesce((SELECT value FROM meta WHERE key = 'schema'), '')").Scan(&schema); err != nil {
		rpool.Close()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
			return gnoerr.Wrap(gnoerr.Unavailable, err, "the read replica %s has no gno index: give a replica of the store %s", store.Redact(readURL), s.Path())
		}
		return connectError(readURL, err)
	}
	scfg := cfg.Copy()
	scfg.MaxConns = snapConns
	rsnaps, err := pgxpool.NewWithConfig(ctx, scfg)
	if err != nil {
		rpool.Close()
		return connectError(readURL, err)
	}
	s.rpool, s.rsnaps, s.readURL = rpool, rsnaps, readURL
	return nil
}

// refuseReplica refuses a server in recovery (a streaming replica) as
// the index's store, the writer's server: its writes would fail one by
// one, late, in the server's words.
func (s *Store) refuseReplica(ctx context.Context) error {
	var standby bool
	if err := s.pool.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil {
		return fmt.Errorf("ask %s whether it is a replica: %w", s.Path(), err)
	}
	if standby {
		return errReplicaWriter(s.Path())
	}
	return nil
}

// refuseReplicaConn is refuseReplica on one connection (the lock's).
func refuseReplicaConn(ctx context.Context, conn *pgx.Conn, name string) error {
	var standby bool
	if err := conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil {
		return fmt.Errorf("ask %s whether it is a replica: %w", name, err)
	}
	if standby {
		return errReplicaWriter(name)
	}
	return nil
}

func errReplicaWriter(name string) error {
	return gnoerr.New(gnoerr.InvalidInput, "PostgreSQL at %s is a read-only replica (in recovery), so it cannot be the index's store: give the primary as the store, and this server as the read URL (--read-url, read_store:, GNO_STORE_READ_URL)", name)
}
