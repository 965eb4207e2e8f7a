package web

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/graph/layout"
)

// GraphSource gives the graph view the whole link graph. The engine's
// graph part implements it; tests use a graph read from files.
type GraphSource interface {
	// GraphVersion names the graph's state: an equal version means an
	// equal graph, so the scene is laid out once per version.
	GraphVersion(ctx context.Context) (string, error)
	// GraphInput returns the documents (ID, title, collection, path,
	// tags), their resolved links and their unresolved ones.
	GraphInput(ctx context.Context) (*layout.Input, error)
}

// GraphHandler serves the laid-out scene of a GraphSource in layout's
// binary encoding (layout.MediaType), gzipped when the client accepts
// it, with an ETag per graph version. The layout runs in one background
// goroutine per version, shared by every request waiting for it and
// cached until the version changes; a request that gives up does not
// cancel it (the next one will want it), a newer version does.
//
// With ?focus=ID (a document ID of the source) it serves that note's
// neighbourhood instead (depth ≤ 3 links, at most maxLocal notes; the
// page picks a smaller depth among them), laid out on the spot: a local
// graph never waits for the whole graph's layout.
//
// A layout nobody waits for (Warm, Watch) gives way to other work: it
// pauses while SetBusy's function reports requests in flight, and runs
// at full speed again as soon as a request waits for its scene.
type GraphHandler struct {
	src  GraphSource
	opts layout.Options
	log  *slog.Logger
	busy func() bool

	// asked is set by the first request for the scene: until then Watch
	// lays out only the graph of the start, not each sync's (a daemon
	// nobody opened the graph view of does not read a million-note
	// graph again after every sync).
	asked atomic.Bool
	// watched, when set (by tests, before Watch starts), hears each of
	// Watch's looks at the state: the state and what Watch did about it
	// ("settling", "warming", "busy", "warmed", "failed", "unasked").
	watched func(state, what string)

	mu    sync.Mutex
	done  *sceneJob // the latest finished scene
	doing *sceneJob // the scene being laid out
}

// maxLocal bounds a local graph (a hub's three-link neighbourhood can be
// the whole vault).
const maxLocal = 1500

// sceneJob is one version's layout, finished when done is closed.
type sceneJob struct {
	version string
	done    chan struct{}
	cancel  context.CancelFunc
	// waiters counts the requests waiting for it: while there are none,
	// the layout gives way to other requests.
	waiters atomic.Int32
	// Set before done closes:
	body, gz []byte
	etag     string
	took     time.Duration
	err      error
}

// NewGraphHandler serves src's scene; opts tune the layout (zero: the
// defaults) and log gets failures (nil: discarded).
func NewGraphHandler(src GraphSource, opts layout.Options, log *slog.Logger) *GraphHandler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &GraphHandler{src: src, opts: opts, log: log}
}

// SetBusy makes layouts nobody waits for pause while busy reports other
// work in flight. Call it before serving.
func (h *GraphHandler) SetBusy(busy func() bool) { h.busy = busy }

// ServeHTTP answers GET with the current scene, or with a note's local
// graph (?focus=ID).
func (h *GraphHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if focus := r.URL.Query().Get("focus"); focus != "" {
		h.serveLocal(w, r, focus)
		return
	}
	h.asked.Store(true)
	job, err := h.scene(ctx, true)
	if err != nil {
		writeError(w, err)
		return
	}
	writeScene(w, r, job)
}

