package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/auth"
	"github.com/gnosearch/gno/server/jobs"
)

// readEndpoints map /api/NAME to the MCP read tools.
var readEndpoints = map[string]string{
	"search":    "gno_search",
	"vsearch":   "gno_vsearch",
	"query":     "gno_query",
	"get":       "gno_get",
	"multi-get": "gno_multi_get",
	"status":    "gno_status",
	"tags":      "gno_list_tags",
	"changes":   "gno_changes",
	"ask":       "gno_ask",
	"affected":  "gno_affected",
	"diff":      "gno_diff",
}

// cacheEndpoints write only gno's own reconcile cache, never a user's
// file: POST with the write guard's origin and scope checks, but without
// --enable-write, as over MCP.
var cacheEndpoints = map[string]string{
	"reconcile/mark":  "gno_mark_reconciled",
	"reconcile/clear": "gno_clear_reconciled",
}

// writeEndpoints map /api/NAME to the MCP write tools (--enable-write).
var writeEndpoints = map[string]string{
	"sync": "gno_sync",
	"tag":  "gno_tag",
}

// workspaceWrites are the workspace's write endpoints: each needs
// --enable-write, the same origin and the CSRF token (App.write).
func workspaceWrites(a *App) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"POST /api/note/save":          a.noteSave,
		"POST /api/note/rename":        a.rename,
		"POST /api/note/delete":        a.deleteNote,
		"POST /api/capture":            a.capture,
		"POST /api/collections":        a.addCollection,
		"POST /api/collections/remove": a.removeCollection,
	}
}

// maxBody bounds a JSON request body.
const maxBody = 1 << 20

func (a *App) restRoutes() {
	for name, tool := range readEndpoints {
		h := a.tool(tool)
		a.handle("GET /api/"+name, h)
		a.handle("POST /api/"+name, h)
	}
	for name, tool := range writeEndpoints {
		a.handle("POST /api/"+name, a.write(a.tool(tool)))
	}
	for name, tool := range cacheEndpoints {
		a.handle("POST /api/"+name, a.guard(a.tool(tool)))
	}
	a.handle("POST /api/embed", a.write(http.HandlerFunc(a.embed)))
	// The workspace: editing, browsing, the palette, collections.
	for route, h := range map[string]http.HandlerFunc{
		"GET /api/note":             a.noteOpen,
		"GET /api/note/rename-plan": a.renamePlan,
		"POST /api/note/preview":    a.notePreview,
		"GET /api/complete":         a.completeAPI,
		"GET /api/palette":          a.paletteAPI,
		"GET /api/tree":             a.treeAPI,
		"GET /api/templates":        a.templatesAPI,
	} {
		a.handle(route, h)
	}
	for route, h := range workspaceWrites(a) {
		a.handle(route, a.write(h))
	}
	a.handle("GET /api/ask/stream", http.HandlerFunc(a.askStream))
	a.handle("GET /api/jobs", http.HandlerFunc(a.jobs))
	a.handle("GET /api/jobs/events", http.HandlerFunc(a.jobEvents))
	a.handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, gnoerr.New(gnoerr.NotFound, "no endpoint %s %s", r.Method, r.URL.Path))
	}))
}

// handle registers an API endpoint whose failures writeError logs
// (errorLog).
func (a *App) handle(pattern string, h http.Handler) {
	a.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&errorLog{ResponseWriter: w, log: a.log, r: r}, r)
	}))
}

// errorLog carries the server's logger and the request to writeError,
// whose many callers hold only the ResponseWriter: an error whose text
// the client is not shown (gnoerr.Public: the index database's own) is
// logged with the request's method and path, as MCP logs it, so that
// "see the server's log" finds it there.
type errorLog struct {
	http.ResponseWriter
	log *slog.Logger
	r   *http.Request
}

// Flush passes on to the connection: the event streams need it.
func (e *errorLog) Flush() {
	_ = http.NewResponseController(e.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the connection's own writer.
func (e *errorLog) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// tool serves one MCP tool: arguments from the query string (GET) or a
// JSON object body (POST), the tool's structuredContent as the response.
func (a *App) tool(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		args, err := a.args(name, r)
		if err != nil {
			writeError(w, err)
			return
		}
		out, _, err := a.srv.Call(r.Context(), name, args)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func (a *App) args(name string, r *http.Request) (map[string]any, error) {
	if r.Method == http.MethodGet {
		return a.srv.ArgsFromQuery(name, r.URL.Query())
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return nil, gnoerr.New(gnoerr.InvalidInput, "POST bodies must be application/json")
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "read request body")
	}
	if len(data) > maxBody {
		return nil, gnoerr.New(gnoerr.InvalidInput, "request body over %d bytes", maxBody)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "request body is not JSON")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, gnoerr.New(gnoerr.InvalidInput, "request body must be a JSON object")
	}
	return m, nil
}

// write guards a write endpoint: enabled, a write token in the sharing
// mode, same origin and the CSRF token unless a Bearer token came.
func (a *App) write(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.opts.EnableWrite {
			writeJSON(w, http.StatusForbidden, gnoerr.BodyOf(gnoerr.New(gnoerr.InvalidInput, "write endpoints are off; start gno serve with --enable-write")))
			return
		}
		a.guard(next).ServeHTTP(w, r)
	})
}

