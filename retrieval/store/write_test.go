package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocStatesOf: the states of named paths equal the whole collection's
// states restricted to them, across the statement's 500-path parts, and
// paths with no document (or in another collection) are absent.
func TestDocStatesOf(t *testing.T) {
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
	for i := range 1200 {
		for _, col := range []string{"a", "b"} {
			d := &Document{Collection: col, RelPath: fmt.Sprintf("d%04d.md", i), Hash: fmt.Sprintf("h%d%s", i, col), Size: int64(i), MtimeNS: int64(2 * i), NoLinks: true}
			if err := b.Put(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	all, err := st.DocStates(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	want := map[string]DocState{}
	for i := 0; i < 1300; i += 2 {
		rel := fmt.Sprintf("d%04d.md", i)
		rels = append(rels, rel)
		if s, ok := all[rel]; ok {
			want[rel] = s
		}
	}
	got, err := st.DocStatesOf(ctx, "a", rels)
	if err != nil {
		t.Fatal(err)
	}
	// DocStates leaves the hash out; DocStatesOf reads it.
	for rel, s := range got {
		if s.Hash == "" {
			t.Fatalf("%s: no hash", rel)
		}
		s.Hash = ""
		got[rel] = s
	}
	if len(want) != 600 || !reflect.DeepEqual(got, want) {
		t.Fatalf("DocStatesOf: %d states, want %d equal to DocStates'", len(got), len(want))
	}
}

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
