package jobs

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres:// locations
)

func TestJobRetention(t *testing.T) {
	j := New(slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	defer j.Shutdown()
	old := time.Now().Add(-2 * retention)
	for i := range maxKept + 20 {
		e := &Entry{job: Job{ID: newJobID(), Status: Completed}, finished: time.Now().Add(time.Duration(i) * time.Millisecond), done: make(chan struct{})}
		if i < 5 {
			e.finished = old
		}
		j.all[e.job.ID] = e
	}
	j.mu.Lock()
	j.prune(time.Now())
	n := len(j.all)
	j.mu.Unlock()
	if n != maxKept {
		t.Fatalf("kept %d jobs, want %d", n, maxKept)
	}
}

// TestSharedJobs: two servers (two Runners, each with its own connection
// to one index) see each other's jobs: running with its progress, then
// finished with its result; a running job whose server stopped writing it
// reads as failed.
func TestSharedJobs(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testSharedJobs(t, filepath.Join(t.TempDir(), "index.sqlite"))
	})
	t.Run("postgres", func(t *testing.T) {
		testSharedJobs(t, pgtest.Fresh(t))
	})
}

func testSharedJobs(t *testing.T, location string) {
	ctx := context.Background()
	open := func() func(context.Context) (Book, error) {
		b, err := store.OpenBackend(ctx, location)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return func(context.Context) (Book, error) { return b, nil }
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, b := New(log, open()), New(log, open())
	defer a.Shutdown()
	defer b.Shutdown()
	if err := a.Reserve(); err != nil {
		t.Fatal(err)
	}
	release, reported := make(chan struct{}), make(chan struct{})
	e := a.Start("sync", []string{"notes"}, nil, func(ctx context.Context, progress func(ingest.Progress)) (any, error) {
		progress(ingest.Progress{Collection: "notes", Done: 3, Total: 9})
		close(reported)
		<-release
		return map[string]int{"added": 9}, nil
	})
	<-reported
	id := a.Snapshot(e).ID
	got, ok, err := b.Get(ctx, id)
	if err != nil || !ok {
		t.Fatalf("the other server's Get: %v, %v", ok, err)
	}
	if j := b.Snapshot(got); j.Status != Running || j.Type != "sync" {
		t.Fatalf("running job seen from the other server: %+v", j)
	}
	active, _, err := b.List(ctx, 10)
	if err != nil || len(active) != 1 || active[0].ID != id {
		t.Fatalf("the other server's List: %+v, %v", active, err)
	}
	close(release)
	<-e.Done()
	got, ok, err = b.Get(ctx, id)
	if err != nil || !ok {
		t.Fatalf("finished job from the other server: %v, %v", ok, err)
	}
	if j := b.Snapshot(got); j.Status != Completed || j.Result == nil {
		t.Fatalf("finished job seen from the other server: %+v", j)
	}
	if _, ok, _ := b.Get(ctx, "job_none"); ok {
		t.Fatal("an unknown job found")
	}

	// A server killed mid-job leaves a running record it no longer
	// rewrites.
	bk, _ := open()(ctx)
	old := time.Now().Add(-2 * staleAfter)
	state := []byte(`{"jobId":"job_dead","type":"sync","status":"running","createdAt":"` + old.UTC().Format(time.RFC3339Nano) + `"}`)
	if err := bk.PutJob(ctx, store.SharedJob{ID: "job_dead", Running: true, Created: old, Updated: old, State: state}); err != nil {
		t.Fatal(err)
	}
	got, ok, err = b.Get(ctx, "job_dead")
	if err != nil || !ok {
		t.Fatalf("Get(job_dead): %v, %v", ok, err)
	}
	if j := b.Snapshot(got); j.Status != Failed || j.Error == nil || !strings.Contains(j.Error.Message, "stopped") {
		t.Fatalf("a dead server's job: %+v", j)
	}
}

// gatedBook holds a progress record's write until gate closes.
type gatedBook struct {
	Book
	gate chan struct{}
}

func (g gatedBook) PutJob(ctx context.Context, j store.SharedJob) error {
	if j.Running && strings.Contains(string(j.State), `"progress"`) {
		<-g.gate
	}
	return g.Book.PutJob(ctx, j)
}

// TestProgressDoesNotWaitForTheBook: a job reports progress inside its
// write transaction, where on SQLite a write of another connection waits
// for it; so progress returns before its record is written (this test
// deadlocks otherwise).
func TestProgressDoesNotWaitForTheBook(t *testing.T) {
	ctx := context.Background()
	b, err := store.OpenBackend(ctx, filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	gb := gatedBook{Book: b, gate: make(chan struct{})}
	r := New(slog.New(slog.NewTextHandler(io.Discard, nil)), func(context.Context) (Book, error) { return gb, nil })
	defer r.Shutdown()
	if err := r.Reserve(); err != nil {
		t.Fatal(err)
	}
	e := r.Start("sync", nil, nil, func(ctx context.Context, progress func(ingest.Progress)) (any, error) {
		progress(ingest.Progress{Collection: "notes", Done: 1, Total: 2})
		close(gb.gate)
		return nil, nil
	})
	<-e.Done()
	sj, ok, err := b.Job(ctx, r.Snapshot(e).ID)
	if err != nil || !ok || sj.Running {
		t.Fatalf("the finished job's record: %+v, %v, %v", sj, ok, err)
	}
}
