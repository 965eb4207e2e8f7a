package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/server/jobs"
	"github.com/mark3labs/mcp-go/mcp"
)

func writeTools() []toolDef {
	return []toolDef{
		{name: "gno_capture", title: "Capture document", input: captureInputSchema, output: captureOutput,
			desc:        "Create a new Markdown document in a collection and index it. Without path, the filename comes from the title or first heading. Refuses to replace an existing file unless overwrite is true.",
			destructive: true, run: (*Server).capture},
		{name: "gno_add_collection", title: "Add collection", input: addCollectionInputSchema, output: addCollectionOutput,
			desc: "Add a folder as a new collection and start indexing it as a background job (poll with gno_job_status). Broad or sensitive folders (/, ~, /etc, ~/.ssh ...) are refused.",
			run:  (*Server).addCollection},
		{name: "gno_sync", title: "Sync collections", input: syncInputSchema, output: syncOutput,
			desc:       "Reindex one or all collections as a background job (poll with gno_job_status): picks up new, changed and deleted files.",
			idempotent: true, run: (*Server).sync},
		{name: "gno_remove_collection", title: "Remove collection", input: removeCollectionInputSchema, output: removeOutput,
			desc:        "Remove a collection from the config. Its files are untouched and its indexed data is retained until `gno cleanup`.",
			destructive: true, idempotent: true, run: (*Server).removeCollection},
		{name: "gno_tag", title: "Tag document", input: tagInputSchema, output: tagOutput,
			desc:        "Add or remove a tag on a document (user tags survive re-indexing).",
			destructive: true, idempotent: true, run: (*Server).tag},
		{name: "gno_job_status", title: "Job status", input: jobStatusInputSchema, output: jobOutput,
			desc:     "Get the status, progress and result of a background job started by gno_sync or gno_add_collection.",
			readOnly: true, idempotent: true, run: (*Server).jobStatus},
		{name: "gno_list_jobs", title: "List jobs", input: listJobsInputSchema, output: jobsOutput,
			desc:     "List the running jobs and recent finished jobs of every server of the index (kept 1 hour, at most 100).",
			readOnly: true, idempotent: true, run: (*Server).listJobs},
	}
}

// writer takes the index's writer lock without waiting: another process
// (or this server's running job) holding it gives LOCKED.
func writer(ctx context.Context, e *retrieval.Engine) (*retrieval.Writer, error) {
	return e.Writer(ctx, 0)
}

func (s *Server) capture(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	if strings.TrimSpace(a.str("content")) == "" {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "content is empty")
	}
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	req := retrieval.CaptureRequest{Collection: a.str("collection"), Content: a.str("content"), Path: a.str("path"),
		Title: a.str("title"), Overwrite: a.bool("overwrite", false)}
	w, err := writer(ctx, e)
	if err != nil {
		return nil, "", err
	}
	defer w.Close()
	res, err := w.Notes().Capture(ctx, req)
	if err != nil {
		return nil, "", err
	}
	if res.IndexErr != nil {
		s.logToClient(ctx, mcp.LoggingLevelWarning, fmt.Sprintf("gno_capture: indexing %s: %v", res.Collection, res.IndexErr))
	}
	verb := "Created"
	if res.Overwritten {
		verb = "Overwrote"
	}
	text := fmt.Sprintf("%s %s (%d bytes) at %s", verb, res.URI, res.SizeBytes, res.AbsPath)
	if res.Indexed {
		text += "; indexed as " + res.DocID
	} else {
		text += "; not indexed yet (run gno_sync)"
	}
	return res, text, nil
}

