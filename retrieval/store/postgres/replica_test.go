package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5"
)

// TestReplicaReads: a store opened with a read URL reads from the
// replica (a write the replica has not replayed is not seen), says how
// far behind it is, and reads from the primary while it holds the
// writer lock.
func TestReplicaReads(t *testing.T) {
	u, w, r, ru := replicated(t)
	ctx := context.Background()

	st := openRead(t, u, ru)
	if _, err := st.DocByPath(ctx, "c", "one.md"); err != nil {
		t.Fatalf("read on the replica: %v", err)
	}
	info, err := st.Server(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The lag is not asserted to be 0: the primary writes WAL of its own
	// (autovacuum, checkpoints, other databases) at any moment.
	if info.Replica == nil || !info.Replica.Standby || info.Replica.Problem != "" || info.Replica.LagBytes < 0 || info.Schema == "" || info.Vector == "" {
		t.Fatalf("server info %+v replica %+v", info, info.Replica)
	}
	// A transaction replayed, so the replica knows when its last one was.
	put(t, w, 2, doc("replayed.md", "kiwi replayed"))
	r.CatchUp(t, u)

	// Replay paused: the primary's next write is not on the replica.
	rc, err := pgx.Connect(ctx, ru)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(ctx)
	if _, err := rc.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	put(t, w, 3, doc("two.md", "kiwi two"))
	if _, err := st.DocByPath(ctx, "c", "two.md"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a read saw a write the replica has not replayed: reads go to the primary (%v)", err)
	}
	// Server's answer is reused for a second: poll.
	waitFor(t, "the paused replica's lag", func() bool {
		info, err = st.Server(ctx)
		return err == nil && info.Replica.LagBytes > 0 && info.Replica.LagSeconds > 0
	})
	// Holding the writer lock, this process reads what it wrote.
	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatalf("the lock's holder reads from the primary: %v", err)
	}
	l.Unlock()
	if _, err := rc.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	r.CatchUp(t, u)
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatalf("after replay: %v", err)
	}
}

// TestReplicaAsWriter: a replica given as the store (the writer's URL)
// is refused with a clear error, by Open and by the lock.
func TestReplicaAsWriter(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	open(t, u).Close()
	r := pgtest.StartReplica(t)
	ru := r.On(t, u)
	r.CatchUp(t, u)
	_, err := store.OpenBackend(ctx, ru)
	if gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(gnoerr.Public(err), "read-only replica") {
		t.Fatalf("open a replica as the store: %v", err)
	}
	_, err = store.LockBackend(ctx, ru, 0)
	if gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(gnoerr.Public(err), "read-only replica") {
		t.Fatalf("lock a replica: %v", err)
	}
	// A SQLite index has no replica to read from.
	if _, err := store.OpenBackendRead(ctx, t.TempDir()+"/index.sqlite", ru); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Fatalf("a read URL for a SQLite index: %v", err)
	}
}

// TestReplicaPromoted: clients search the replica while it is promoted;
// their searches go on, every write acknowledged (and replayed) before
// the promotion is there, and the promoted server takes writes.
func TestReplicaPromoted(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	w := open(t, u)
	defer w.Close()
	const n = 40
	for i := range n {
		put(t, w, int64(i+1), doc(fmt.Sprintf("d%02d.md", i), fmt.Sprintf("kiwi number %d", i)))
	}
	r := pgtest.StartReplica(t)
	ru := r.On(t, u)
	r.CatchUp(t, u)
	st, err := postgres.OpenRead(ctx, u, ru)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var promoted atomic.Bool
	var after atomic.Int64 // searches answered in full after the promotion
	var failures atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				was := promoted.Load()
				hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"kiwi"}}, store.Filter{}, 100)
				switch {
				case err != nil:
					failures.Add(1)
				case len(hits) != n:
					failures.Add(1)
					t.Errorf("a search found %d of the %d documents", len(hits), n)
				case was:
					after.Add(1)
				}
			}
		}()
	}
	start := time.Now()
	r.Promote(t)
	promoted.Store(true)
	t.Logf("promoted in %v (a figure, not a check)", time.Since(start).Round(time.Millisecond))
	waitFor(t, "searches after the promotion", func() bool { return after.Load() >= 20 })
	close(stop)
	wg.Wait()
	if f := failures.Load(); f > 0 {
		t.Logf("%d searches failed while the replica was promoted", f)
	}
	info, err := st.Server(ctx)
	if err != nil || info.Replica == nil || info.Replica.Standby {
		t.Fatalf("after promotion: %+v %v", info, err)
	}
	// The promoted server is a primary: it opens as a store and is written.
	p := open(t, ru)
	defer p.Close()
	put(t, p, n+1, doc("new.md", "kiwi after the failover"))
	hits, err := p.SearchFTS(ctx, query.Keywords{Terms: []string{"kiwi"}}, store.Filter{}, 100)
	if err != nil || len(hits) != n+1 {
		t.Fatalf("on the promoted server: %d hits, %v", len(hits), err)
	}
}

