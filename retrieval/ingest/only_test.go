package ingest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
)

// TestSyncOnly: a sync limited to some paths adds, updates and removes
// exactly those and leaves every other file's entry alone, even files
// that changed or vanished meanwhile (the next full sync sees those).
func TestSyncOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# A\n")
	write("b.md", "# B\n")
	write("c.md", "# C\n")
	st := testStore(t)
	col := config.Collection{Name: "n", Path: dir}
	if _, err := Sync(ctx, st, col, 1, Options{}); err != nil {
		t.Fatal(err)
	}
	write("a.md", "# A changed\n")
	write("new.md", "# New\n")
	write(".git/x.md", "# hidden\n")
	os.Remove(filepath.Join(dir, "b.md"))
	os.Remove(filepath.Join(dir, "c.md"))
	res, err := Sync(ctx, st, col, 2, Options{Only: []string{"a.md", "new.md", "c.md", ".git/x.md", "../escape.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Updated != 1 || res.Removed != 1 {
		t.Fatalf("only: %+v", res)
	}
	states, err := st.DocStates(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a.md", "b.md", "new.md"} {
		if _, ok := states[rel]; !ok {
			t.Errorf("%s missing after the limited sync: %v", rel, states)
		}
	}
	for _, rel := range []string{"c.md", ".git/x.md"} {
		if _, ok := states[rel]; ok {
			t.Errorf("%s indexed: %v", rel, states)
		}
	}
	// A full sync then catches up with b.md.
	if res, err := Sync(ctx, st, col, 3, Options{}); err != nil || res.Removed != 1 {
		t.Fatalf("full sync after: %+v %v", res, err)
	}
}

// TestSyncOnlyUnreadable: a path of Only whose lstat fails for a reason
// other than its absence (EACCES on a folder above it) keeps its document
// and is reported unreadable; a path that is gone is still removed. The
// failure is injected through lstat: the tests run as root.
func TestSyncOnlyUnreadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, rel := range []string{"a.md", "c.md"} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte("# "+rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := testStore(t)
	col := config.Collection{Name: "n", Path: dir}
	if _, err := Sync(ctx, st, col, 1, Options{}); err != nil {
		t.Fatal(err)
	}
	denied := filepath.Join(dir, "a.md")
	lstat = func(p string) (fs.FileInfo, error) {
		if p == denied {
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrPermission}
		}
		return os.Lstat(p)
	}
	t.Cleanup(func() { lstat = os.Lstat })
	os.Remove(filepath.Join(dir, "c.md"))
	res, err := Sync(ctx, st, col, 2, Options{Only: []string{"a.md", "c.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || res.Skipped[SkipUnreadable] != 1 || len(res.Errors) != 1 {
		t.Fatalf("only with a.md unreadable: %+v", res)
	}
	states, err := st.DocStates(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states["a.md"]; !ok || len(states) != 1 {
		t.Errorf("after the limited sync: %v, want a.md alone", states)
	}
}
