// Package jobs runs gno's background writes (a sync, a new collection's
// first index, an embed) one at a time per server process, reports their
// progress and remembers finished ones for an hour (at most 100). The MCP
// tools and the web app share one Runner. It owns the job slot and the
// job records; it must not decide what a job does (the caller's function
// does) nor take the writer lock (the caller hands it a Writer, which the
// job closes).
//
// With a Book (the index's store) the Runner also records each job's
// public state in the index, so that a client polls a job from any server
// of a shared index: a server answers its own jobs from memory and the
// others' from the index. A job whose server stopped writing it (killed,
// cut off) reads as failed after staleAfter.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
)

// Job retention, per the spec: finished jobs are kept an hour, at most 100.
const (
	retention = time.Hour
	maxKept   = 100
)

// A running job's record is rewritten at least every heartbeat (and on
// progress, at most every saveEvery); one not rewritten for staleAfter
// belongs to a server that stopped.
const (
	heartbeat  = 10 * time.Second
	saveEvery  = time.Second
	staleAfter = time.Minute
)

// Book keeps the jobs' records in the index (store.Backend's job
// methods; their contract is the store's, retrieval/store/jobs.go).
type Book interface {
	PutJob(ctx context.Context, j store.SharedJob) error
	Job(ctx context.Context, id string) (store.SharedJob, bool, error)
	Jobs(ctx context.Context, limit int) ([]store.SharedJob, error)
	DropJobs(ctx context.Context, before time.Time, keep int) error
}

// Job states.
const (
	Running   = "running"
	Completed = "completed"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Job is a background write (sync or add_collection) as clients see it.
type Job struct {
	ID          string         `json:"jobId"`
	Type        string         `json:"type"`
	Status      string         `json:"status"`
	Collections []string       `json:"collections,omitempty"`
	CreatedAt   string         `json:"createdAt"`
	FinishedAt  string         `json:"finishedAt,omitempty"`
	Progress    *Progress      `json:"progress,omitempty"`
	Result      any            `json:"result,omitempty"`
	Error       *gnoerr.Detail `json:"error,omitempty"`
}

// Progress is how far a job's current collection is.
type Progress struct {
	Collection string `json:"collection"`
	Done       int    `json:"done"`
	Total      int    `json:"total"`
}

// Entry is one job as the Runner tracks it.
type Entry struct {
	job      Job
	finished time.Time
	done     chan struct{}
	watchers map[int]func(Progress)
	// kick asks the saver for a write of the record (progress); saveMu
	// orders the writes, so the last one holds the latest state.
	kick   chan struct{}
	saveMu sync.Mutex
}

// Done is closed when the job has finished.
func (e *Entry) Done() <-chan struct{} { return e.done }

// Runner runs at most one write job per server process and remembers
// finished ones for a while.
type Runner struct {
	log    *slog.Logger
	book   func(ctx context.Context) (Book, error) // nil: memory only
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	all      map[string]*Entry
	active   string // id of the running job, "" if none
	reserved bool   // a job is being set up
	nextW    int
}

// New returns a Runner that logs to log and records its jobs in the Book
// book opens (nil: in memory only).
func New(log *slog.Logger, book func(ctx context.Context) (Book, error)) *Runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{log: log, book: book, ctx: ctx, cancel: cancel, all: map[string]*Entry{}}
}

// save writes e's record to the Book when one is set (a failure is
// logged: the job runs on, its status reads from this server only).
func (j *Runner) save(e *Entry) {
	if j.book == nil {
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	job := j.Snapshot(e)
	data, err := json.Marshal(job)
	if err != nil {
		return
	}
	created, _ := time.Parse(time.RFC3339Nano, job.CreatedAt)
	now := time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), 10*time.Second)
	defer cancel()
	b, err := j.book(ctx)
	if err == nil {
		err = b.PutJob(ctx, store.SharedJob{ID: job.ID, Running: job.Status == Running, Created: created, Updated: now, State: data})
	}
	if err == nil && job.Status != Running {
		err = b.DropJobs(ctx, now.Add(-retention), maxKept)
	}
	if err != nil {
		j.log.Warn("job not recorded in the index: other servers will not see it", "job", job.ID, "err", err)
	}
}

