package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestLostConnectionMidBatch: a batch whose connection is cut after it
// has flushed documents to the server (more than one flush's worth) is
// re-run whole in a new transaction (retry.go) from the documents it
// holds: each document lands exactly once, and the statistics count what
// the index holds (nothing of the cut transaction survives beside it).
func TestLostConnectionMidBatch(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Rollback()
	for i := range 700 {
		d := &store.Document{Collection: "c", RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i), Title: "T", Content: "body words",
			Chunks: []chunk.Chunk{{Text: fmt.Sprintf("body words %d", i)}, {Text: "more words"}}}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// The batch's connection is the other one in a transaction (idle, or
	// still writing its last flush).
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND backend_type = 'client backend'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("cut the batch's connection: %d, %v", n, err)
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("a batch re-run after its connection was cut: %v", err)
	}
	want := map[string]int{"documents": 700, "chunks": 1400, "contents": 700}
	for tb, w := range want {
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+tb).Scan(&n); err != nil || n != w {
			t.Errorf("%s: %d rows after a re-run batch, want %d, %v", tb, n, w, err)
		}
	}
	var rows, chunks int
	if err := c.QueryRow(ctx, "SELECT (SELECT rows FROM fts_stats WHERE ix = 0), (SELECT count(*) FROM chunks)").Scan(&rows, &chunks); err != nil || rows != chunks {
		t.Errorf("fts_stats counts %d rows for %d chunks, %v", rows, chunks, err)
	}
	// The store still writes (a new connection).
	b2, err := st.Begin(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := b2.Put(ctx, &store.Document{Collection: "c", RelPath: "a.md", Hash: "a", Chunks: []chunk.Chunk{{Text: "alpha"}}}); err != nil {
		t.Fatal(err)
	}
	if err := b2.Commit(); err != nil {
		t.Fatal(err)
	}
}
