package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestBatchRetriedAfterConnectionLost: the connection of a batch in
// flight is cut by the server (pg_terminate_backend) mid-sync; the batch
// is re-run in a new transaction and lands whole, once, under the
// writer lock it held.
func TestBatchRetriedAfterConnectionLost(t *testing.T) {
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
	put(t, st, 1, doc("before.md", "kiwi before"))

	for _, cutAt := range []string{"put", "commit"} {
		b, err := st.Begin(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if err := b.Put(ctx, doc(fmt.Sprintf("%s%d.md", cutAt, i), fmt.Sprintf("kiwi %s %d", cutAt, i))); err != nil {
				t.Fatal(err)
			}
		}
		// The batch's session: the one in a transaction (the lock's is
		// idle outside one).
		// The server may show its state a moment after it answered: poll.
		var pid uint32
		waitFor(t, "the batch's session", func() bool {
			err := admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
				AND state = 'idle in transaction' AND pid <> pg_backend_pid()`).Scan(&pid)
			return err == nil
		})
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1, 60000)", pid); err != nil {
			t.Fatal(err)
		}
		if cutAt == "put" {
			if err := b.Put(ctx, doc(cutAt+"5.md", "kiwi after the cut")); err != nil {
				t.Fatalf("a put after the batch's connection was cut: %v", err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatalf("commit after the batch's connection was cut (%s): %v", cutAt, err)
		}
	}
	for _, rel := range []string{"before.md", "put0.md", "put4.md", "put5.md", "commit0.md", "commit4.md"} {
		if _, err := st.DocByPath(ctx, "c", rel); err != nil {
			t.Errorf("%s after the re-run: %v", rel, err)
		}
	}
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM documents").Scan(&n); err != nil || n != 12 {
		t.Fatalf("%d documents (%v), want 12: a batch applied twice or lost", n, err)
	}
	if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
		t.Fatalf("statistics after the re-runs: %v %v", probs, err)
	}
}
