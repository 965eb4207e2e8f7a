package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
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
type GraphHandler struct {
	src  GraphSource
	opts layout.Options
	log  *slog.Logger

	mu    sync.Mutex
	done  *sceneJob // the latest finished scene
	doing *sceneJob // the scene being laid out
}

// sceneJob is one version's layout, finished when done is closed.
type sceneJob struct {
	version string
	done    chan struct{}
	cancel  context.CancelFunc
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

// ServeHTTP answers GET with the current scene.
func (h *GraphHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	job, err := h.scene(ctx)
	if err != nil {
		writeError(w, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", layout.MediaType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", job.etag)
	hd.Set("Server-Timing", fmt.Sprintf("layout;dur=%.1f", float64(job.took.Microseconds())/1000))
	hd.Set("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, job.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := job.body
	if job.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		hd.Set("Content-Encoding", "gzip")
		body = job.gz
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// Warm lays out the current version now (or waits for the layout under
// way), so the first visit to the graph finds it ready: call it in the
// background after a sync.
func (h *GraphHandler) Warm(ctx context.Context) error {
	_, err := h.scene(ctx)
	return err
}

// scene returns the scene of the graph's current version, laying it
// out (or waiting for the layout under way) when it is not cached.
func (h *GraphHandler) scene(ctx context.Context) (*sceneJob, error) {
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
		h.mu.Unlock()
		select {
		case <-job.done:
		case <-ctx.Done():
			return nil, ctx.Err()
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
		job.body, job.gz, job.err = h.build(ctx)
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

func (h *GraphHandler) build(ctx context.Context) (body, gz []byte, err error) {
	in, err := h.src.GraphInput(ctx)
	if err != nil {
		return nil, nil, err
	}
	scene, res, err := layout.Build(ctx, in, h.opts)
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
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(body); err != nil {
		return nil, nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	return body, buf.Bytes(), nil
}

// graphPage is the graph view's page data.
type graphPage struct {
	// Src is where the scene is fetched from; empty without a source.
	Src string
	// Focus (a document ID) and Depth open the local graph of a note.
	Focus string
	Depth int
}

func (a *App) graphRoutes() {
	// The graph view's script is the app's largest asset (56 KB): served
	// gzipped (17 KB) when the browser accepts it.
	for _, name := range []string{"graph.js", "graph.css"} {
		a.mux.Handle("GET /assets/"+name, gzipAsset(name))
	}
	if a.opts.Graph != nil {
		a.mux.Handle("GET /api/graph/scene", NewGraphHandler(a.opts.Graph, layout.Options{}, a.log))
	}
	a.mux.HandleFunc("GET /graph", func(w http.ResponseWriter, r *http.Request) {
		p := graphPage{Focus: r.URL.Query().Get("focus")}
		p.Depth, _ = strconv.Atoi(r.URL.Query().Get("depth"))
		p.Depth = min(max(p.Depth, 1), 3)
		if a.opts.Graph != nil {
			p.Src = "/api/graph/scene"
		}
		a.render(w, r, "graph", http.StatusOK, page{Title: "Graph", Data: p})
	})
}

// gzipAsset serves an embedded asset compressed once, at start.
func gzipAsset(name string) http.Handler {
	raw, err := files.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	gz := buf.Bytes()
	sum := sha256.Sum256(raw)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	ctype := mime.TypeByExtension(path.Ext(name))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Vary", "Accept-Encoding")
		h.Set("ETag", etag)
		if strings.Contains(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := raw
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			body = gz
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
}
