package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
)

func TestCheck(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "i.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{Collection: "c", RelPath: "a.md", Hash: "h", Content: "# A\n\nbody text\n",
		Chunks: []chunk.Chunk{{Text: "# A", EndByte: 3}, {Text: "body text", StartByte: 5, EndByte: 14}}}
	if err := b.Put(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if p, err := st.Check(ctx); err != nil || len(p) > 0 {
		t.Fatalf("healthy index: %v %v", p, err)
	}
	// Half-index the document behind the store's back.
	if _, err := st.db.Exec("DELETE FROM contents"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec("PRAGMA foreign_keys = OFF; DELETE FROM chunks WHERE seq = 0"); err != nil {
		t.Fatal(err)
	}
	p, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p, "; ")
	for _, want := range []string{"documents without content", "chunk sequence has gaps"} {
		if !strings.Contains(got, want) {
			t.Errorf("check missed %q: %s", want, got)
		}
	}
}

// TestQuickCheck: status's check passes a healthy index, names the b-tree
// of a damaged page, and checks the FTS5 tables' own b-trees while
// leaving their content check to doctor.
func TestQuickCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "i.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		body := strings.Repeat(fmt.Sprintf("word%d text of a document ", i), 20)
		doc := &Document{Collection: "c", RelPath: fmt.Sprintf("d%03d.md", i), Hash: fmt.Sprint(i), Content: body,
			Chunks: []chunk.Chunk{{Text: body, EndByte: len(body)}}}
		if err := b.Put(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if p := st.QuickCheck(ctx, time.Minute); p != "" {
		t.Fatalf("healthy index: %s", p)
	}
	tables, err := st.btreeTables(ctx)
	if err != nil || !slices.Contains(tables, "chunks_fts_data") || !slices.Contains(tables, "contents") || slices.Contains(tables, "chunks_fts") {
		t.Fatalf("b-tree tables %v (%v): want the FTS5 shadow tables and not the virtual ones", tables, err)
	}
	var root, pageSize int64
	if err := st.db.QueryRow("SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_schema WHERE name = 'contents'").Scan(&root, &pageSize); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Damage the root page of contents: its page type byte.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0x07, 0xff, 0xff}, (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if p := st.QuickCheck(ctx, time.Minute); p == "" {
		t.Fatal("damaged page not found")
	} else {
		t.Logf("found: %s", p)
	}
}
