package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// lockKey is the advisory lock of an index's writer (one per database);
// lockKey+1 serialises schema creation.
const lockKey int64 = 0x676e6f5f77726974 // "gno_writ"

// writeLock is a held writer lock: a session-level advisory lock on a
// connection of its own. A holder that dies loses its connection, and the
// server releases the lock; the next writer takes it over.
type writeLock struct {
	once sync.Once
	conn *pgx.Conn
}

// LockWriter takes the writer lock of the index at the URL u. With wait >
// 0 it retries until wait has passed or ctx ends; otherwise a held lock
// gives gnoerr.Locked at once.
func LockWriter(ctx context.Context, u string, wait time.Duration) (store.Lock, error) {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return nil, connectError(u, err)
	}
	deadline := time.Now().Add(wait)
	for {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&ok); err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("lock the index at %s: %w", store.Redact(u), err)
		}
		if ok {
			return &writeLock{conn: conn}, nil
		}
		if wait <= 0 || time.Now().After(deadline) {
			conn.Close(context.Background())
			return nil, gnoerr.New(gnoerr.Locked, "another gno process is writing to this index (%s)", store.Redact(u))
		}
		select {
		case <-ctx.Done():
			conn.Close(context.Background())
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Unlock releases the lock and its connection.
func (l *writeLock) Unlock() error {
	var err error
	l.once.Do(func() {
		ctx := context.Background()
		_, err = l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey)
		l.conn.Close(ctx)
	})
	return err
}