// writeScene sends a laid-out scene with its validators.
func writeScene(w http.ResponseWriter, r *http.Request, job *sceneJob) {
	hd := w.Header()
	hd.Set("Content-Type", layout.MediaType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Server-Timing", fmt.Sprintf("layout;dur=%.1f", float64(job.took.Microseconds())/1000))
	writeVersioned(w, r, job.etag, job.body, job.gz)
}

// serveLocal lays out and sends the neighbourhood of document focus.
func (h *GraphHandler) serveLocal(w http.ResponseWriter, r *http.Request, focus string) {
	ctx := r.Context()
	depth, _ := strconv.Atoi(r.URL.Query().Get("depth"))
	depth = min(max(depth, 1), 3)
	version, err := h.src.GraphVersion(ctx)
	if err != nil {
		writeError(w, err)
		return
	}
	sum := sha256.Sum256([]byte(version + "\x00" + focus + "\x00" + strconv.Itoa(depth)))
	etag := `"l` + hex.EncodeToString(sum[:12]) + `"`
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.Header().Set("ETag", etag)
		w.Header().Set("Vary", "Accept-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	in, err := h.src.GraphInput(ctx)
	if err != nil {
		writeError(w, err)
		return
	}
	at := -1
	for i, d := range in.Docs {
		if d.ID == focus {
			at = i
			break
		}
	}
	if at < 0 {
		writeError(w, gnoerr.New(gnoerr.NotFound, "no document %q in the link graph", focus))
		return
	}
	start := time.Now()
	body, gz, err := h.encode(ctx, layout.Around(in, at, depth, maxLocal), h.opts)
	if err != nil {
		writeError(w, err)
		return
	}
	writeScene(w, r, &sceneJob{etag: etag, body: body, gz: gz, took: time.Since(start)})
}

// Warm lays out the current version now (or waits for the layout under
// way), so the first visit to the graph finds it ready. It gives way to
// other requests (SetBusy) while no request waits for the scene; when
// ctx ends first, a layout it started for nobody else is stopped.
func (h *GraphHandler) Warm(ctx context.Context) error {
	_, err := h.scene(ctx, false)
	return err
}

// scene returns the scene of the graph's current version, laying it
// out (or waiting for the layout under way) when it is not cached. A
// waiting request (wait) makes the layout run at full speed.
func (h *GraphHandler) scene(ctx context.Context, wait bool) (*sceneJob, error) {
	version, err := h.src.GraphVersion(ctx)
	if err != nil {
		return nil, err
	}
	for {
		h.mu.Lock()
		if h.done != nil && h.done.version == version {
			job := h.done
			h.mu.Unlock()
			return job, nil
		}
		job := h.doing
		if job == nil || job.version != version {
			if job != nil {
				job.cancel() // superseded
			}
			job = h.start(version)
		}
		if wait {
			job.waiters.Add(1)
		}
		h.mu.Unlock()
		select {
		case <-job.done:
		case <-ctx.Done():
			if wait {
				job.waiters.Add(-1)
			} else if job.waiters.Load() == 0 {
				job.cancel() // a warm-up given up, wanted by nobody
			}
			return nil, ctx.Err()
		}
		if wait {
			job.waiters.Add(-1)
		}
		if job.err == nil {
			return job, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if job.err != context.Canceled {
			return nil, job.err
		}
		// Canceled by a newer version: wait for that one.
		if version, err = h.src.GraphVersion(ctx); err != nil {
			return nil, err
		}
	}
}

// start lays out version in the background; h.mu is held.
func (h *GraphHandler) start(version string) *sceneJob {
	ctx, cancel := context.WithCancel(context.Background())
	job := &sceneJob{version: version, done: make(chan struct{}), cancel: cancel}
	h.doing = job
	go func() {
		defer cancel()
		start := time.Now()
		job.body, job.gz, job.err = h.build(ctx, job)
		job.took = time.Since(start)
		sum := sha256.Sum256([]byte(version))
		job.etag = `"g` + hex.EncodeToString(sum[:12]) + `"`
		if job.err != nil && job.err != context.Canceled {
			h.log.Error("graph view: layout", "version", version, "err", job.err)
		}
		h.mu.Lock()
		if job.err == nil {
			h.done = job
		}
		if h.doing == job {
			h.doing = nil
		}
		h.mu.Unlock()
		close(job.done)
	}()
	return job
}

// build lays out the source's graph for job.
func (h *GraphHandler) build(ctx context.Context, job *sceneJob) (body, gz []byte, err error) {
	in, err := h.src.GraphInput(ctx)
	if err != nil {
		return nil, nil, err
	}
	opts := h.opts
	if h.busy != nil && opts.Yield == nil {
		opts.Yield = func() { h.giveWay(ctx, job) }
	}
	return h.encode(ctx, in, opts)
}

// encode lays out in and encodes the scene, plain and gzipped.
func (h *GraphHandler) encode(ctx context.Context, in *layout.Input, opts layout.Options) (body, gz []byte, err error) {
	scene, res, err := layout.Build(ctx, in, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, context.Canceled
		}
		return nil, nil, gnoerr.Wrap(gnoerr.Unavailable, err, "graph view: layout of %d documents", len(in.Docs))
	}
	if res.Truncated {
		h.log.Warn("graph view: layout cut short", "nodes", scene.Len(), "elapsed", res.Elapsed)
	}
	body, err = scene.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	return body, gzipBytes(body, gzip.BestSpeed), nil
}

// graphModule is the graph view's script, an ES module; graphModules
// are the modules it imports.
const graphModule = "graph/main.js"

var graphModules = []string{"graph/decode.js", "graph/layer.js", "graph/dom.js", "graph/style.js", "graph/view.js", "graph/draw.js", "graph/ui.js"}

// graphPage is the graph view's page data.
type graphPage struct {
	// Focus (a document ID) and Depth open the local graph of a note.
	Focus string
	Depth int
}

func (a *App) graphRoutes() {
	a.graph = NewGraphHandler(a.opts.Graph, layout.Options{}, a.log)
	a.graph.SetBusy(func() bool { return a.busy.Load() > 0 })
	a.mux.Handle("GET /api/graph/scene", a.graph)
	a.mux.HandleFunc("GET /graph", func(w http.ResponseWriter, r *http.Request) {
		p := graphPage{Focus: r.URL.Query().Get("focus")}
		p.Depth, _ = strconv.Atoi(r.URL.Query().Get("depth"))
		p.Depth = min(max(p.Depth, 1), 3)
		a.render(w, r, "graph", http.StatusOK, page{Title: "Graph", Data: p,
			Styles: []string{"graph.css"}, Modules: []string{graphModule}, Preload: graphModules})
	})
}
