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
