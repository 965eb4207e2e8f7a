package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestVectorCount checks the count and width of a model's vectors: read
// from the first and last row when they agree, from the widest row when a
// damaged row makes them differ.
func TestVectorCount(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path) // no foreign keys: vectors without chunks
	if err != nil {
		t.Fatal(err)
	}
	add := func(id int, model string, width int) {
		if _, err := db.Exec("INSERT INTO vectors(chunk_id, model, vec) VALUES (?, ?, ?)", id, model, make([]byte, 4*width)); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= 5; id++ {
		add(id, "a", 384)
	}
	add(6, "b", 768)
	add(7, "c", 384)
	add(8, "c", 512) // a damaged row, last
	db.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tc := range []struct {
		model       string
		count, dims int
	}{{"a", 5, 384}, {"b", 1, 768}, {"c", 2, 512}, {"none", 0, 0}} {
		count, dims, err := st.VectorCount(ctx, tc.model)
		if err != nil {
			t.Fatal(err)
		}
		if count != tc.count || dims != tc.dims {
			t.Errorf("model %s: %d vectors of %d dims, want %d of %d", tc.model, count, dims, tc.count, tc.dims)
		}
	}
}
