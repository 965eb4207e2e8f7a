package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestTouchTokensLockInOrder: the servers of a shared index flush their
// tokens' uses at once, each in one statement that locks the rows it
// updates. They must lock them in one order (the ids'), or two flushes
// of the same tokens could each hold a row the other waits for and
// Postgres would fail one with "deadlock detected". The test holds the
// first token's row: the flush waiting for it must hold no other.
func TestTouchTokensLockInOrder(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	now := time.Unix(1_800_000_000, 0).UTC()
	used := map[string]time.Time{}
	// Stored in the reverse of the ids' order: a plan that scans the
	// table meets t1 last.
	for _, id := range []string{"t6", "t5", "t4", "t3", "t2", "t1"} {
		if _, err := st.PutAccessToken(ctx, store.AccessToken{ID: id, SHA256: "h" + id, Created: now}); err != nil {
			t.Fatal(err)
		}
		used[id] = now.Add(time.Hour)
	}
	holder, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	held, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(ctx)
	if _, err := held.Exec(ctx, "SELECT 1 FROM access_tokens WHERE id = 't1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- st.TouchAccessTokens(ctx, used) }()
	probe, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close(ctx)
	// Wait (on the server's own account, not a time) until the flush
	// waits for a row lock.
	deadline := time.After(2 * time.Minute)
	for waiting := false; !waiting; {
		if err := probe.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE '%access_tokens%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		// Poll gently: the server polled is the one the flush runs on.
		select {
		case err := <-done:
			t.Fatalf("the flush ended (%v) while t1's row was locked", err)
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatal("the flush never waited for t1's row lock")
		}
	}
	tx, err := probe.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, lockErr := tx.Exec(ctx, "SELECT 1 FROM access_tokens WHERE id <> 't1' FOR UPDATE NOWAIT")
	tx.Rollback(ctx)
	if lockErr != nil {
		t.Errorf("waiting for t1, the flush already holds another token's row: %v", lockErr)
	}
	held.Rollback(ctx)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	toks, err := st.AccessTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if !tok.LastUsed.Equal(now.Add(time.Hour)) {
			t.Errorf("token %s last used %v, want %v", tok.ID, tok.LastUsed, now.Add(time.Hour))
		}
	}
	if len(toks) != len(used) {
		t.Errorf("%d tokens, want %d", len(toks), len(used))
	}
}
