package watch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
)

// recorder collects what a Watcher reports.
type recorder struct {
	syncs chan []Change
	hooks chan []string
}

func newRecorder() *recorder {
	return &recorder{syncs: make(chan []Change, 16), hooks: make(chan []string, 16)}
}

func (r *recorder) next(t *testing.T) []Change {
	t.Helper()
	select {
	case c := <-r.syncs:
		return c
	case <-time.After(time.Minute):
		t.Fatal("no sync within a minute")
		return nil
	}
}

// settled flushes w (every event queued so far reaches Sync before Flush
// returns) and returns every sync delivered since the last read, merged
// per collection (a whole collection absorbs its paths), or nil. A file
// write is several events (create, write) that a busy machine may hand
// over across two quiet times; merged, the answer does not depend on
// where the quiet time fell.
func (r *recorder) settled(t *testing.T, ctx context.Context, w *Watcher) []Change {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := w.Flush(fctx); err != nil {
		t.Fatal(err)
	}
	whole, paths := map[string]bool{}, map[string]map[string]bool{}
	for {
		select {
		case cs := <-r.syncs:
			for _, c := range cs {
				if c.Paths == nil {
					whole[c.Collection] = true
					continue
				}
				if paths[c.Collection] == nil {
					paths[c.Collection] = map[string]bool{}
				}
				for _, p := range c.Paths {
					paths[c.Collection][p] = true
				}
			}
			continue
		default:
		}
		break
	}
	names := map[string]bool{}
	for n := range whole {
		names[n] = true
	}
	for n := range paths {
		names[n] = true
	}
	var out []Change
	for n := range names {
		c := Change{Collection: n}
		if !whole[n] {
			for p := range paths[n] {
				c.Paths = append(c.Paths, p)
			}
			sort.Strings(c.Paths)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Collection < out[j].Collection })
	return out
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// running starts a Watcher's Run until the test ends, and returns it with
// Run's context.
func running(t *testing.T, opt Options) (*Watcher, context.Context) {
	t.Helper()
	w, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w, ctx
}

// TestWatch: the first sync names every collection whole; a changed note
// is reported alone; a new folder syncs its collection whole; files a
// sync would not read (.git, a swap file) start nothing; a hook sees its
// file; Rescan picks up a new collection.
func TestWatch(t *testing.T) {
	root := t.TempDir()
	notes := filepath.Join(root, "notes")
	write(t, filepath.Join(notes, "a.md"), "# A\n")
	write(t, filepath.Join(notes, ".git", "HEAD"), "ref\n")
	lock := filepath.Join(root, "proj", "go.sum")
	write(t, lock, "x\n")
	var mu sync.Mutex
	cols := []config.Collection{{Name: "notes", Path: notes}}
	rec := newRecorder()
	w, err := New(Options{
		Collections: func() []config.Collection {
			mu.Lock()
			defer mu.Unlock()
			return append([]config.Collection(nil), cols...)
		},
		Sync:     func(_ context.Context, c []Change) { rec.syncs <- c },
		Debounce: 50 * time.Millisecond,
		Hooks: []Hook{{Name: "lockfiles", Paths: func() []string { return []string{lock} },
			Changed: func(_ context.Context, p []string) { rec.hooks <- p }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	if got := rec.next(t); !reflect.DeepEqual(got, []Change{{Collection: "notes"}}) {
		t.Fatalf("first sync %+v", got)
	}
	write(t, filepath.Join(notes, "b.md"), "# B\n")
	if got := rec.settled(t, ctx, w); !reflect.DeepEqual(got, []Change{{Collection: "notes", Paths: []string{"b.md"}}}) {
		t.Fatalf("new note: %+v", got)
	}
	write(t, filepath.Join(notes, ".git", "index"), "x")
	write(t, filepath.Join(notes, ".b.md.swp"), "x")
	if got := rec.settled(t, ctx, w); got != nil {
		t.Fatalf("unexpected sync %+v", got)
	}

	write(t, filepath.Join(notes, "sub", "c.md"), "# C\n")
	if got := rec.settled(t, ctx, w); !reflect.DeepEqual(got, []Change{{Collection: "notes"}}) {
		t.Fatalf("new folder: %+v", got)
	}
	// The new folder is watched now: a file in it is reported alone.
	write(t, filepath.Join(notes, "sub", "d.md"), "# D\n")
	if got := rec.settled(t, ctx, w); !reflect.DeepEqual(got, []Change{{Collection: "notes", Paths: []string{"sub/d.md"}}}) {
		t.Fatalf("note in new folder: %+v", got)
	}
	if err := os.Remove(filepath.Join(notes, "a.md")); err != nil {
		t.Fatal(err)
	}
	if got := rec.next(t); !reflect.DeepEqual(got, []Change{{Collection: "notes", Paths: []string{"a.md"}}}) {
		t.Fatalf("removed note: %+v", got)
	}

	write(t, lock, "y\n")
	select {
	case p := <-rec.hooks:
		if !reflect.DeepEqual(p, []string{lock}) {
			t.Errorf("hook paths %v", p)
		}
	case <-time.After(time.Minute):
		t.Fatal("hook not called within a minute")
	}

	more := filepath.Join(root, "more")
	write(t, filepath.Join(more, "e.md"), "# E\n")
	mu.Lock()
	cols = append(cols, config.Collection{Name: "more", Path: more})
	mu.Unlock()
	w.Rescan()
	if got := rec.next(t); !reflect.DeepEqual(got, []Change{{Collection: "more"}}) {
		t.Fatalf("rescan: %+v", got)
	}
	write(t, filepath.Join(more, "f.md"), "# F\n")
	if got := rec.settled(t, ctx, w); !reflect.DeepEqual(got, []Change{{Collection: "more", Paths: []string{"f.md"}}}) {
		t.Fatalf("note in the new collection: %+v", got)
	}
	if n, failed := w.Folders(); n != 3 || failed != 0 {
		t.Errorf("Folders() = %d, %d; want 3 (notes, notes/sub, more), 0", n, failed)
	}
}

// TestFlush: with a quiet time far beyond the test, Flush alone delivers a
// change made just before it (the barrier event follows the change's in
// the one inotify queue), and Sync has run when Flush returns. Epoch moves
// when the watches are set up again (a Rescan).
func TestFlush(t *testing.T) {
	notes := t.TempDir()
	write(t, filepath.Join(notes, "a.md"), "# A\n")
	var mu sync.Mutex
	var got [][]Change
	w, ctx := running(t, Options{
		Collections: func() []config.Collection { return []config.Collection{{Name: "notes", Path: notes}} },
		Sync: func(_ context.Context, c []Change) {
			mu.Lock()
			got = append(got, c)
			mu.Unlock()
		},
		Debounce: time.Hour,
	})
	flushed := func() []Change {
		t.Helper()
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) == 0 {
			return nil
		}
		c := got[len(got)-1]
		got = nil
		return c
	}
	// The first batch (the whole collection) comes at once anyway.
	if c := flushed(); !reflect.DeepEqual(c, []Change{{Collection: "notes"}}) {
		t.Fatalf("first flush %+v", c)
	}
	for i, name := range []string{"b.md", "c.md", "a.md"} {
		write(t, filepath.Join(notes, name), "# changed\n")
		if c := flushed(); !reflect.DeepEqual(c, []Change{{Collection: "notes", Paths: []string{name}}}) {
			t.Fatalf("flush %d after writing %s: %+v", i, name, c)
		}
	}
	if c := flushed(); c != nil {
		t.Fatalf("nothing changed, yet %+v", c)
	}
	// Setting the watches up again (what a Rescan runs) moves the epoch.
	e := w.Epoch()
	w.setup()
	if w.Epoch() == e {
		t.Fatal("setting up the watches again did not move the epoch")
	}
}

// TestRootGone: a collection's folder removed or renamed (its own event:
// its parent is not watched) moves the epoch and counts as a folder that
// cannot be watched, so nothing trusts the watcher for it; a root that
// watches nothing (a symbolic link) counts as failed from the start.
func TestRootGone(t *testing.T) {
	for _, how := range []string{"rename", "remove"} {
		t.Run(how, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "notes")
			write(t, filepath.Join(root, "a.md"), "# A\n")
			w, ctx := running(t, Options{
				Collections: func() []config.Collection { return []config.Collection{{Name: "notes", Path: root}} },
				Debounce:    time.Hour,
			})
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if _, failed := w.Folders(); failed != 0 {
				t.Fatalf("%d folders failed before", failed)
			}
			e := w.Epoch()
			var err error
			if how == "rename" {
				err = os.Rename(root, root+"-old")
			} else {
				err = os.RemoveAll(root)
			}
			if err != nil {
				t.Fatal(err)
			}
			// The barrier comes after the root's own event.
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if w.Epoch() == e {
				t.Error("the root went and the epoch did not move")
			}
			if _, failed := w.Folders(); failed == 0 {
				t.Error("the root went and no folder counts as failed")
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "real", "a.md"), "# A\n")
		link := filepath.Join(dir, "link")
		if err := os.Symlink(filepath.Join(dir, "real"), link); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		w, err := New(Options{Collections: func() []config.Collection { return []config.Collection{{Name: "notes", Path: link}} }})
		if err != nil {
			t.Fatal(err)
		}
		defer w.fs.Close()
		if watched, failed := w.Folders(); watched != 0 || failed == 0 {
			t.Errorf("a symlink root: %d watched, %d failed", watched, failed)
		}
	})
}

// TestFirstSyncWithoutCollections: with no collection the first Sync
// still comes (an empty list), once, so a caller can tell "started,
// nothing to do" from "not started yet".
func TestFirstSyncWithoutCollections(t *testing.T) {
	var mu sync.Mutex
	var calls [][]Change
	w, ctx := running(t, Options{
		Sync: func(_ context.Context, c []Change) {
			mu.Lock()
			calls = append(calls, c)
			mu.Unlock()
		},
		Debounce: time.Hour,
	})
	for range 2 {
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || len(calls[0]) != 0 {
		t.Fatalf("Sync calls %+v, want one with no change", calls)
	}
}
