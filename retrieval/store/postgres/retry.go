package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A lost connection mid-sync.
//
// A write batch is one transaction on one connection of the pool. When
// that connection is lost (a server restarted or failed over, a backend
// terminated, a network cut), the server rolls the transaction back:
// nothing of it is written. retryBatch then re-runs the whole batch in a
// new transaction on a new connection: it keeps the calls made so far
// and replays them. A COMMIT whose answer was lost is ambiguous; the
// batch's token, written in its transaction (meta last_batch), tells
// whether it landed, so a batch is never applied twice. The new
// transaction passes the writer lock's fence like the first (lock.go): a
// process whose lock went with the connection stops instead.

// batchRetries is how many times one batch is re-run.
const batchRetries = 3

// retryBatch is the store.WriteBatch Begin returns: a batch that re-runs
// itself on a lost connection.
type retryBatch struct {
	s     *Store
	ctx   context.Context // Begin's, for the re-runs of Commit
	gen   int64
	token string
	b     *batch
	ops   []func(context.Context, *batch) error
	tries int
}

// Begin starts a write batch for sync generation gen.
func (s *Store) Begin(ctx context.Context, gen int64) (store.WriteBatch, error) {
	var t [12]byte
	rand.Read(t[:])
	r := &retryBatch{s: s, ctx: context.WithoutCancel(ctx), gen: gen, token: hex.EncodeToString(t[:])}
	for {
		err := r.start(ctx)
		if err == nil {
			return r, nil
		}
		if !r.again(ctx, err) {
			return nil, err
		}
	}
}

// start begins a new transaction and marks it with the batch's token.
func (r *retryBatch) start(ctx context.Context) error {
	b, err := r.s.beginGen(ctx, r.gen)
	if err != nil {
		return err
	}
	if _, err := b.tx.Exec(ctx, "INSERT INTO meta(key, value) VALUES('last_batch', $1) ON CONFLICT(key) DO UPDATE SET value = excluded.value", r.token); err != nil {
		b.Rollback()
		return fmt.Errorf("begin write: %w", err)
	}
	r.b = b
	return nil
}

// again reports whether err is a lost connection worth another try,
// counts the try and waits a little longer each time (a server
// restarting or failing over takes seconds to accept connections again).
func (r *retryBatch) again(ctx context.Context, err error) bool {
	if !connLost(err) || r.tries >= batchRetries {
		return false
	}
	r.tries++
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Duration(r.tries*r.tries) * retryPause):
	}
	return true
}

// retryPause is the wait before the first re-run of a batch; the n-th
// waits n² times as long.
const retryPause = 250 * time.Millisecond

// do runs op on the batch and keeps it for a re-run; a lost connection
// re-runs every op so far in a new transaction.
func (r *retryBatch) do(ctx context.Context, op func(context.Context, *batch) error) error {
	r.ops = append(r.ops, op)
	err := op(ctx, r.b)
	for err != nil && r.again(ctx, err) {
		err = r.rerun(ctx)
	}
	return err
}

// rerun abandons the transaction and replays the batch's ops in a new
// one.
func (r *retryBatch) rerun(ctx context.Context) error {
	r.b.Rollback()
	if err := r.start(ctx); err != nil {
		return err
	}
	for _, op := range r.ops {
		if err := op(ctx, r.b); err != nil {
			return err
		}
	}
	return nil
}

func (r *retryBatch) Put(ctx context.Context, d *store.Document) error {
	// A copy: the replay must write what was put, even if the caller
	// reuses its Document after Put returns.
	dd := *d
	return r.do(ctx, func(ctx context.Context, b *batch) error { return b.Put(ctx, &dd) })
}

func (r *retryBatch) Touch(ctx context.Context, id, size, mtimeNS int64) error {
	return r.do(ctx, func(ctx context.Context, b *batch) error { return b.Touch(ctx, id, size, mtimeNS) })
}

func (r *retryBatch) Remove(ctx context.Context, id int64) error {
	return r.do(ctx, func(ctx context.Context, b *batch) error { return b.Remove(ctx, id) })
}

func (r *retryBatch) PutSkip(ctx context.Context, collection, rel string, st store.SkipState) error {
	return r.do(ctx, func(ctx context.Context, b *batch) error { return b.PutSkip(ctx, collection, rel, st) })
}

func (r *retryBatch) DeleteSkip(ctx context.Context, collection, rel string) error {
	return r.do(ctx, func(ctx context.Context, b *batch) error { return b.DeleteSkip(ctx, collection, rel) })
}

// Commit commits the batch; a lost connection re-runs it, unless its
// COMMIT landed before the connection went.
func (r *retryBatch) Commit() error {
	err := r.b.Commit()
	for err != nil {
		if !connLost(err) {
			return err
		}
		landed, lerr := r.landed()
		for lerr != nil && r.again(r.ctx, lerr) {
			landed, lerr = r.landed()
		}
		switch {
		case lerr == nil && landed:
			return nil
		case lerr != nil:
			// Whether the COMMIT landed is unknown: say so, not "nothing".
			return gnoerr.Wrap(gnoerr.Unavailable, err, "the connection to the index store %s was lost while committing a batch, and whether it was written could not be checked: sync again (a sync converges either way)", r.s.Path())
		case !r.again(r.ctx, err):
			return gnoerr.Wrap(gnoerr.Unavailable, err, "the connection to the index store %s was lost while writing a batch, and %d tries to write it again failed: nothing of the batch was written; sync again", r.s.Path(), r.tries)
		}
		if err = r.rerun(r.ctx); err == nil {
			err = r.b.Commit()
		}
	}
	return nil
}

// landed reports whether the batch's COMMIT reached the server: its
// token is the last batch's.
func (r *retryBatch) landed() (bool, error) {
	var tok string
	err := r.s.pool.QueryRow(r.ctx, "SELECT value FROM meta WHERE key = 'last_batch'").Scan(&tok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return tok == r.token, err
}

// Rollback abandons the batch.
func (r *retryBatch) Rollback() error { return r.b.Rollback() }

// connLost reports whether err is the loss of the connection (the
// transaction on it rolled back by the server), not an error of the
// statements: a re-run on a new connection may succeed.
func connLost(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 57P01 admin_shutdown (pg_terminate_backend, a fast shutdown),
		// 57P02 crash_shutdown, 57P03 cannot_connect_now, class 08:
		// connection exceptions.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ne) || errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection reset")
}

// isPgError recognises the errors that carry the server's or the
// driver's text.
func isPgError(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	var se pgx.ScanArgError
	if errors.As(err, &pe) || errors.As(err, &ce) || errors.As(err, &se) || errors.Is(err, pgx.ErrNoRows) || errors.Is(err, pgx.ErrTxClosed) ||
		pgconn.Timeout(err) || pgconn.SafeToRetry(err) {
		return true
	}
	// A read racing Close at shutdown, or a connection the server dropped:
	// pgx and its pool say so in their own words, with no type to match.
	msg := err.Error()
	return strings.Contains(msg, "closed pool") || strings.Contains(msg, "conn closed") || strings.Contains(msg, "conn busy")
}
