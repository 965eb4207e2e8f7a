package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
)

// Job retention, per the spec: finished jobs are kept an hour, at most 100.
const (
	jobRetention = time.Hour
	maxJobs      = 100
)

// Job states.
const (
	jobRunning   = "running"
	jobCompleted = "completed"
	jobFailed    = "failed"
	jobCancelled = "cancelled"
)

// Job is a background write (sync or add_collection) as clients see it.
type Job struct {
	ID          string       `json:"jobId"`
	Type        string       `json:"type"`
	Status      string       `json:"status"`
	Collections []string     `json:"collections,omitempty"`
	CreatedAt   string       `json:"createdAt"`
	FinishedAt  string       `json:"finishedAt,omitempty"`
	Progress    *JobProgress `json:"progress,omitempty"`
	Result      any          `json:"result,omitempty"`
	Error       *errorDetail `json:"error,omitempty"`
}

// JobProgress is how far a job's current collection is.
type JobProgress struct {
	Collection string `json:"collection"`
	Done       int    `json:"done"`
	Total      int    `json:"total"`
}

type jobEntry struct {
	job      Job
	finished time.Time
	done     chan struct{}
	watchers map[int]func(JobProgress)
}

// jobs runs at most one write job per server process and remembers
// finished ones for a while. Jobs live in memory only.
type jobs struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	all      map[string]*jobEntry
	active   string // id of the running job, "" if none
	reserved bool   // a job is being set up
	nextW    int
}

func newJobs(s *Server) *jobs {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobs{s: s, ctx: ctx, cancel: cancel, all: map[string]*jobEntry{}}
}

// reserve claims the single job slot, or fails with JOB_CONFLICT. The
// caller must call start or release.
func (j *jobs) reserve() error {
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

func (j *jobs) release() {
	j.mu.Lock()
	j.reserved = false
	j.mu.Unlock()
}

// start runs fn in the background as a reserved job holding lock, which
// it releases when fn returns.
func (j *jobs) start(kind string, cols []string, lock *store.WriteLock, fn func(ctx context.Context, progress func(ingest.Progress)) (any, error)) *jobEntry {
	now := time.Now()
	e := &jobEntry{job: Job{ID: newJobID(), Type: kind, Status: jobRunning, Collections: cols, CreatedAt: now.UTC().Format(time.RFC3339Nano)},
		done: make(chan struct{}), watchers: map[int]func(JobProgress){}}
	j.mu.Lock()
	j.prune(now)
	j.all[e.job.ID] = e
	j.active = e.job.ID
	j.reserved = false
	j.mu.Unlock()
	j.s.log.Info("job started", "job", e.job.ID, "type", kind, "collections", cols)
	j.wg.Go(func() {
		if lock != nil { // nil: fn takes the lock itself (embed)
			defer lock.Unlock()
		}
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
		j.finish(e, res, err)
	})
	return e
}

func (j *jobs) progress(e *jobEntry, p ingest.Progress) {
	jp := JobProgress{Collection: p.Collection, Done: p.Done, Total: p.Total}
	j.mu.Lock()
	e.job.Progress = &jp
	ws := make([]func(JobProgress), 0, len(e.watchers))
	for _, w := range e.watchers {
		ws = append(ws, w)
	}
	j.mu.Unlock()
	for _, w := range ws {
		w(jp)
	}
}

func (j *jobs) finish(e *jobEntry, res any, err error) {
	now := time.Now()
	j.mu.Lock()
	e.finished = now
	e.job.FinishedAt = now.UTC().Format(time.RFC3339Nano)
	e.job.Result = res
	switch {
	case err == nil:
		e.job.Status = jobCompleted
	case j.ctx.Err() != nil:
		e.job.Status = jobCancelled
		e.job.Error = &errorDetail{Code: gnoerr.Runtime, Message: "cancelled: the server is shutting down"}
	default:
		e.job.Status = jobFailed
		e.job.Error = &errorDetail{Code: gnoerr.CodeOf(err), Message: err.Error()}
	}
	if j.active == e.job.ID {
		j.active = ""
	}
	status := e.job.Status
	j.mu.Unlock()
	close(e.done)
	j.s.log.Info("job finished", "job", e.job.ID, "status", status, "err", err)
}

// watch calls fn on each progress report of e until the returned func is
// called.
func (j *jobs) watch(e *jobEntry, fn func(JobProgress)) func() {
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

// snapshot returns a copy of e's public state.
func (j *jobs) snapshot(e *jobEntry) Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	job := e.job
	if job.Progress != nil {
		p := *job.Progress
		job.Progress = &p
	}
	return job
}

// get finds a job by id.
func (j *jobs) get(id string) (*jobEntry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.prune(time.Now())
	e, ok := j.all[id]
	return e, ok
}

// list returns running jobs and up to limit finished ones, newest first.
func (j *jobs) list(limit int) (active, recent []Job) {
	j.mu.Lock()
	j.prune(time.Now())
	var es []*jobEntry
	for _, e := range j.all {
		es = append(es, e)
	}
	j.mu.Unlock()
	sort.Slice(es, func(a, b int) bool { return es[a].job.CreatedAt > es[b].job.CreatedAt })
	active, recent = []Job{}, []Job{}
	for _, e := range es {
		s := j.snapshot(e)
		if s.Status == jobRunning {
			active = append(active, s)
		} else if len(recent) < limit {
			recent = append(recent, s)
		}
	}
	return active, recent
}

// prune drops finished jobs past retention and the oldest beyond
// maxJobs. The caller holds j.mu.
func (j *jobs) prune(now time.Time) {
	var fin []*jobEntry
	for id, e := range j.all {
		if e.finished.IsZero() {
			continue
		}
		if now.Sub(e.finished) > jobRetention {
			delete(j.all, id)
			continue
		}
		fin = append(fin, e)
	}
	if len(fin) <= maxJobs {
		return
	}
	sort.Slice(fin, func(a, b int) bool { return fin[a].finished.Before(fin[b].finished) })
	for _, e := range fin[:len(fin)-maxJobs] {
		delete(j.all, e.job.ID)
	}
}

// shutdown cancels running jobs and waits for them to release the lock.
func (j *jobs) shutdown() {
	j.cancel()
	j.wg.Wait()
}

func newJobID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "job_" + hex.EncodeToString(b[:])
}
