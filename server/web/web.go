// Package web is gno's local web app and REST API (`gno serve`): search
// with the three modes (results follow the words as they are typed), a
// per-stage explain view, documents rendered from the index with their
// front matter as properties, answers with citations, index status and
// live job progress; a graph view of the whole index's links and each
// note's local graph (graphview.go: laid out on the server by
// retrieval/graph/layout, drawn on a canvas by the ES modules under
// assets/graph/); and, with --enable-write, a workspace: an editor, a
// folder and a tag browser, quick capture, collections, and a command
// palette (Ctrl/⌘-K) on every page.
//
// Pages are server-rendered html/template with a few kilobytes of
// progressive vanilla JavaScript; every asset is embedded in the binary,
// served gzipped (assets.go), and there is no build step. The REST API under /api/ runs the MCP
// server's own tool handlers (Backend.Call), so its JSON is the tools'
// structuredContent, byte for byte the same shapes; the workspace's own
// endpoints (edit.go, palette.go, browse.go) call the engine's parts, and
// its writes go through the same calls and path rules as MCP (note.Path,
// ingest.Indexes), under the writer lock.
//
// The editor is a plain <textarea>, not CodeMirror: CodeMirror 6 needs a
// bundler (it ships as ES modules), about 150 KB of script, and injects
// its styles at run time, which the strict style-src 'self' refuses
// without nonces. The textarea keeps the CSP, the no-build rule and the
// page weight; editor.js adds what CodeMirror would: [[link and #tag
// completion in a listbox placed at the caret (a measured mirror of the
// text), a preview rendered by the server with the document view's own
// renderer, autosave with a visible state, and saves that name the
// version they edit (Notes.Save), refused with a diff when the file
// changed on disk.
//
// The package owns the pages, the REST routes and their safety checks. It
// reaches the index only through its Backend (the MCP server provides
// one) and must not import the MCP server package.
//
// Safety: loopback only unless ListenAny (then behind an auth.Guard over
// TLS: access tokens, a login, read tokens refused on writes); Host and
// Origin checked against DNS rebinding; writes need EnableWrite, a same-origin request and the
// page's CSRF token in X-Gno-Csrf; documents are rendered from the index by
// reference only (never a path on disk), without their HTML, under a
// strict Content-Security-Policy; an original file (/file, a PDF) is
// served by reference too, inside its collection by note.Path.
package web

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/jobs"
	"github.com/gnosearch/gno/server/listen"
)

//go:embed assets templates
var files embed.FS

// CSRFHeader carries the CSRF token on write requests.
const CSRFHeader = "X-Gno-Csrf"

// csp allows the page's own scripts, styles and API calls and nothing
// else: no inline script, no plugin, no framing, no foreign images.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Link is one end of a link between two documents.
type Link struct {
	DocID string `json:"docid"`
	URI   string `json:"uri"`
	Title string `json:"title,omitempty"`
	// Line is where the link is written (in the linking document).
	Line int `json:"line,omitempty"`
}

// LinkGraph gives a document's links when the index has a links graph
// (Graph.Links). Without one, the document view lists the links written
// in the document and says backlinks need the graph.
type LinkGraph interface {
	Links(ctx context.Context, ref string) (outgoing, incoming []Link, err error)
}

// LinksFunc adapts a function (e.g. a closure over Graph.Links) to
// LinkGraph.
type LinksFunc func(ctx context.Context, ref string) (outgoing, incoming []Link, err error)

// Links calls f.
func (f LinksFunc) Links(ctx context.Context, ref string) (outgoing, incoming []Link, err error) {
	return f(ctx, ref)
}

// Backend is what the app needs from the rest of gno: the MCP tools run
// in-process (the REST API is those tools), the engine for the pages
// that read the index directly, answers, and the background jobs.
// *server.Server is one.
type Backend interface {
	// Call runs a tool with raw arguments as tools/call would and returns
	// its structuredContent and human text.
	Call(ctx context.Context, tool string, args map[string]any) (out any, text string, err error)
	// ArgsFromQuery turns URL query parameters into a tool's arguments,
	// typed by its input schema.
	ArgsFromQuery(tool string, q url.Values) (map[string]any, error)
	// Engine opens (once) and returns the index.
	Engine(ctx context.Context) (*retrieval.Engine, error)
	// Ask answers a question given as gno_ask arguments, passing the raw
	// reply to onToken (may be nil) as it streams.
	Ask(ctx context.Context, args map[string]any, onToken func(string)) (*answer.Answer, error)
	// Jobs lists the running and up to limit recent background jobs,
	// of every server of the index.
	Jobs(ctx context.Context, limit int) (active, recent []jobs.Job, err error)
	// StartEmbed starts embedding the chunks that lack vectors as a
	// background job.
	StartEmbed(ctx context.Context, collection string) (jobs.Job, error)
}

// Options configure the web app.
type Options struct {
	// Backend runs the tools and owns the engine. Required.
	Backend Backend
	// EnableWrite turns on the write endpoints (sync, embed, tag); the
	// Backend must have its write tools on too.
	EnableWrite bool
	// ListenAny allows a non-loopback address, Host and Origin.
	ListenAny bool
	// Links gives a document's links and backlinks; nil means the
	// index's own links graph (Graph.Links).
	Links LinkGraph
	// Graph gives the whole link graph to the graph view (/graph) and to
	// each note's local graph; nil means the index's own (Graph.Whole).
	Graph GraphSource
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// MCP, if not nil, is served at MCPPath beside the app (the daemon and
	// the sharing mode serve people and agents on one port; the MCP
	// server's MCPHandler is one).
	MCP http.Handler
	// Guard, if not nil, wraps the whole app (the sharing mode's
	// auth.Guard.Wrap); TLS, if not nil, serves HTTPS only.
	Guard func(http.Handler) http.Handler
	TLS   *tls.Config
}

