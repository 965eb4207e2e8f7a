package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

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
	// No sync of the watcher's own quiet time during a test: only the
	// first and Flush deliver.
	d.watcher, err = watch.New(watch.Options{Collections: func() []config.Collection { return e.Config().Collections }, Debounce: time.Hour,
		Sync: func(ctx context.Context, c []watch.Change) { d.work.enqueue(ctx, c) }})
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

// TestUpdateForeignWrites: a collection the daemon trusts is walked, with
// the reason, once another process has written to the index (its writes
// counter moved under the daemon), and trusted again after that walk.
func TestUpdateForeignWrites(t *testing.T) {
	d, roots := testDaemon(t)
	w := d.work
	ctx := context.Background()
	w.sync(ctx, []watch.Change{{Collection: "a"}, {Collection: "b"}})
	update := func() *retrieval.UpdateResult {
		t.Helper()
		r := &updateReq{ctx: ctx, done: make(chan struct{})}
		res, err := w.update(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := update(); !reflect.DeepEqual(res.Daemon.Watched, []string{"a", "b"}) {
		t.Fatalf("after whole syncs: %+v", res.Daemon)
	}

	// Another process (here another engine on the same index) writes.
	writeNote(t, roots["a"], "other.md")
	other, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	res := update()
	if res.Daemon.Walked["a"] != foreignWrites || res.Daemon.Walked["b"] != foreignWrites || len(res.Daemon.Watched) != 0 {
		t.Fatalf("after another process wrote: %+v", res.Daemon)
	}
	if res := update(); !reflect.DeepEqual(res.Daemon.Watched, []string{"a", "b"}) {
		t.Fatalf("after the walk: %+v", res.Daemon)
	}
}

// TestRemoteFS: NFS, SMB/CIFS, FUSE and 9p collections are walked, with
// the file system named; a local one is not.
func TestRemoteFS(t *testing.T) {
	for magic, name := range map[int64]string{0x6969: "NFS", 0xff534d42: "CIFS", 0x65735546: "FUSE", 0x01021997: "9p"} {
		if why := remoteReason(magic); !strings.Contains(why, name) {
			t.Errorf("%#x: %q", magic, why)
		}
	}
	if why := remoteReason(0xef53); why != "" { // ext4
		t.Errorf("ext4: %q", why)
	}
	if why := remoteFS(filepath.Join(t.TempDir(), "missing")); why != "" {
		t.Errorf("a missing folder: %q", why)
	}
}

// resting makes w (models not to be loaded) report each state its loop
// rests in, and returns the next of them, waiting up to a minute.
func resting(t *testing.T, w *worker) func() string {
	w.needWarm = false // no models to load here
	rested := make(chan string, 16)
	w.rested = rested
	return func() string {
		t.Helper()
		select {
		case s := <-rested:
			return s
		case <-time.After(time.Minute):
			t.Fatal("the worker did not run out of work within a minute")
			return ""
		}
	}
}

// TestIdleOnlyOnceFed: the worker out of work before the watcher's first
// Sync has come (its goroutine not yet run, as on a busy machine) says
// "starting", not "idle": until then the daemon has not looked at the
// folders, and a caller waiting for idle must not be told it is done.
func TestIdleOnlyOnceFed(t *testing.T) {
	d, _ := testDaemon(t)
	w := d.work
	next := resting(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if s := next(); s != "starting" {
		t.Fatalf("out of work before the watcher's first sync: state %q, want starting", s)
	}
	if st := d.status(ctx); st.State != "starting" {
		t.Fatalf("status before the first sync: %q", st.State)
	}
	w.enqueue(ctx, []watch.Change{{Collection: "a"}, {Collection: "b"}})
	if s := next(); s != "idle" {
		t.Fatalf("after the first sync: state %q, want idle", s)
	}
}

// TestUpdateTakesItsFlush: the changes an update's flush brings into the
// queue are the update's to sync, even when the worker, woken by the
// flush, gets to run before the update is queued (a busy machine): the
// worker holds the queue, and the update reports the new note.
func TestUpdateTakesItsFlush(t *testing.T) {
	d, roots := testDaemon(t)
	w := d.work
	next := resting(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	bg.Go(func() { d.watcher.Run(ctx) })
	bg.Go(func() { w.run(ctx) })
	t.Cleanup(func() { cancel(); bg.Wait() })
	for next() != "idle" {
	}
	writeNote(t, roots["a"], "new.md")
	// Between the flush and the update joining the queue, let the worker
	// run until it holds: it must not have synced the note itself. (An
	// "idle" rest may come first from a wake left over from the first
	// sync; the note still queued shows it took nothing.)
	d.afterFlush = func() {
		for s := next(); s != "held for an update"; s = next() {
			w.mu.Lock()
			_, queued := w.pending["a"]
			w.mu.Unlock()
			if !queued {
				t.Errorf("the worker, woken by the flush, synced the update's change itself (rested %q)", s)
				return
			}
		}
	}
	res, err := d.update(ctx, retrieval.UpdateOptions{Collection: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Collections) != 1 || res.Collections[0].Added != 1 {
		t.Fatalf("the update did not sync the note its flush brought: %+v", res.Collections)
	}
}

// TestAnsweredUpdateAsksForPostings: an update the daemon answers for a
// client that changed the index asks the idle loop to look at the search
// postings, as the watcher's syncs do (else a daemon whose index grows
// only through `gno update` never builds them).
func TestAnsweredUpdateAsksForPostings(t *testing.T) {
	d, roots := testDaemon(t)
	w := d.work
	ctx := context.Background()
	w.needPostings = false
	writeNote(t, roots["a"], "new.md")
	r := &updateReq{ctx: ctx, done: make(chan struct{})}
	w.answer(ctx, r)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !changed(r.res) || !w.needPostings {
		t.Fatalf("after an update that added a note: changed %v, needPostings %v", changed(r.res), w.needPostings)
	}
}
