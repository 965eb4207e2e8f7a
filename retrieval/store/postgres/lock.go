package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The writer lock.
//
// One process writes an index at a time. It holds a session-level
// advisory lock (lockKey) on a connection of its own; the server
// releases it when that session ends: the holder unlocks, exits, is
// killed (the kernel closes its socket) or its connection is cut
// (pg_terminate_backend, a network that drops it: the lock's session
// sets the server's TCP keep-alives, so a silent peer is dropped in
// about half a minute). The next writer, retrying pg_try_advisory_lock,
// then takes it over.
//
// A lock alone does not stop a holder that has lost it from writing
// through its other connections (the pool's). Writes are fenced:
//
//   - Taking the lock bumps an epoch (meta writer_epoch) in the lock's
//     session, and the process remembers it with the session's pid
//     (held, keyed by server and database).
//   - Every write transaction of that process (a sync's batch, a batch of
//     vectors, and the small writes: DropVectors, SetMeta, tags, through
//     fenced) reads the epoch FOR SHARE and checks that its own lock's
//     session still holds the advisory lock (pg_locks), when it begins
//     and again just before COMMIT (fence). A lost lock fails the
//     batch, which rolls back whole: nothing half-written.
//   - The share lock on the epoch's row orders a takeover after every
//     batch in flight: the next holder's bump waits until those commit or
//     roll back, and it returns only after its bump, so a batch that
//     passed its check before COMMIT cannot interleave with the next
//     holder's writes, and a batch begun after the bump sees a newer
//     epoch and fails.
//
// A process writing without holding the lock (the contract tests, a tool)
// is refused only when another session holds it.
//
// A keep-alive (keepAlive) pings the lock's connection while held, so a
// holder learns of a dropped connection between batches too; its next
// batch then fails at once with errLockLost, without a round trip.

// lockKey is the advisory lock of an index's writer (one per database);
// lockKey+1 serialises schema creation.
const lockKey int64 = 0x676e6f5f77726974 // "gno_writ"

// keepAliveEvery is how often a held lock's connection is pinged.
const keepAliveEvery = 5 * time.Second

// lockSessionSettings make the server drop the lock's session, and so
// release the lock, when its peer goes silent (a machine lost, a network
// cut) instead of waiting for the operating system's two hours.
const lockSessionSettings = "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"

// writeLock is a held writer lock: a session-level advisory lock on a
// connection of its own.
type writeLock struct {
	key   string // server and database (dbKey)
	name  string // the URL without its password, for messages
	pid   uint32 // the lock session's backend
	epoch int64

	mu   sync.Mutex // guards conn
	conn *pgx.Conn
	// lost is set (an error) once the connection failed or the lock was
	// released; atomic, so a batch's check never waits on a ping.
	lost atomic.Pointer[error]
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var (
	heldMu sync.Mutex
	// held is the lock this process holds on each database, by dbKey.
	held = map[string]*writeLock{}
)

// dbKey names a database across the spellings of its URL (password,
// parameters): host, port and database name.
func dbKey(cfg *pgconn.Config) string {
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// errLockLost is the error of a write whose process lost the writer lock.
func errLockLost(name string) error {
	return gnoerr.New(gnoerr.Locked, "the writer lock of the index at %s was lost (its connection to the server dropped): this batch was not written; another gno process may be writing now, sync again to continue", name)
}

// LockWriter takes the writer lock of the index at the URL u. With wait >
// 0 it retries until wait has passed or ctx ends; otherwise a held lock
// gives gnoerr.Locked at once.
func LockWriter(ctx context.Context, u string, wait time.Duration) (store.Lock, error) {
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the index store %s is not a valid PostgreSQL URL", store.Redact(u))
	}
	host, _ := os.Hostname()
	cfg.RuntimeParams["application_name"] = lockAppName(host, os.Getpid())
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(u, err)
	}
	name := store.Redact(u)
	if err := refuseReplicaConn(ctx, conn, name); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	if _, err := conn.Exec(ctx, lockSessionSettings); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("lock the index at %s: %w", name, err)
	}
	deadline := time.Now().Add(wait)
	for {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&ok); err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("lock the index at %s: %w", name, err)
		}
		if ok {
			break
		}
		if wait <= 0 || time.Now().After(deadline) {
			conn.Close(context.Background())
			return nil, gnoerr.New(gnoerr.Locked, "another gno process is writing to this index (%s)", name)
		}
		select {
		case <-ctx.Done():
			conn.Close(context.Background())
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	epoch, err := bumpEpoch(ctx, conn)
	if err != nil {
		conn.Close(context.Background())
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" { // insufficient_privilege
			return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "the user of %s may not write the index (its table meta): a writer needs a user that owns the index's tables", name)
		}
		return nil, fmt.Errorf("lock the index at %s: %w", name, err)
	}
	l := &writeLock{key: dbKey(&cfg.Config), name: name, pid: conn.PgConn().PID(), epoch: epoch, conn: conn,
		stop: make(chan struct{}), done: make(chan struct{})}
	heldMu.Lock()
	held[l.key] = l
	heldMu.Unlock()
	go l.keepAlive()
	return l, nil
}