// MCPPath is where Options.MCP is mounted; it matches the MCP server's
// EndpointPath (server tests check), so clients see one URL either way.
const MCPPath = "/mcp"

// App is the web app as an http.Handler.
type App struct {
	opts   Options
	srv    Backend
	log    *slog.Logger
	csrf   string
	pages  map[string]*template.Template
	mux    *http.ServeMux
	assets assetCache
	graph  *GraphHandler
	// busy counts the requests in flight that a background layout gives
	// way to (all but event streams and the scene itself).
	busy atomic.Int64
}

// New builds the app.
func New(o Options) (*App, error) {
	if o.Backend == nil {
		return nil, errors.New("web: no backend")
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("web: csrf token: %w", err)
	}
	if o.Links == nil {
		o.Links = engineGraph{srv: o.Backend}
	}
	if o.Graph == nil {
		o.Graph = engineScene{srv: o.Backend}
	}
	a := &App{opts: o, srv: o.Backend, log: log, csrf: hex.EncodeToString(tok[:]), mux: http.NewServeMux()}
	if err := a.parseTemplates(); err != nil {
		return nil, err
	}
	a.routes()
	return a, nil
}

// CSRFToken is the token write requests must carry in X-Gno-Csrf.
func (a *App) CSRFToken() string { return a.csrf }

func (a *App) routes() {
	a.mux.HandleFunc("GET /assets/", a.assets.serveAsset)
	a.mux.HandleFunc("GET /{$}", a.searchPage)
	a.mux.HandleFunc("GET /doc", a.docPage)
	a.mux.HandleFunc("GET /ask", a.askPage)
	a.mux.HandleFunc("GET /status", a.statusPage)
	a.mux.HandleFunc("GET /browse", a.browsePage)
	a.mux.HandleFunc("GET /tags", a.tagsPage)
	a.mux.HandleFunc("GET /edit", a.editPage)
	a.mux.HandleFunc("GET /file", a.filePage)
	a.mux.HandleFunc("GET /go", a.followPage)
	a.graphRoutes()
	if a.opts.MCP != nil {
		a.mux.Handle(MCPPath, a.opts.MCP)
	}
	a.restRoutes()
}

// ServeHTTP applies the safety checks and headers, then routes.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !a.opts.ListenAny {
		host := r.Host
		if hn, _, err := net.SplitHostPort(host); err == nil {
			host = hn
		}
		if !listen.IsLoopback(host) {
			a.log.Warn("refused request with foreign Host", "host", r.Host)
			http.Error(w, fmt.Sprintf("Forbidden: host %q is not allowed (gno serves loopback only; see --listen-any)", r.Host), http.StatusForbidden)
			return
		}
	}
	// Another site's page may link to gno's pages, but not call its API
	// (an <img> or fetch GET carries no Origin; browsers send this).
	if strings.HasPrefix(r.URL.Path, "/api/") && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		http.Error(w, "Forbidden: cross-site API request", http.StatusForbidden)
		return
	}
	if p := r.URL.Path; p != "/api/graph/scene" && p != "/api/jobs/events" && p != "/api/ask/stream" {
		a.busy.Add(1)
		defer a.busy.Add(-1)
	}
	listen.CheckOrigin(a.mux, a.opts.ListenAny, a.log).ServeHTTP(w, r)
}

// WatchGraph keeps the graph view's scene laid out for the index as it
// changes, in the background and giving way to every other request,
// until ctx ends (GraphHandler.Watch): the first visit to /graph, and
// once the view was opened the first after a sync, finds it ready.
// Serve runs it.
func (a *App) WatchGraph(ctx context.Context) { a.graph.Watch(ctx, graphWatchInterval) }

// graphWatchInterval is how often WatchGraph looks at the index: one
// small query each time, and a change is laid out one interval after
// the last write of a burst.
const graphWatchInterval = 2 * time.Second

// sameOrigin guards writes: the CSRF token must match and a browser's
// Origin (or, without one, Sec-Fetch-Site) must be this very server.
func (a *App) sameOrigin(r *http.Request) error {
	if r.Header.Get(CSRFHeader) != a.csrf {
		return gnoerr.New(gnoerr.InvalidInput, "missing or wrong %s header (write requests need the token from the page)", CSRFHeader)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return gnoerr.New(gnoerr.InvalidInput, "cross-origin write refused (origin %q)", o)
		}
	} else if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return gnoerr.New(gnoerr.InvalidInput, "cross-site write refused (%s)", s)
	}
	return nil
}

// Serve listens on addr and serves the app until ctx ends. ready, if not
// nil, gets the bound address.
func Serve(ctx context.Context, addr string, o Options, ready func(addr string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "invalid --addr %q (want HOST:PORT, e.g. 127.0.0.1:7777)", addr)
	}
	if !o.ListenAny && !listen.IsLoopback(host) {
		return gnoerr.New(gnoerr.InvalidInput, "refusing to listen on %q: it is not a loopback address; use 127.0.0.1:PORT, or pass --listen-any to expose your documents to the network", addr)
	}
	app, err := New(o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	var h http.Handler = app
	if o.Guard != nil {
		h = o.Guard(app)
	}
	if o.TLS != nil {
		ln = tls.NewListener(ln, o.TLS)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go app.WatchGraph(wctx)
	return listen.Run(ctx, hs, ln, ready, nil)
}
