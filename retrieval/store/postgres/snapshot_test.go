package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5"
)

// TestSnapshotOutlivesACancelledRead: a search stage whose context is
// cut (a budget, fusion done early) while its statement runs must not
// break the read snapshot the rest of the search shares: as with SQLite,
// the next read in the snapshot works. pgx closes a connection whose
// statement's context is cancelled mid-statement, which once failed
// `gno_query` fast with "conn closed" under load (reliability TestPGMulti).
func TestSnapshotOutlivesACancelledRead(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, end, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	stage, cancel := context.WithCancel(snap)
	// Cut the stage while its statement runs on the server: wait until
	// the server shows it running, then cancel (no timing assumed).
	var one int
	done := make(chan error, 1)
	go func() { done <- s.OneForTest(stage, "SELECT 1 FROM pg_sleep(1) AS gno_snapshot_cut", &one) }()
	watch, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	for deadline := time.Now().Add(time.Minute); ; {
		var n int
		if err := watch.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%AS gno_snapshot_cut%' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the read never showed on the server")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a read whose context was cancelled reported no error")
	}
	if err := s.OneForTest(snap, "SELECT 2", &one); err != nil || one != 2 {
		t.Fatalf("the snapshot after a cancelled read: %d, %v", one, err)
	}
	// A context cancelled before the read touches nothing either.
	if err := s.OneForTest(stage, "SELECT 3", &one); err == nil {
		t.Fatal("a read with a cancelled context ran")
	}
	if err := s.OneForTest(snap, "SELECT 4", &one); err != nil || one != 4 {
		t.Fatalf("the snapshot after a refused read: %d, %v", one, err)
	}
}
