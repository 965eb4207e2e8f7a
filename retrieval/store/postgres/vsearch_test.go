package postgres_test

import (
	"context"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestBulkBuildsVectorIndexOnce: vectors stored during a bulk load (as
// `gno store copy` makes) get no HNSW index until EndBulk, which builds
// it once; searches meanwhile still find them (an exact scan). Outside a
// bulk load the first PutVectors makes the index, as before.
func TestBulkBuildsVectorIndexOnce(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	defer st.Close()
	put(t, st, 1, doc("a.md", "kiwi a"), doc("b.md", "kiwi b"))
	a, err := st.DocByPath(ctx, "c", "a.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.DocByPath(ctx, "c", "b.md")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	indexes := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = 'vectors' AND indexdef LIKE '%hnsw%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a0, b0 := store.ChunkID(a.ID, 0), store.ChunkID(b.ID, 0)

	if err := st.BeginBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.PutVectors(ctx, "m", []int64{a0}, [][]float32{{1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutVectors(ctx, "m", []int64{b0}, [][]float32{{0, 1, 0}}); err != nil {
		t.Fatal(err)
	}
	if n := indexes(); n != 0 {
		t.Fatalf("%d HNSW indexes during the bulk load, want 0", n)
	}
	hits, err := st.SearchVectors(ctx, "m", []float32{0, 1, 0}, store.Filter{}, 1)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != b0 {
		t.Fatalf("search during the bulk load: %+v, %v", hits, err)
	}
	if err := st.EndBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if n := indexes(); n != 1 {
		t.Fatalf("%d HNSW indexes after the bulk load, want 1", n)
	}
	hits, err = st.SearchVectors(ctx, "m", []float32{1, 0, 0}, store.Filter{}, 1)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != a0 {
		t.Fatalf("search after the bulk load: %+v, %v", hits, err)
	}

	// Outside a bulk load, a new model's first vectors make its index.
	if err := st.PutVectors(ctx, "m2", []int64{a0}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if n := indexes(); n != 2 {
		t.Fatalf("%d HNSW indexes after a plain PutVectors of a second model, want 2", n)
	}
}
