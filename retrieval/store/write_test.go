package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanupVacuums: cleanup drops the documents of removed collections
// and shrinks the file, and its VACUUM (run with file temp storage, so a
// large index is not copied into RAM) leaves every pooled connection with
// the store's in-memory temp storage.
func TestCleanupVacuums(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		d := &Document{Collection: "gone", RelPath: fmt.Sprintf("d%d.md", i), Hash: "h", Content: strings.Repeat("text ", 400), NoLinks: true}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	n, err := st.Cleanup(ctx, []string{"kept"})
	if err != nil || n != 300 {
		t.Fatalf("cleanup: %d dropped, %v", n, err)
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if after.Size() >= before.Size() {
		t.Errorf("file %d bytes before cleanup, %d after", before.Size(), after.Size())
	}
	conns := make([]*sql.Conn, 4)
	for i := range conns {
		c, err := st.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
		var ts int
		if err := c.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&ts); err != nil || ts != 2 {
			t.Errorf("connection %d: temp_store %d (%v), want 2 (memory)", i, ts, err)
		}
	}
}

// TestDocStatesEitherPlan: a collection that is most of the table (read
// in rowid order) and one that is a small part of it (read by its index)
// give every one of their documents' states and no other collection's.
func TestDocStatesEitherPlan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{"big": 40, "small": 3}
	for col, n := range counts {
		for i := range n {
			d := &Document{Collection: col, RelPath: fmt.Sprintf("d%02d.md", i), Hash: "h", Size: int64(i), MtimeNS: int64(1000 + i), Content: "x", NoLinks: true}
			if err := b.Put(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	counts["none"] = 0
	for col, n := range counts {
		states, err := st.DocStates(ctx, col)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != n {
			t.Fatalf("DocStates(%s): %d states, want %d", col, len(states), n)
		}
		var id int64
		for i := range n {
			s, ok := states[fmt.Sprintf("d%02d.md", i)]
			if err := st.db.QueryRowContext(ctx, "SELECT id FROM documents WHERE collection = ? AND rel_path = ?", col, fmt.Sprintf("d%02d.md", i)).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if !ok || s.ID != id || s.Size != int64(i) || s.MtimeNS != int64(1000+i) || s.Hash != "" {
				t.Errorf("DocStates(%s) d%02d.md: %+v (id %d)", col, i, s, id)
			}
		}
	}
}
