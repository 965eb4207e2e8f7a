package postgres_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5"
)

// helperEnv names the variable that makes this test binary a writer
// process for TestLockTakeoverAfterKill (TestLockHelperProcess).
const helperEnv = "GNO_TEST_LOCK_HELPER_URL"

// doc is a one-chunk document at rel.
func doc(rel, text string) *store.Document {
	return &store.Document{Collection: "c", RelPath: rel, Hash: "h" + text, Content: text,
		Chunks: []chunk.Chunk{{Text: text, StartLine: 1, EndLine: 1}}}
}

// TestLockHelperProcess is not a test: run by TestLockTakeoverAfterKill
// as a separate process, it takes the writer lock, writes a document in
// a batch it never commits, says so on stdout and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	u := os.Getenv(helperEnv)
	if u == "" {
		t.Skip("a helper process of TestLockTakeoverAfterKill")
	}
	ctx := context.Background()
	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer l.Unlock()
	st, err := store.OpenBackend(ctx, u)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	b, err := st.Begin(ctx, 7)
	if err == nil {
		err = b.Put(ctx, doc("half.md", "never committed"))
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("mid-batch")
	// Killed here; stdin closes only if the parent dies first.
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(3)
}

// TestLockTakeoverAfterKill: a writer process killed (kill -9) in the
// middle of a batch leaves nothing of the batch, and another process
// takes the lock over and writes.
func TestLockTakeoverAfterKill(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	open(t, u).Close() // the tables

	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+u)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "mid-batch" {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	if _, err := store.LockBackend(ctx, u, 0); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("lock held by the helper: %v, want LOCKED", err)
	}
	st := open(t, u)
	defer st.Close()
	if _, err := st.Begin(ctx, 8); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("a write without the lock while another process holds it: %v, want LOCKED", err)
	}

	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	// The server notices the closed socket; LockWriter polls until then.
	l, err := store.LockBackend(ctx, u, 2*time.Minute)
	if err != nil {
		t.Fatalf("take over after kill -9: %v", err)
	}
	t.Logf("lock taken over %v after the kill (a figure, not a check)", time.Since(killed).Round(time.Millisecond))
	defer l.Unlock()
	if d, err := st.DocByPath(ctx, "c", "half.md"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the killed batch left %+v (%v)", d, err)
	}
	put(t, st, 8, doc("after.md", "written by the new holder"))
	if d, err := st.DocByPath(ctx, "c", "after.md"); err != nil || d == nil {
		t.Fatalf("the new holder's write: %+v (%v)", d, err)
	}
	if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("index after takeover: %v %v", probs, err)
	}
}

func put(t *testing.T, st store.Backend, gen int64, docs ...*store.Document) {
	t.Helper()
	ctx := context.Background()
	b, err := st.Begin(ctx, gen)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := b.Put(ctx, d); err != nil {
			b.Rollback()
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// lockPID is the backend holding the index's writer lock, 0 if none.
func lockPID(t *testing.T, admin *pgx.Conn) uint32 {
	t.Helper()
	var pid uint32
	err := admin.QueryRow(context.Background(), `SELECT coalesce((SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND granted AND classid::bigint = 1735290719), 0)`).Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestLockConnectionCut: the lock's connection cut by the server
// (pg_terminate_backend) in the middle of a batch: the batch fails at
// its commit and leaves nothing, the holder's next batch fails, the
// keep-alive notices, and a new holder's takeover waits for the batch
// in flight, then writes.
func TestLockConnectionCut(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	l1, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Unlock()
	put(t, st, 1, doc("first.md", "written while held"))
	b, err := st.Begin(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, doc("cut.md", "in flight when the lock is lost")); err != nil {
		t.Fatal(err)
	}
	pid := lockPID(t, admin)
	if pid == 0 {
		t.Fatal("no session holds the writer lock")
	}
	var ok bool
	if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1, 60000)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate the lock's session: %v %v", ok, err)
	}

	// Another writer takes the lock over; its epoch waits for the batch
	// in flight, which holds the epoch's row.
	type res struct {
		l   store.Lock
		err error
	}
	took := make(chan res, 1)
	go func() {
		l, err := store.LockBackend(ctx, u, 2*time.Minute)
		took <- res{l, err}
	}()
	waitFor(t, "the new holder waiting on the batch in flight", func() bool {
		var n int
		admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		return n > 0
	})
	if err := b.Commit(); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("commit after the lock was lost: %v, want LOCKED", err)
	}
	r := <-took
	if r.err != nil {
		t.Fatalf("take over: %v", r.err)
	}
	defer r.l.Unlock()
	if d, err := st.DocByPath(ctx, "c", "cut.md"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the failed batch left %+v (%v)", d, err)
	}
	// This process holds the new lock now: its writes go on under it.
	put(t, st, 3, doc("third.md", "under the new lock"))
	if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("index after the cut: %v %v", probs, err)
	}
}