// guard admits a write from an identity that may write and, for a
// browser, from the same origin (CSRF).
func (a *App) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, guarded := auth.IdentityFrom(r.Context())
		if guarded && !id.Scope.CanWrite() {
			writeJSON(w, http.StatusForbidden, gnoerr.BodyOf(gnoerr.New(gnoerr.InvalidInput, "%s", auth.ErrReadOnly)))
			return
		}
		// A Bearer token is no ambient credential: no CSRF to guard against.
		if !id.Bearer {
			if err := a.sameOrigin(r); err != nil {
				writeJSON(w, http.StatusForbidden, gnoerr.BodyOf(err))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (a *App) embed(w http.ResponseWriter, r *http.Request) {
	args, err := a.args("gno_sync", r)
	if err != nil {
		writeError(w, err)
		return
	}
	col, _ := args["collection"].(string)
	job, err := a.srv.StartEmbed(r.Context(), col)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"jobId": job.ID, "status": job.Status, "job": job})
}

// jobList is the shape of gno_list_jobs.
type jobList struct {
	Active []jobs.Job `json:"active"`
	Recent []jobs.Job `json:"recent"`
}

func (a *App) jobs(w http.ResponseWriter, r *http.Request) {
	active, recent, err := a.srv.Jobs(r.Context(), 10)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, jobList{Active: active, Recent: recent})
}

// jobEvents streams the job list as server-sent events whenever it
// changes (checked every 250 ms), for the status page's progress view.
func (a *App) jobEvents(w http.ResponseWriter, r *http.Request) {
	sse, ok := newSSE(w)
	if !ok {
		return
	}
	var last []byte
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	keep := time.Now()
	for {
		// A list that cannot be read now is sent at the next tick.
		active, recent, err := a.srv.Jobs(r.Context(), 10)
		data, _ := json.Marshal(jobList{Active: active, Recent: recent})
		if err == nil && !bytes.Equal(data, last) || time.Since(keep) > 15*time.Second {
			if sse.event("jobs", data) != nil {
				return
			}
			last, keep = data, time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// askStream answers a question as server-sent events: "token" events
// with the raw reply as it is written, then "done" with the checked
// answer (JSON, plus its HTML), or "error".
func (a *App) askStream(w http.ResponseWriter, r *http.Request) {
	raw, err := a.srv.ArgsFromQuery("gno_ask", r.URL.Query())
	var ans *answer.Answer
	sse, ok := newSSE(w)
	if !ok {
		return
	}
	if err == nil {
		ans, err = a.srv.Ask(r.Context(), raw, func(tok string) {
			data, _ := json.Marshal(tok)
			_ = sse.event("token", data)
		})
	}
	if err != nil {
		logHidden(w, err)
		data, _ := json.Marshal(gnoerr.BodyOf(err))
		_ = sse.event("error", data)
		return
	}
	var html bytes.Buffer
	if err := a.pages["ask"].ExecuteTemplate(&html, "answer", answerView(ans)); err != nil {
		a.log.Error("render answer", "err", err)
	}
	data, _ := json.Marshal(struct {
		*answer.Answer
		HTML string `json:"html"`
	}{ans, html.String()})
	_ = sse.event("done", data)
}

// sse writes server-sent events.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) (*sse, bool) {
	f, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return &sse{w: w, f: f}, true
}

func (s *sse) event(name string, data []byte) error {
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}

// statusOf maps a gnoerr code to an HTTP status.
func statusOf(err error) int {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return http.StatusServiceUnavailable
	}
	switch gnoerr.CodeOf(err) {
	case gnoerr.InvalidInput, gnoerr.InvalidPath:
		return http.StatusBadRequest
	case gnoerr.NotFound, gnoerr.PathNotFound:
		return http.StatusNotFound
	case gnoerr.JobConflict, gnoerr.Locked, gnoerr.Conflict, gnoerr.Duplicate, gnoerr.HasReferences:
		return http.StatusConflict
	case gnoerr.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, err error) {
	logHidden(w, err)
	writeJSON(w, statusOf(err), gnoerr.BodyOf(err))
}

// logHidden logs err with the request's method and path when its text
// is not what the client is shown (gnoerr.Public), so that "see the
// server's log" finds it there; w is the errorLog handle wrapped.
func logHidden(w http.ResponseWriter, err error) {
	if el, ok := w.(*errorLog); ok && gnoerr.Public(err) != err.Error() {
		el.log.Error("request failed", "method", el.r.Method, "path", el.r.URL.Path, "err", err)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
