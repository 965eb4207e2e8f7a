package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gnosearch/gno/retrieval/internal/readhook"
)

// Reads and snapshots.
//
// A read that runs more than one statement must see one committed state of
// the index: a sync committing between the statement that finds a document
// and the one that reads its text would otherwise turn a Get into a bare
// "no rows". Read runs a function in one read transaction; every read
// method of this store called with the context it hands on runs in that
// transaction, so the function sees the index as it was before a sync or
// after it, never a mix. In WAL mode a deferred BEGIN takes its snapshot
// at the first SELECT and holds no lock a writer waits for.
//
// The snapshot travels in the context rather than as a value with its own
// methods so that the read API stays the store's named methods (a second
// backend implements the same ones), every helper a read calls joins the
// snapshot without a parameter, and a read inside a read reuses the
// transaction's connection instead of waiting for a second one. The
// snapshots' connections come from a pool of their own (Open), so a
// reader holding one never starves the bounded pool of single reads and
// writes that another goroutine it waits for may need.

// pool is the store's *sql.DB with its reads routed: a read statement
// whose context carries a live snapshot of this store runs in it, any
// other on the pool. Writes (ExecContext, BeginTx) always use the pool.
type pool struct {
	*sql.DB
	// snaps serves the snapshots' transactions (Open says why apart).
	snaps *sql.DB
}

// Close closes both pools.
func (p *pool) Close() error {
	return errors.Join(p.DB.Close(), p.snaps.Close())
}

// snapshot is one read transaction, keyed in a context by its pool.
type snapshot struct {
	tx *sql.Tx
	// done is set when Read returns: a goroutine that outlived it with
	// the context reads from the pool instead of a finished transaction.
	done atomic.Bool
}

// tx returns the live snapshot transaction ctx carries for p, or nil.
func (p *pool) tx(ctx context.Context) *sql.Tx {
	if sn, ok := ctx.Value(p).(*snapshot); ok && sn != nil && !sn.done.Load() {
		return sn.tx
	}
	return nil
}

// QueryContext runs a read statement in ctx's snapshot, or on the pool.
func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	readhook.Before(ctx)
	if tx := p.tx(ctx); tx != nil {
		return tx.QueryContext(ctx, query, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a one-row read statement in ctx's snapshot, or on
// the pool.
func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	readhook.Before(ctx)
	if tx := p.tx(ctx); tx != nil {
		return tx.QueryRowContext(ctx, query, args...)
	}
	return p.DB.QueryRowContext(ctx, query, args...)
}

// Read runs fn in one read transaction of the index: every read of this
// store made with the context fn receives sees the same committed state.
// Inside a Read of the same store it runs fn in the open one. fn must not
// write through the store (Begin refuses), nor use its context for reads
// after it returns (they would leave the snapshot).
func (s *Store) Read(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, end, err := s.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer end()
	return fn(ctx)
}

// Snapshot is Read for a caller that cannot hand over a function: it
// returns the context whose reads run in the snapshot and the function
// that ends it (call it once, when the reads are done; reads with the
// context after it leave the snapshot). Inside a snapshot of s it returns
// ctx and a no-op.
func (s *Store) Snapshot(ctx context.Context) (context.Context, func(), error) {
	if s.db.tx(ctx) != nil {
		return ctx, func() {}, nil
	}
	// The transaction outlives a cancelled ctx until fn returns:
	// database/sql rolls a transaction back when the context given to
	// BeginTx ends, and the next statement would then fail with its own
	// "sql:" text instead of the context's error. Each statement still
	// watches ctx. ReadOnly makes the driver issue a deferred BEGIN, not
	// the IMMEDIATE one (_txlock) that writes take.
	tx, err := s.db.snaps.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("read index: %w", err)
	}
	sn := &snapshot{tx: tx}
	end := func() {
		if !sn.done.Swap(true) {
			tx.Rollback()
		}
	}
	return context.WithValue(ctx, s.db, sn), end, nil
}

// Detach returns ctx without its read snapshot of s, for work that
// outlives the read or shares nothing with it (loading a cache every
// request uses): its reads take their own connection, so they run beside
// the snapshot's instead of queueing on its one.
func (s *Store) Detach(ctx context.Context) context.Context {
	if s.db.tx(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, s.db, (*snapshot)(nil))
}

// errWriteInRead refuses a write batch begun inside a read snapshot: its
// reads (what is stored) would see the snapshot, not the index it writes.
var errWriteInRead = errors.New("store: a write cannot begin inside a read snapshot")

// readIn runs f in a snapshot of s (Read) and returns its value: the store
// methods that run several statements use it, so each is one state even
// when its caller opened no snapshot.
func readIn[T any](ctx context.Context, s *Store, f func(context.Context) (T, error)) (T, error) {
	var v T
	err := s.Read(ctx, func(ctx context.Context) error {
		var err error
		v, err = f(ctx)
		return err
	})
	return v, err
}