// shared reads a job of another server from the Book: a running one its
// server stopped writing reads as failed.
func shared(sj store.SharedJob, now time.Time) (Job, bool) {
	var job Job
	if json.Unmarshal(sj.State, &job) != nil || job.ID != sj.ID {
		return Job{}, false
	}
	if job.Status == Running && now.Sub(sj.Updated) > staleAfter {
		job.Status = Failed
		job.Progress = nil
		job.Error = &gnoerr.Detail{Code: gnoerr.Runtime, Message: "the server running this job stopped (last heard of " + sj.Updated.Format(time.RFC3339) + ")"}
	}
	return job, true
}

// Active is the id of the running job, "" when none runs.
func (j *Runner) Active() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.active
}

// Reserve claims the single job slot, or fails with JOB_CONFLICT. The
// caller must call Start or Release.
func (j *Runner) Reserve() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.active != "" || j.reserved {
		id := j.active
		if id == "" {
			id = "(starting)"
		}
		return gnoerr.New(gnoerr.JobConflict, "another job is already running (%s); poll it with gno_job_status", id)
	}
	j.reserved = true
	return nil
}

// Release gives back a slot Reserve claimed when no job will start.
func (j *Runner) Release() {
	j.mu.Lock()
	j.reserved = false
	j.mu.Unlock()
}

// Start runs fn in the background as the reserved job, holding w, which
// it closes when fn returns (nil: fn takes the lock itself).
func (j *Runner) Start(kind string, cols []string, w *retrieval.Writer, fn func(ctx context.Context, progress func(ingest.Progress)) (any, error)) *Entry {
	now := time.Now()
	e := &Entry{job: Job{ID: newJobID(), Type: kind, Status: Running, Collections: cols, CreatedAt: now.UTC().Format(time.RFC3339Nano)},
		done: make(chan struct{}), watchers: map[int]func(Progress){}}
	j.mu.Lock()
	j.prune(now)
	j.all[e.job.ID] = e
	j.active = e.job.ID
	j.reserved = false
	j.mu.Unlock()
	j.log.Info("job started", "job", e.job.ID, "type", kind, "collections", cols)
	j.save(e)
	if j.book != nil {
		// The saver writes progress and the heartbeat from a goroutine of
		// its own: the job reports progress inside its write transaction,
		// and on SQLite a write from another connection waits for it.
		e.kick = make(chan struct{}, 1)
		j.wg.Go(func() {
			t := time.NewTicker(heartbeat)
			defer t.Stop()
			for {
				select {
				case <-e.done:
					return
				case <-t.C:
				case <-e.kick:
				}
				j.save(e)
				select {
				case <-e.done:
					return
				case <-time.After(saveEvery):
				}
			}
		})
	}
	j.wg.Go(func() {
		var res any
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = gnoerr.New(gnoerr.Runtime, "internal error in job: %v", r)
				}
			}()
			res, err = fn(j.ctx, func(p ingest.Progress) { j.progress(e, p) })
		}()
		// The lock goes before the job is reported finished: a client
		// that sees "completed" and starts the next write at once must
		// find the index free (TestJobs lost that race under load).
		if w != nil { // nil: fn takes the lock itself (embed)
			w.Close()
		}
		j.finish(e, res, err)
	})
	return e
}

func (j *Runner) progress(e *Entry, p ingest.Progress) {
	jp := Progress{Collection: p.Collection, Done: p.Done, Total: p.Total}
	j.mu.Lock()
	e.job.Progress = &jp
	ws := make([]func(Progress), 0, len(e.watchers))
	for _, w := range e.watchers {
		ws = append(ws, w)
	}
	j.mu.Unlock()
	for _, w := range ws {
		w(jp)
	}
	if e.kick != nil {
		select {
		case e.kick <- struct{}{}:
		default: // a write is asked for already
		}
	}
}

