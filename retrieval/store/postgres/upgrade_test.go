package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
)

// TestUpgradeWaitsForNoSearch: the upgrade to schema 5 of an index a
// search is reading gives up (no hang, and no search queued behind it)
// with a clear error and changes nothing; once the search ends, it adds
// the columns and fills them after its transaction (fillSubs); a fill
// cut short is shown by doctor and resumed by the next open.
func TestUpgradeWaitsForNoSearch(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	inBatch(ctx, t, st, subDocs("a", 0, 400, ""), "a", nil)
	st.Close()
	conn := toSchema4(ctx, t, u)
	reader, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(ctx)
	tx, err := reader.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM fts_blocks").Scan(&n); err != nil {
		t.Fatal(err)
	}
	postgres.SetUpgradeLockWait(t, "50ms") // the reader holds its lock throughout
	_, err = postgres.Open(ctx, u)
	if err == nil || !strings.Contains(err.Error(), "is busy") || !gnoerr.Is(err, gnoerr.Unavailable) {
		t.Fatalf("upgrade while a search reads: %v", err)
	}
	if p := gnoerr.Public(err); strings.Contains(p, "SQLSTATE") || strings.Contains(p, "lock") && strings.Contains(p, "timeout") {
		t.Errorf("the busy error shows the server's text: %q", p)
	}
	var schema string
	var cols int
	if err := conn.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = 'schema'),
		(SELECT count(*) FROM information_schema.columns WHERE table_name = 'fts_blocks' AND column_name LIKE 'sub_%')`).Scan(&schema, &cols); err != nil || schema != "4" || cols != 0 {
		t.Fatalf("after a busy upgrade: schema %q, %d sub columns (%v); want 4, 0", schema, cols, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	st = open(t, u)
	var bad int
	if err := st.OneForTest(ctx, staleSubs, &bad); err != nil || bad != 0 {
		t.Fatalf("%d blocks without sub-bounds after the upgrade (%v)", bad, err)
	}
	// A fill cut short: doctor says so; the next open finishes it.
	if _, err := conn.Exec(ctx, `UPDATE fts_blocks SET (sub_wf, sub_lr, sub_first, sub_n) = (NULL, NULL, NULL, NULL);
		INSERT INTO meta(key, value) VALUES('subfill', 'pending')`); err != nil {
		t.Fatal(err)
	}
	srv, err := st.Server(ctx)
	if err != nil || !strings.Contains(srv.Schema, "not all filled") {
		t.Fatalf("doctor's schema with the fill unfinished: %q (%v)", srv.Schema, err)
	}
	st.Close()
	st = open(t, u)
	defer st.Close()
	if err := st.OneForTest(ctx, staleSubs, &bad); err != nil || bad != 0 {
		t.Fatalf("%d blocks without sub-bounds after the fill resumed (%v)", bad, err)
	}
	srv, err = st.Server(ctx)
	if err != nil || strings.Contains(srv.Schema, "not all filled") || !strings.Contains(srv.Schema, "sub-bounds filled in") {
		t.Fatalf("doctor's schema after the fill: %q (%v)", srv.Schema, err)
	}
}