// collectionInfo describes a collection in write results.
type collectionInfo struct {
	Name    string   `json:"name"`
	Path    string   `json:"path"`
	Pattern string   `json:"pattern,omitempty"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// addCollectionResult is the structuredContent of gno_add_collection.
type addCollectionResult struct {
	JobID      string         `json:"jobId"`
	Status     string         `json:"status"`
	Collection collectionInfo `json:"collection"`
	Job        jobs.Job       `json:"job"`
}

func (s *Server) addCollection(ctx context.Context, a args, req mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.runner.Reserve(); err != nil {
		return nil, "", err
	}
	w, err := writer(ctx, e)
	if err != nil {
		s.runner.Release()
		return nil, "", err
	}
	var added config.Collection
	err = w.UpdateConfig(func(c *config.Config) error {
		pattern := a.str("pattern")
		if pattern == "" {
			pattern = convert.DefaultPattern
		}
		col, err := c.AddCollection(config.Collection{Name: a.str("name"), Path: a.str("path"), Pattern: pattern,
			Include: a.strs("include"), Exclude: a.strs("exclude")})
		if err == nil {
			added = *col
		}
		return err
	})
	if err != nil {
		w.Close()
		s.runner.Release()
		return nil, "", err
	}
	gitPull := a.bool("gitPull", false)
	je := s.runner.Start("add_collection", []string{added.Name}, w, func(jctx context.Context, progress func(ingest.Progress)) (any, error) {
		return w.Update(jctx, retrieval.UpdateOptions{Collection: added.Name, GitPull: gitPull, Progress: progress})
	})
	job := s.awaitJob(ctx, je, req)
	info := collectionInfo{Name: added.Name, Path: added.Path, Pattern: added.Pattern, Include: added.Include, Exclude: added.Exclude}
	res := addCollectionResult{JobID: job.ID, Status: job.Status, Collection: info, Job: job}
	return res, fmt.Sprintf("Added collection %s (%s); indexing job %s is %s. Poll it with gno_job_status.", info.Name, info.Path, job.ID, job.Status), nil
}

// syncResult is the structuredContent of gno_sync.
type syncResult struct {
	JobID       string   `json:"jobId"`
	Status      string   `json:"status"`
	Collections []string `json:"collections"`
	Job         jobs.Job `json:"job"`
}

func (s *Server) sync(ctx context.Context, a args, req mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	var cols []string
	if name := a.str("collection"); name != "" {
		c, ok := e.Config().Collection(name)
		if !ok {
			return nil, "", gnoerr.New(gnoerr.NotFound, "collection %q not found", name)
		}
		cols = []string{c.Name}
	} else {
		for _, c := range e.Config().Collections {
			cols = append(cols, c.Name)
		}
	}
	if cols == nil {
		cols = []string{}
	}
	if err := s.runner.Reserve(); err != nil {
		return nil, "", err
	}
	w, err := writer(ctx, e)
	if err != nil {
		s.runner.Release()
		return nil, "", err
	}
	opt := retrieval.UpdateOptions{GitPull: a.bool("gitPull", false), RunUpdateCmd: a.bool("runUpdateCmd", false)}
	if len(cols) == 1 && a.str("collection") != "" {
		opt.Collection = cols[0]
	}
	je := s.runner.Start("sync", cols, w, func(jctx context.Context, progress func(ingest.Progress)) (any, error) {
		opt.Progress = progress
		return w.Update(jctx, opt)
	})
	job := s.awaitJob(ctx, je, req)
	res := syncResult{JobID: job.ID, Status: job.Status, Collections: cols, Job: job}
	return res, fmt.Sprintf("Sync job %s of %s is %s. Poll it with gno_job_status.", job.ID, strings.Join(cols, ", "), job.Status), nil
}

// awaitJob returns a job's state for the tool result. When the client
// sent a progress token, the call stays open until the job ends (or the
// request is cancelled), reporting progress; otherwise it returns at once.
func (s *Server) awaitJob(ctx context.Context, je *jobs.Entry, req mcp.CallToolRequest) jobs.Job {
	token := progressToken(req)
	if token == nil {
		return s.runner.Snapshot(je)
	}
	var last time.Time
	var n float64
	stop := s.runner.Watch(je, func(p jobs.Progress) {
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond || p.Done == p.Total {
			last = now
			n++
			s.sendProgress(ctx, token, n, 0, fmt.Sprintf("%s: %d/%d files", p.Collection, p.Done, p.Total))
		}
	})
	defer stop()
	select {
	case <-je.Done():
		job := s.runner.Snapshot(je)
		s.sendProgress(ctx, token, n+1, n+1, "job "+job.Status)
		s.settleProgress(ctx)
		return job
	case <-ctx.Done():
		return s.runner.Snapshot(je)
	}
}

// removeResult is the structuredContent of gno_remove_collection.
type removeResult struct {
	Collection string `json:"collection"`
	Removed    bool   `json:"removed"`
	Note       string `json:"note"`
}

func (s *Server) removeCollection(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	w, err := writer(ctx, e)
	if err != nil {
		return nil, "", err
	}
	defer w.Close()
	name := strings.ToLower(a.str("collection"))
	if err := w.UpdateConfig(func(c *config.Config) error { return c.RemoveCollection(name) }); err != nil {
		return nil, "", err
	}
	res := removeResult{Collection: name, Removed: true, Note: "The folder is untouched; indexed data is retained until `gno cleanup`."}
	return res, fmt.Sprintf("Removed collection %s. %s", name, res.Note), nil
}

func (s *Server) tag(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, "", err
	}
	add := a.str("action") != "remove"
	// Notes.Tag waits a few seconds for the lock; this server's own job
	// would hold it for its whole run, so answer at once.
	active := s.runner.Active()
	if active != "" {
		return nil, "", gnoerr.New(gnoerr.Locked, "job %s holds the write lock; retry when it has finished", active)
	}
	res, err := e.Notes().Tag(ctx, retrieval.TagRequest{Ref: a.str("ref"), Tag: a.str("tag"), Remove: !add})
	if err != nil {
		return nil, "", err
	}
	verb := "Added"
	if !add {
		verb = "Removed"
	}
	return res, fmt.Sprintf("%s tag %q on %s; tags now: %s", verb, a.str("tag"), res.URI, strings.Join(res.Tags, ", ")), nil
}

func (s *Server) jobStatus(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	je, ok, err := s.runner.Get(ctx, a.str("jobId"))
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", gnoerr.New(gnoerr.NotFound, "job %q not found (finished jobs are kept for 1 hour)", a.str("jobId"))
	}
	job := s.runner.Snapshot(je)
	return job, describeJob(job), nil
}

// jobList is the structuredContent of gno_list_jobs.
type jobList struct {
	Active []jobs.Job `json:"active"`
	Recent []jobs.Job `json:"recent"`
}

func (s *Server) listJobs(ctx context.Context, a args, _ mcp.CallToolRequest) (any, string, error) {
	active, recent, err := s.runner.List(ctx, a.int("limit", 10))
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d running, %d recent", len(active), len(recent))
	for _, j := range append(active, recent...) {
		b.WriteString("\n- " + describeJob(j))
	}
	return jobList{Active: active, Recent: recent}, b.String(), nil
}

func describeJob(j jobs.Job) string {
	s := fmt.Sprintf("jobs.Job %s (%s of %s): %s", j.ID, j.Type, strings.Join(j.Collections, ", "), j.Status)
	if j.Progress != nil && j.Status == jobs.Running {
		s += fmt.Sprintf(", %s %d/%d files", j.Progress.Collection, j.Progress.Done, j.Progress.Total)
	}
	if j.Error != nil {
		s += fmt.Sprintf(": %s: %s", j.Error.Code, j.Error.Message)
	}
	return s
}