func (j *Runner) finish(e *Entry, res any, err error) {
	now := time.Now()
	j.mu.Lock()
	e.finished = now
	e.job.FinishedAt = now.UTC().Format(time.RFC3339Nano)
	e.job.Result = res
	switch {
	case err == nil:
		e.job.Status = Completed
	case j.ctx.Err() != nil:
		e.job.Status = Cancelled
		e.job.Error = &gnoerr.Detail{Code: gnoerr.Runtime, Message: "cancelled: the server is shutting down"}
	default:
		e.job.Status = Failed
		e.job.Error = &gnoerr.Detail{Code: gnoerr.CodeOf(err), Message: gnoerr.Public(err)}
	}
	if j.active == e.job.ID {
		j.active = ""
	}
	status := e.job.Status
	j.mu.Unlock()
	j.save(e)
	close(e.done)
	j.log.Info("job finished", "job", e.job.ID, "status", status, "err", err)
}

// Watch calls fn on each progress report of e until the returned func is
// called.
func (j *Runner) Watch(e *Entry, fn func(Progress)) func() {
	j.mu.Lock()
	defer j.mu.Unlock()
	id := j.nextW
	j.nextW++
	e.watchers[id] = fn
	return func() {
		j.mu.Lock()
		delete(e.watchers, id)
		j.mu.Unlock()
	}
}

// Snapshot returns a copy of e's public state.
func (j *Runner) Snapshot(e *Entry) Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	job := e.job
	if job.Progress != nil {
		p := *job.Progress
		job.Progress = &p
	}
	return job
}

// Get finds a job by id: this server's, else another's in the Book (an
// Entry that only holds its state: it is not watched, never done).
func (j *Runner) Get(ctx context.Context, id string) (*Entry, bool, error) {
	j.mu.Lock()
	j.prune(time.Now())
	e, ok := j.all[id]
	j.mu.Unlock()
	if ok || j.book == nil {
		return e, ok, nil
	}
	b, err := j.book(ctx)
	if err != nil {
		return nil, false, err
	}
	sj, ok, err := b.Job(ctx, id)
	if err != nil || !ok {
		return nil, false, err
	}
	job, ok := shared(sj, time.Now())
	if !ok {
		return nil, false, nil
	}
	return &Entry{job: job, done: make(chan struct{}), watchers: map[int]func(Progress){}}, true, nil
}

// List returns running jobs and up to limit finished ones, newest first:
// this server's and, with a Book, the other servers' of the index.
func (j *Runner) List(ctx context.Context, limit int) (active, recent []Job, err error) {
	j.mu.Lock()
	j.prune(time.Now())
	var es []*Entry
	for _, e := range j.all {
		es = append(es, e)
	}
	j.mu.Unlock()
	all := make([]Job, 0, len(es))
	mine := map[string]bool{}
	for _, e := range es {
		s := j.Snapshot(e)
		all = append(all, s)
		mine[s.ID] = true
	}
	if j.book != nil {
		b, err := j.book(ctx)
		if err != nil {
			return nil, nil, err
		}
		sjs, err := b.Jobs(ctx, limit)
		if err != nil {
			return nil, nil, err
		}
		now := time.Now()
		for _, sj := range sjs {
			if job, ok := shared(sj, now); ok && !mine[job.ID] {
				all = append(all, job)
			}
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].CreatedAt > all[b].CreatedAt })
	active, recent = []Job{}, []Job{}
	for _, s := range all {
		if s.Status == Running {
			active = append(active, s)
		} else if len(recent) < limit {
			recent = append(recent, s)
		}
	}
	return active, recent, nil
}

// prune drops finished jobs past retention and the oldest beyond
// maxKept. The caller holds j.mu.
func (j *Runner) prune(now time.Time) {
	var fin []*Entry
	for id, e := range j.all {
		if e.finished.IsZero() {
			continue
		}
		if now.Sub(e.finished) > retention {
			delete(j.all, id)
			continue
		}
		fin = append(fin, e)
	}
	if len(fin) <= maxKept {
		return
	}
	sort.Slice(fin, func(a, b int) bool { return fin[a].finished.Before(fin[b].finished) })
	for _, e := range fin[:len(fin)-maxKept] {
		delete(j.all, e.job.ID)
	}
}

// Shutdown cancels running jobs and waits for them to release the lock.
func (j *Runner) Shutdown() {
	j.cancel()
	j.wg.Wait()
}

func newJobID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "job_" + hex.EncodeToString(b[:])
}
