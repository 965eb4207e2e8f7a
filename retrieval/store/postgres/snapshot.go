package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gnosearch/gno/retrieval/internal/readhook"
	"github.com/jackc/pgx/v5"
)

// Reads and snapshots, as the SQLite store has them (store/snapshot.go):
// a snapshot is one REPEATABLE READ, READ ONLY transaction carried in the
// context, and every read method called with that context runs in it. A
// pgx connection runs one statement at a time, so the snapshot's
// statements take turns (mu); each method reads its rows to the end
// before it returns, so no read waits on another's open rows. The
// snapshots' connections come from a pool of their own (Store.snaps).
// A statement in a snapshot runs to its end even when its context is
// cancelled (the caller gets the context's error after it): pgx closes a
// connection whose statement is cancelled midway, which would fail every
// later read of the snapshot that the rest of a search shares (a budget
// or fusion cutting one stage). SQLite's snapshots behave the same way.

// snapshot is one read transaction, keyed in a context by its store.
type snapshot struct {
	mu   sync.Mutex
	tx   pgx.Tx
	done atomic.Bool
}

// snapKey keys a store's snapshot in a context.
type snapKey struct{ s *Store }

// errWriteInRead refuses a write batch begun inside a read snapshot.
var errWriteInRead = errors.New("store: a write cannot begin inside a read snapshot")

func (s *Store) snap(ctx context.Context) *snapshot {
	if sn, ok := ctx.Value(snapKey{s}).(*snapshot); ok && sn != nil && !sn.done.Load() {
		return sn
	}
	return nil
}

// Read runs fn in one read snapshot of the index (store.Backend).
func (s *Store) Read(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, end, err := s.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer end()
	return fn(ctx)
}

// Snapshot begins a read snapshot and returns its context and the
// function that ends it; inside one it returns ctx and a no-op.
func (s *Store) Snapshot(ctx context.Context) (context.Context, func(), error) {
	if s.snap(ctx) != nil {
		return ctx, func() {}, nil
	}
	// Like SQLite's, the transaction outlives a cancelled ctx until end:
	// each statement still watches ctx.
	_, snaps := s.readers(ctx)
	tx, err := snaps.BeginTx(context.WithoutCancel(ctx), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("read index: %w", err)
	}
	sn := &snapshot{tx: tx}
	end := func() {
		if !sn.done.Swap(true) {
			sn.mu.Lock()
			tx.Rollback(context.Background())
			sn.mu.Unlock()
		}
	}
	return context.WithValue(ctx, snapKey{s}, sn), end, nil
}

// Detach returns ctx without its read snapshot of s.
func (s *Store) Detach(ctx context.Context) context.Context {
	if s.snap(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, snapKey{s}, (*snapshot)(nil))
}

// readIn runs f in a snapshot of s, for methods of several statements.
func readIn[T any](ctx context.Context, s *Store, f func(context.Context) (T, error)) (T, error) {
	var v T
	err := s.Read(ctx, func(ctx context.Context) error {
		var err error
		v, err = f(ctx)
		return err
	})
	return v, err
}

// each runs a read statement in ctx's snapshot (or on the pool) and calls
// fn for each row.
func (s *Store) each(ctx context.Context, q string, args []any, fn func(pgx.Rows) error) error {
	readhook.Before(ctx)
	var rows pgx.Rows
	var err error
	if sn := s.snap(ctx); sn != nil {
		sn.mu.Lock()
		defer sn.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err = sn.tx.Query(context.WithoutCancel(ctx), q, args...)
	} else {
		pool, _ := s.readers(ctx)
		rows, err = pool.Query(ctx, q, args...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// one runs a one-row read statement, scanning into dest; no row is
// pgx.ErrNoRows.
func (s *Store) one(ctx context.Context, q string, args []any, dest ...any) error {
	readhook.Before(ctx)
	if sn := s.snap(ctx); sn != nil {
		sn.mu.Lock()
		defer sn.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sn.tx.QueryRow(context.WithoutCancel(ctx), q, args...).Scan(dest...); err != nil {
			return err
		}
		return ctx.Err()
	}
	pool, _ := s.readers(ctx)
	return pool.QueryRow(ctx, q, args...).Scan(dest...)
}

// ids runs a query of one bigint column and returns its values as a set.
func (s *Store) ids(ctx context.Context, q string, args ...any) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := s.each(ctx, q, args, func(r pgx.Rows) error {
		var id int64
		if err := r.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	return out, err
}