// TestLockLostNoticed: a holder whose lock's connection is cut learns it
// from the keep-alive, and its next batch fails before writing.
func TestLockLostNoticed(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1, 60000)", lockPID(t, admin)); err != nil {
		t.Fatal(err)
	}
	lost, ok := l.(interface{ Err() error })
	if !ok {
		t.Fatal("the lock has no Err")
	}
	waitFor(t, "the keep-alive to notice", func() bool { return lost.Err() != nil })
	if _, err := st.Begin(ctx, 2); gnoerr.CodeOf(err) != gnoerr.Locked || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("a batch after the lock was lost: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatalf("unlock of a lost lock: %v", err)
	}
	// Released, the process writes as one without the lock again.
	put(t, st, 2, doc("free.md", "no one holds the lock"))
}

// waitFor polls cond until it holds, failing t after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSmallWritesFenced: DropVectors, SetMeta and the tag writes pass the
// writer lock's fence like a batch: refused (LOCKED, nothing written)
// while another session holds the lock, written once it is free.
func TestSmallWritesFenced(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	put(t, st, 1, doc("a.md", "a document to tag"))
	d, err := st.DocByPath(ctx, "c", "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUserTag(ctx, d.ID, "kept"); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// Another session takes the writer lock (as another gno would).
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", postgres.LockKey); err != nil {
		t.Fatal(err)
	}
	writes := map[string]func() error{
		"DropVectors": func() error { return st.DropVectors(ctx, "") },
		"SetMeta":     func() error { return st.SetMeta(ctx, "fenced", "x") },
		"AddUserTag":  func() error { return st.AddUserTag(ctx, d.ID, "new") },
		"RemoveTag": func() error {
			_, err := st.RemoveTag(ctx, d.ID, "kept")
			return err
		},
		"RestoreUserTags": func() error {
			return st.RestoreUserTags(ctx, []store.UserTag{{Collection: "c", RelPath: "a.md", Tag: "restored"}})
		},
	}
	for name, w := range writes {
		if err := w(); gnoerr.CodeOf(err) != gnoerr.Locked {
			t.Errorf("%s while another session holds the lock: %v, want LOCKED", name, err)
		}
	}
	if v, err := st.Meta(ctx, "fenced"); err != nil || v != "" {
		t.Errorf("meta written past the fence: %q, %v", v, err)
	}
	if m, err := st.DocByPath(ctx, "c", "a.md"); err != nil || strings.Join(m.Tags, ",") != "kept" {
		t.Errorf("tags changed past the fence: %+v, %v", m, err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", postgres.LockKey); err != nil {
		t.Fatal(err)
	}
	for name, w := range writes {
		if err := w(); err != nil {
			t.Errorf("%s with the lock free: %v", name, err)
		}
	}
	if v, err := st.Meta(ctx, "fenced"); err != nil || v != "x" {
		t.Errorf("meta after the lock was freed: %q, %v", v, err)
	}
}
