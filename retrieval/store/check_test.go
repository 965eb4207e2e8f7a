package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
