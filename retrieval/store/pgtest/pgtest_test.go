package pgtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// TestServer checks what the Postgres store will need of the test server:
// version 16+, vector and halfvec round trips through pgx, and an HNSW
// index the planner uses for a filtered nearest-neighbour query. It logs
// the version and whether pg_textsearch (a BM25 extension) is available.
func TestServer(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var version string
	var textsearch bool
	if err := conn.QueryRow(ctx, "SELECT version(), EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_textsearch')").Scan(&version, &textsearch); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; pg_textsearch available: %v", version, textsearch)

	for _, q := range []string{
		"CREATE TABLE chunks (id int PRIMARY KEY, collection text NOT NULL, v vector(3), h halfvec(3))",
		"INSERT INTO chunks SELECT i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, ARRAY[i, 1, 0]::vector, ARRAY[i, 1, 0]::halfvec FROM generate_series(1, 500) i",
		"CREATE INDEX ON chunks USING hnsw (h halfvec_cosine_ops)",
		"ANALYZE chunks",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v pgvector.Vector
	var h pgvector.HalfVector
	if err := conn.QueryRow(ctx, "SELECT v, h FROM chunks WHERE id = 7").Scan(&v, &h); err != nil {
		t.Fatal(err)
	}
	if got := v.Slice(); len(got) != 3 || got[0] != 7 || got[1] != 1 {
		t.Fatalf("vector round trip: %v", got)
	}
	if got := h.Slice(); len(got) != 3 || got[0] != 7 {
		t.Fatalf("halfvec round trip: %v", got)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO chunks(id, collection, h) VALUES (1000, 'a', $1)", pgvector.NewHalfVector([]float32{0, 1, 0})); err != nil {
		t.Fatal(err)
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	rows, err := tx.Query(ctx, "EXPLAIN SELECT id FROM chunks WHERE collection = 'a' ORDER BY h <=> $1 LIMIT 3", pgvector.NewHalfVector([]float32{0, 1, 0}))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if !strings.Contains(plan.String(), "chunks_h_idx") {
		t.Fatalf("the HNSW index is not used:\n%s", plan.String())
	}
	var first int
	if err := tx.QueryRow(ctx, "SELECT id FROM chunks WHERE collection = 'a' ORDER BY h <=> $1 LIMIT 1", pgvector.NewHalfVector([]float32{0, 1, 0})).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first != 1000 {
		t.Fatalf("nearest to [0,1,0] in collection a: %d, want 1000", first)
	}
}

func TestRedact(t *testing.T) {
	if got := pgtest.Redact("postgres://gno:secret@127.0.0.1:5432/gno"); strings.Contains(got, "secret") {
		t.Fatal(got)
	}
}
