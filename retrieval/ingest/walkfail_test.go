package ingest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
)

// TestSyncKeepsUnreadableFolder: a folder that cannot be read between two
// syncs (EACCES, a passing NFS error) keeps the documents under it as they
// are and is reported unreadable, while the rest of the tree syncs as
// usual (a file removed beside it is still removed, paths that sort next
// to it are untouched); once readable again the next sync finds it
// unchanged. The failure is injected through failDir: the tests run as
// root, where chmod 000 does not stop a read.
func TestSyncKeepsUnreadableFolder(t *testing.T) {
	dir := t.TempDir()
	rels := []string{"a.md", "a-b.md", "a/x.md", "a/b/c.md", "a0.md", "ab/y.md"}
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+rel+"\n\ntext of "+rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := testStore(t)
	col := config.Collection{Name: "u", Path: dir, Pattern: "**/*.md"}
	sync, have := syncer(t, st, col)
	if res := sync(1); res.Added != len(rels) {
		t.Fatalf("first sync: %+v", res)
	}

	unreadable := filepath.Join(dir, "a")
	failDir = func(abs string) error {
		if abs == unreadable {
			return &fs.PathError{Op: "open", Path: abs, Err: fs.ErrPermission}
		}
		return nil
	}
	t.Cleanup(func() { failDir = func(string) error { return nil } })
	if err := os.Remove(filepath.Join(dir, "a0.md")); err != nil {
		t.Fatal(err)
	}
	res := sync(2)
	if res.Removed != 1 || res.Added+res.Updated != 0 || res.Unchanged != 3 {
		t.Errorf("sync with a/ unreadable: %+v", res)
	}
	if res.Skipped[SkipUnreadable] != 1 || len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0], "a: folder unreadable") {
		t.Errorf("a/ not reported unreadable: skipped %v, errors %q", res.Skipped, res.Errors)
	}
	want := []string{"a-b.md", "a.md", "a/b/c.md", "a/x.md", "ab/y.md"}
	if got := have(); !slices.Equal(got, want) {
		t.Fatalf("after a sync with a/ unreadable:\n have %q\n want %q", got, want)
	}

	failDir = func(string) error { return nil }
	if res := sync(3); res.Unchanged != len(want) || res.Changed() || len(res.Errors) != 0 {
		t.Errorf("sync with a/ readable again: %+v", res)
	}
}

// TestUnder: documents under an unreadable folder are
// never gone, those beside it (a prefix of the name, not of the path) are.
func TestUnder(t *testing.T) {
	dirs := []string{"a", "c/d"}
	for rel, want := range map[string]bool{"a/x.md": true, "a/b/c.md": true, "a.md": false, "a-b.md": false,
		"ab/x.md": false, "c/d/e.md": true, "c/de.md": false, "c/x.md": false, "a": false} {
		if got := under(rel, dirs); got != want {
			t.Errorf("under(%q, %q) = %v, want %v", rel, dirs, got, want)
		}
	}
	if under("a/x.md", nil) {
		t.Error("under no folder")
	}
}

// TestMergePartsDuplicates: a folder listed twice (getdents while a folder
// is renamed in) is walked twice; each path comes out once.
func TestMergePartsDuplicates(t *testing.T) {
	part := func(rels ...string) []candidate {
		var out []candidate
		for _, r := range rels {
			out = append(out, candidate{rel: r})
		}
		return out
	}
	got := mergeParts([][]candidate{part("a/1.md", "a/2.md"), part("a.md", "b.md"), part("a/1.md", "a/2.md"), part("a/1.md", "a/2.md")}, 8)
	var rels []string
	for _, c := range got {
		rels = append(rels, c.rel)
	}
	if want := []string{"a.md", "a/1.md", "a/2.md", "b.md"}; !slices.Equal(rels, want) {
		t.Errorf("merged %q, want %q", rels, want)
	}
}

// syncer gives a test's full sync of col into st at a generation, and the
// paths the store then holds for col, sorted.
func syncer(t *testing.T, st store.Backend, col config.Collection) (sync func(gen int64) *Result, have func() []string) {
	ctx := context.Background()
	sync = func(gen int64) *Result {
		t.Helper()
		res, err := Sync(ctx, st, col, gen, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	have = func() []string {
		t.Helper()
		states, err := st.DocStates(ctx, col.Name)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rel := range states {
			out = append(out, rel)
		}
		slices.Sort(out)
		return out
	}
	return sync, have
}

// testStore opens a SQLite index of the test's own, closed at its end.
func testStore(t *testing.T) store.Backend {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