// TestReplicaReadsOwnWrites: a process reading from a replica reads its
// own writes (a batch, as `gno update` writes under the writer lock; a
// tag edit, as MCP's tag tool makes) from the primary until the replica
// has replayed them, and reads the replica again after. Another process
// on the same replica, paused, does not see them: the writer's reads
// did not come from it.
func TestReplicaReadsOwnWrites(t *testing.T) {
	u, w, r, ru := replicated(t)
	ctx := context.Background()
	st, other := openRead(t, u, ru), openRead(t, u, ru)
	one, err := st.DocByPath(ctx, "c", "one.md")
	if err != nil {
		t.Fatal(err)
	}
	replay := replayOf(t, ru)
	replay(false)
	defer replay(true)

	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	put(t, st, 2, doc("two.md", "kiwi two"))
	l.Unlock()
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatalf("the writer's read after its batch: %v", err)
	}
	if _, err := other.DocByPath(ctx, "c", "two.md"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another process on the paused replica saw the batch (%v): the test proves nothing", err)
	}
	err = st.Read(ctx, func(ctx context.Context) error {
		_, err := st.DocByPath(ctx, "c", "two.md")
		return err
	})
	if err != nil {
		t.Fatalf("the writer's snapshot after its batch: %v", err)
	}
	// Replayed, then paused again: the tag edit below is the one write
	// the replica lacks.
	replay(true)
	r.CatchUp(t, u)
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatal(err)
	}
	replay(false)

	if err := st.AddUserTag(ctx, one.ID, "ripe"); err != nil {
		t.Fatal(err)
	}
	hasTag := func(st *postgres.Store) bool {
		t.Helper()
		tags, err := st.DocTags(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range tags[one.ID] {
			if tag == "ripe" {
				return true
			}
		}
		return false
	}
	if !hasTag(st) {
		t.Fatal("the writer's read after its tag edit lacks the tag")
	}
	if hasTag(other) {
		t.Fatal("another process on the paused replica saw the tag")
	}

	// Replayed: the writer reads the replica again, so a write of
	// another process that the paused replica lacks is not seen.
	replay(true)
	r.CatchUp(t, u)
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatal(err)
	}
	replay(false)
	put(t, w, 3, doc("three.md", "kiwi three"))
	if _, err := st.DocByPath(ctx, "c", "three.md"); !errors.Is(err, store.ErrNotFound) {
		_, oerr := other.DocByPath(ctx, "c", "three.md")
		t.Fatalf("after the replica replayed the writer's writes, its reads still go to the primary (%v; the replica's own read: %v)", err, oerr)
	}
}

// replayOf returns a switch of the replica at ru's WAL replay (on:
// resumed, off: paused).
func replayOf(t *testing.T, ru string) func(on bool) {
	t.Helper()
	ctx := context.Background()
	rc, err := pgx.Connect(ctx, ru)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close(ctx) })
	return func(on bool) {
		t.Helper()
		q := "SELECT pg_wal_replay_pause()"
		if on {
			q = "SELECT pg_wal_replay_resume()"
		}
		if _, err := rc.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// openRead opens the index at u reading from the replica at ru, closed
// when the test ends.
func openRead(t *testing.T, u, ru string) *postgres.Store {
	t.Helper()
	st, err := postgres.OpenRead(context.Background(), u, ru)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// replicated is a fresh index at u with one.md written by w, and a
// streaming replica r of it (the index there at ru) that has replayed it.
func replicated(t *testing.T) (u string, w *postgres.Store, r *pgtest.Replica, ru string) {
	t.Helper()
	u = pgtest.Fresh(t)
	w = open(t, u)
	t.Cleanup(func() { w.Close() })
	put(t, w, 1, doc("one.md", "kiwi one"))
	r = pgtest.StartReplica(t)
	ru = r.On(t, u)
	r.CatchUp(t, u)
	return u, w, r, ru
}

// TestReplicaBookkeepingNotOwnWrites: bookkeeping writes (the status
// counts' cache, token use, job records, embedding progress) do not send
// a reader beside a replica to the primary: after them, with replay
// paused, it still reads the replica (a write of another process that
// the replica lacks is not seen). A real write (a tag) still does.
func TestReplicaBookkeepingNotOwnWrites(t *testing.T) {
	u, w, r, ru := replicated(t)
	ctx := context.Background()
	st := openRead(t, u, ru)
	one, err := st.DocByPath(ctx, "c", "one.md")
	if err != nil {
		t.Fatal(err)
	}
	// The token is made by another process (a token's creation is no
	// bookkeeping) and replayed before the pause.
	now := time.Now()
	if _, err := w.PutAccessToken(ctx, store.AccessToken{ID: "tok", SHA256: "ab", Created: now}); err != nil {
		t.Fatal(err)
	}
	r.CatchUp(t, u)
	replay := replayOf(t, ru)
	replay(false)
	defer replay(true)

	put(t, w, 2, doc("two.md", "kiwi two"))
	if err := st.PutCountsCache(ctx, []byte(`{"docs":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchAccessTokens(ctx, map[string]time.Time{"tok": now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutJob(ctx, store.SharedJob{ID: "j1", Running: true, Created: now, Updated: now, State: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.DropJobs(ctx, now.Add(-time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(store.Bookkeeping(ctx), "embed_run", `{"pid":1}`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DocByPath(ctx, "c", "two.md"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after bookkeeping writes only, reads went to the primary (%v)", err)
	}
	if err := st.AddUserTag(ctx, one.ID, "ripe"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DocByPath(ctx, "c", "two.md"); err != nil {
		t.Fatalf("after a tag edit, the writer's reads come from the primary: %v", err)
	}
}
