//go:build linux

package ingest

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
)

// TestWalkTree pins what a walk finds and skips, whatever reads the
// folders: files in every depth in path order, folders a walk never
// enters (.git, node_modules, excluded), symlinks (a file inside the root
// kept with its target's size, one outside or to a folder skipped, a
// folder link not followed), files the patterns or formats leave out
// never counted, a FIFO and a too-large file, an empty folder, a name
// that is not UTF-8, and a folder of many files (more than one read of
// its entries). It runs twice: with the types the listing gives, and with
// every type unknown (DT_UNKNOWN, as some file systems list), where the
// lstat of each entry tells.
func TestWalkTree(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		t.Run(map[bool]string{false: "typed", true: "unknown"}[unknown], func(t *testing.T) {
			forceUnknownKind = unknown
			t.Cleanup(func() { forceUnknownKind = false })
			testWalkTree(t)
		})
	}
}

func testWalkTree(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel string, size int) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int64{}
	for _, rel := range []string{"a.md", "a-b.md", "a/x.md", "a/b/c.md", "a0.md", "a b.md", "B.md", "é.md", "z/ä.md", "deep/1/2/3/4/5/f.md", "n.txt", "bad\xff.md"} {
		write(rel, len(rel))
		want[rel] = int64(len(rel))
	}
	for i := range 3000 {
		rel := filepath.ToSlash(filepath.Join("many", "a-rather-long-file-name-to-fill-the-buffer-"+string(rune('a'+i%26))+strconv.Itoa(i)+".md"))
		write(rel, 1)
		want[rel] = 1
	}
	for _, rel := range []string{".git/x.md", "node_modules/p/x.md", "skip/x.md", "a/skip/y.md", "x.png", "x.md.bak", "nopattern.go"} {
		write(rel, 1)
	}
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("big.md", 2048)
	os.WriteFile(filepath.Join(outside, "o.md"), []byte("outside"), 0o644)
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(os.Symlink("a/x.md", filepath.Join(root, "inside-link.md")))
	want["inside-link.md"] = int64(len("a/x.md"))
	check(os.Symlink(filepath.Join(outside, "o.md"), filepath.Join(root, "outside-link.md")))
	check(os.Symlink("a", filepath.Join(root, "dirlink.md")))
	check(os.Symlink("a", filepath.Join(root, "dirlink")))
	check(os.Symlink("missing.md", filepath.Join(root, "dangling.md")))
	check(syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644))

	col := config.Collection{Name: "w", Path: root, Pattern: "**/*.{md,txt}", Exclude: []string{"skip/**", "**/skip/**"}}
	res := &Result{}
	cands, unreadable, err := walk(context.Background(), col, Options{MaxFileBytes: 1024}, res)
	check(err)
	if len(unreadable) != 0 {
		t.Errorf("unreadable folders %q in a readable tree", unreadable)
	}
	got := map[string]int64{}
	var order []string
	for _, c := range cands {
		got[c.rel] = c.size
		order = append(order, c.rel)
	}
	if !maps.Equal(got, want) {
		for rel, n := range want {
			if g, ok := got[rel]; !ok || g != n {
				t.Errorf("want %q (%d bytes), got %d, %v", rel, n, g, ok)
			}
		}
		for rel := range got {
			if _, ok := want[rel]; !ok {
				t.Errorf("found %q, not expected", rel)
			}
		}
	}
	if !slices.IsSorted(order) {
		t.Error("the walk is not in path order")
	}
	wantSkips := map[string]int{SkipTooLarge: 1, SkipSymlink: 3}
	if !maps.Equal(res.Skipped, wantSkips) {
		t.Errorf("skipped %v, want %v", res.Skipped, wantSkips)
	}
	// A root that cannot be read is an error, not an empty collection.
	col.Path = filepath.Join(root, "a.md")
	if _, _, err := walk(context.Background(), col, Options{}, &Result{}); err == nil {
		t.Error("a walk of a file as root did not fail")
	}
}
