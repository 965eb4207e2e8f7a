package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/watch"
)

// testDaemon is a daemon's engine, watcher and worker over collections
// "a" and "b" (one note each, synced), without its loop or socket.
func testDaemon(t *testing.T) (*daemon, map[string]string) {
	t.Helper()
	pgtest.Home(t, t.TempDir())
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	roots := map[string]string{}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		for _, name := range []string{"a", "b"} {
			roots[name] = t.TempDir()
			writeNote(t, roots[name], name+".md")
			if _, err := c.AddCollection(config.Collection{Name: name, Path: roots[name]}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	d := &daemon{e: e, log: slog.New(slog.DiscardHandler), opt: Options{NoEmbed: true}}
	d.watcher, err = watch.New(watch.Options{Collections: func() []config.Collection { return e.Config().Collections }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Run with an ended context releases the watches.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d.watcher.Run(ctx)
	})
	d.work = newWorker(d)
	return d, roots
}

func writeNote(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("# "+name+"\n\nWombats dig.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateCancelRequeues: a `gno update` cut short by Ctrl-C in the
// middle of a collection's sync puts the watcher's changes it took back in
// the worker's queue, for that collection and the ones after it.
func TestUpdateCancelRequeues(t *testing.T) {
	d, roots := testDaemon(t)
	w := d.work
	writeNote(t, roots["a"], "x.md")
	writeNote(t, roots["b"], "y.md")
	w.pending = map[string]map[string]bool{"a": {"x.md": true}, "b": {"y.md": true}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &updateReq{ctx: ctx, opt: retrieval.UpdateOptions{Progress: func(ingest.Progress) { cancel() }}, done: make(chan struct{})}
	if _, err := w.update(ctx, r); err == nil {
		t.Fatal("a cancelled update reported no error")
	}
	want := map[string]map[string]bool{"a": {"x.md": true}, "b": {"y.md": true}}
	if !reflect.DeepEqual(w.pending, want) {
		t.Fatalf("queue after a cancelled update: %v, want %v", w.pending, want)
	}
}