// bumpEpoch starts a new writer epoch (see the comment above) and returns
// it. It waits for the write transactions in flight, which hold the
// epoch's row FOR SHARE. The lock may be taken before the index's tables
// exist (a rebuild), so it makes meta, under migrate's lock.
func bumpEpoch(ctx context.Context, conn *pgx.Conn) (int64, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey+1); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"); err != nil {
		return 0, err
	}
	var epoch int64
	if err := tx.QueryRow(ctx, `INSERT INTO meta(key, value) VALUES('writer_epoch', '1')
		ON CONFLICT(key) DO UPDATE SET value = (meta.value::bigint + 1)::text RETURNING value::bigint`).Scan(&epoch); err != nil {
		return 0, err
	}
	return epoch, tx.Commit(ctx)
}

// keepAlive pings the lock's connection until Unlock; the first failure
// marks the lock lost and closes the connection (the server has released
// the lock, or will when it notices).
func (l *writeLock) keepAlive() {
	defer close(l.done)
	t := time.NewTicker(keepAliveEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*keepAliveEvery)
		err := l.conn.Ping(ctx)
		cancel()
		if err != nil {
			e := errLockLost(l.name)
			l.lost.Store(&e)
			l.conn.Close(context.Background())
		}
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Err is nil while the lock is held, else why it is not (errLockLost).
func (l *writeLock) Err() error {
	if e := l.lost.Load(); e != nil {
		return *e
	}
	return nil
}

// Unlock releases the lock and its connection.
func (l *writeLock) Unlock() error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		heldMu.Lock()
		if held[l.key] == l {
			delete(held, l.key)
		}
		heldMu.Unlock()
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.Err() != nil {
			return // the server released it with the session
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey)
		l.conn.Close(ctx)
		e := errors.New("the writer lock was released")
		l.lost.Store(&e)
	})
	return err
}

// heldLock is the lock this process holds on the database key, or nil.
func heldLock(key string) *writeLock {
	heldMu.Lock()
	defer heldMu.Unlock()
	return held[key]
}

// fenceSQL reads the writer epoch FOR SHARE (ordering a takeover after
// this transaction) and who holds the writer lock. An advisory lock on a
// bigint key shows in pg_locks as classid (high half), objid (low half),
// objsubid 1.
const fenceSQL = `SELECT coalesce((SELECT value::bigint FROM meta WHERE key = 'writer_epoch' FOR SHARE), 0),
	coalesce((SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1 AND granted LIMIT 1), 0)`

// fence checks, inside the write transaction tx, that this process may
// write: it holds the writer lock and no one has taken it over since, or
// (writing without the lock) no one holds it. See the comment above.
func (s *Store) fence(ctx context.Context, tx pgx.Tx) error {
	l := heldLock(s.key)
	if l != nil {
		if err := l.Err(); err != nil {
			return err
		}
	}
	var epoch int64
	var pid uint32
	if err := tx.QueryRow(ctx, fenceSQL, int64(uint64(lockKey)>>32), lockKey&0xffffffff).Scan(&epoch, &pid); err != nil {
		return fmt.Errorf("check the writer lock: %w", err)
	}
	switch {
	case l == nil && pid != 0:
		return gnoerr.New(gnoerr.Locked, "another gno process is writing to this index (%s)", s.Path())
	case l == nil:
		return nil
	case pid != l.pid || epoch != l.epoch:
		return errLockLost(l.name)
	}
	return nil
}

// fenced runs fn in a transaction passing the fence at its start and
// just before COMMIT, as a batch does: the small writes outside batches
// (DropVectors, SetMeta, tags) must not slip past a takeover either.
func (s *Store) fenced(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := s.fence(ctx, tx); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := s.fence(ctx, tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
