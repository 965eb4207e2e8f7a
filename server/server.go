// Package server is gno's MCP server: the spec's tools and resources over
// stdio or streamable HTTP, on top of the retrieval engine. It holds no
// search logic of its own; it validates arguments, calls the engine, and
// shapes results and errors the way gno-mcp-spec.md says.
//
// It must not build search requests a second way (it uses
// retrieval.SearchRequest.Validate and Engine.Run) nor write user files
// itself (the engine's Notes part does).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/server/jobs"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// EnvEnableWrite enables the write tools like --enable-write when set to 1.
const EnvEnableWrite = "GNO_MCP_ENABLE_WRITE"

// WriteEnabledByEnv reports whether the environment turns write tools on.
func WriteEnabledByEnv() bool {
	v, _ := strconv.ParseBool(os.Getenv(EnvEnableWrite))
	return v
}

// Options configure a Server.
type Options struct {
	// Open opens the engine. It is called on the first request that needs
	// the index, never at start-up, so initialize stays fast.
	Open func(ctx context.Context) (*retrieval.Engine, error)
	// Version is the server version reported in initialize.
	Version string
	// EnableWrite registers the write tools.
	EnableWrite bool
	// Logger receives diagnostics; nil discards them. It must never write
	// to stdout when serving stdio.
	Logger *slog.Logger
	// PageSize is how many documents one resources/list page holds
	// (default 100).
	PageSize int
	// ValidateOutput checks every structuredContent against the tool's
	// outputSchema before it is sent (for tests).
	ValidateOutput bool
	// OpenPackages opens the package-docs index (tools_packages.go), on
	// the first package tool call; nil makes those tools unavailable.
	OpenPackages func(ctx context.Context) (*pkgdocs.Index, error)
	// WorkDir is the project of a package tool when neither its argument
	// nor the client's roots name one (default: the working folder).
	WorkDir string
}

// Server is one MCP server over one index.
type Server struct {
	opts   Options
	log    *slog.Logger
	mcp    *mcpsrv.MCPServer
	runner *jobs.Runner

	engMu sync.Mutex
	eng   *retrieval.Engine

	// book is the index as the job runner records jobs in it, opened on
	// first use (jobBook).
	bookMu sync.Mutex
	book   store.Backend

	// reads holds documents read by the resources/read hook for the
	// handler that follows it (see resources.go).
	reads sync.Map

	// defs are the registered tools by name, for Call (the REST API).
	defs map[string]toolDef

	// pkgs is the package-docs index, opened on first use; roots the
	// clients' roots (roots.go).
	pkgMu sync.Mutex
	pkgs  *pkgdocs.Index
	roots rootsCache
}

const instructions = `gno searches the user's local documents (notes, docs, Markdown).

How to search well:
- Start with gno_query (hybrid: keywords + meaning, reranked). Use gno_search for exact words, names or identifiers, gno_vsearch for concepts phrased differently from the text.
- If results are not relevant: first rephrase the query (free, often effective: other words, fewer words, the terms the documents would use); then retry gno_query with thorough: true for better recall.
- Narrow with collection, tagsAny/tagsAll or minScore; raise limit (max 100) to see more.
- Results give a URI (gno://collection/path) and a docid (#abc12345). Read a document with gno_get (fromLine/lineCount for long ones), several with gno_multi_get, or as the resource gno://collection/path.
- gno_status shows collections and index health; gno_list_tags the tags in use.

For the project's dependencies (Go, npm, Python, Rust, Swift) at the versions it really uses: gno_search_package_docs finds the API item, README or doc section that answers a question; gno_describe_package gives a package's summary, install, usage and API (with symbol: one item's signature, doc and examples); gno_get_package_doc reads its README, a section, or what matches a query; gno_package_changes says what changed between two versions (API and changelog) before an upgrade. The project is the client's roots unless you pass project.`

// New builds a server. Nothing is opened until a request needs it.
func New(opts Options) *Server {
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.Version == "" {
		opts.Version = "0.0.0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, log: log}
	s.runner = jobs.New(log, s.jobBook)
	hooks := &mcpsrv.Hooks{}
	hooks.AddBeforeReadResource(s.beforeReadResource)
	hooks.AddBeforeListResources(s.beforeListResources)
	hooks.AddAfterListResources(s.afterListResources)
	hooks.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, err error) {
		s.log.Debug("request failed", "id", id, "method", method, "err", err)
	})
	sopts := []mcpsrv.ServerOption{
		mcpsrv.WithToolCapabilities(false),
		mcpsrv.WithResourceCapabilities(false, false),
		mcpsrv.WithPromptCapabilities(false),
		mcpsrv.WithLogging(),
		mcpsrv.WithCompletions(),
		mcpsrv.WithResourceCompletionProvider(completer{s}),
		mcpsrv.WithInstructions(instructions),
		mcpsrv.WithHooks(hooks),
		mcpsrv.WithResourceRecovery(),
		mcpsrv.WithToolFilter(s.filterTools), // read tokens see no write tool (share.go)
	}
	if opts.ValidateOutput {
		sopts = append(sopts, mcpsrv.WithOutputSchemaValidation())
	}
	s.mcp = mcpsrv.NewMCPServer("gno", opts.Version, sopts...)
	var tools []mcpsrv.ServerTool
	s.defs = map[string]toolDef{}
	defs := append(readTools(), graphTools()...)
	defs = append(defs, askTool())
	defs = append(defs, packageTools()...)
	defs = append(defs, reconcileTools()...)
	if opts.EnableWrite {
		defs = append(defs, writeTools()...)
		defs = append(defs, noteTools()...)
	}
	for _, d := range defs {
		s.defs[d.name] = d
		tools = append(tools, s.serverTool(d))
	}
	s.mcp.AddTools(tools...)
	s.mcp.AddNotificationHandler(string(mcp.MethodNotificationRootsListChanged), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if sess := mcpsrv.ClientSessionFromContext(ctx); sess != nil {
			s.roots.forget(sess.SessionID())
		}
	})
	s.addResources()
	return s
}

// MCP returns the underlying mcp-go server (for in-process clients).
func (s *Server) MCP() *mcpsrv.MCPServer { return s.mcp }

// Close cancels running jobs, waits for them, and closes the engine.
func (s *Server) Close() error {
	s.runner.Shutdown()
	s.bookMu.Lock()
	if s.book != nil {
		s.book.Close()
		s.book = nil
	}
	s.bookMu.Unlock()
	s.pkgMu.Lock()
	if s.pkgs != nil {
		s.pkgs.Close()
		s.pkgs = nil
	}
	s.pkgMu.Unlock()
	s.engMu.Lock()
	defer s.engMu.Unlock()
	if s.eng != nil {
		err := s.eng.Close()
		s.eng = nil
		return err
	}
	return nil
}

// engine opens the index on first use; a failure is retried next time.
func (s *Server) engine(ctx context.Context) (*retrieval.Engine, error) {
	s.engMu.Lock()
	defer s.engMu.Unlock()
	if s.eng != nil {
		return s.eng, nil
	}
	if s.opts.Open == nil {
		return nil, gnoerr.New(gnoerr.Unavailable, "no index configured")
	}
	e, err := s.opts.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	s.eng = e
	return e, nil
}

// jobBook opens the index the runner records jobs in, so that every
// server of a shared index sees them: a connection of its own (the
// engine keeps its store to itself), at the engine's location.
func (s *Server) jobBook(ctx context.Context) (jobs.Book, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return nil, err
	}
	s.bookMu.Lock()
	defer s.bookMu.Unlock()
	if s.book != nil {
		return s.book, nil
	}
	b, err := store.OpenBackend(ctx, retrieval.StoreLocation(e.Paths, e.Config()))
	if err != nil {
		return nil, fmt.Errorf("open index for its jobs: %w", err)
	}
	s.book = b
	return b, nil
}

// toolDef is one tool: its description, schemas, annotations and handler.
type toolDef struct {
	name, title, desc string
	input             string
	output            func() json.RawMessage // built on first use (outputSchema)
	readOnly          bool
	destructive       bool
	idempotent        bool
	// rpcErrors answers failures as JSON-RPC errors (rpcerror.go): the
	// tools of reconcile-cache-mcp.md.
	rpcErrors bool
	run       func(s *Server, ctx context.Context, a args, req mcp.CallToolRequest) (out any, text string, err error)
}

func (d toolDef) tool() mcp.Tool {
	return mcp.Tool{
		Name:            d.name,
		Title:           d.title,
		Description:     d.desc,
		RawInputSchema:  []byte(d.input),
		RawOutputSchema: d.output(),
		Annotations: mcp.ToolAnnotation{
			Title:           d.title,
			ReadOnlyHint:    mcp.ToBoolPtr(d.readOnly),
			DestructiveHint: mcp.ToBoolPtr(d.destructive),
			IdempotentHint:  mcp.ToBoolPtr(d.idempotent),
			// gno reads and writes local files only.
			OpenWorldHint: mcp.ToBoolPtr(false),
		},
	}
}

// serverTool wraps a handler with argument validation, error shaping and
// panic recovery: whatever happens, the client gets a tool result.
func (s *Server) serverTool(d toolDef) mcpsrv.ServerTool {
	sch := parseSchema(d.input)
	fail := func(ctx context.Context, err error) (*mcp.CallToolResult, error) {
		if !d.rpcErrors {
			return errorResult(err), nil
		}
		e := newRPCToolError(err)
		keepRPCError(ctx, e)
		return nil, e
	}
	return mcpsrv.ServerTool{Tool: d.tool(), Handler: func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, rerr error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in tool handler", "tool", d.name, "panic", r, "stack", string(debug.Stack()))
				res, rerr = fail(ctx, gnoerr.New(gnoerr.Runtime, "internal error in %s: %v", d.name, r))
			}
		}()
		raw, err := validateArgs(sch, req.Params.Arguments)
		if err != nil {
			return fail(ctx, gnoerr.New(gnoerr.InvalidInput, "%s", err.Error()))
		}
		out, text, err := d.run(s, ctx, args(raw), req)
		if err != nil {
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (%v)", err, ctx.Err())
			}
			s.log.Info("tool failed", "tool", d.name, "code", gnoerr.CodeOf(err), "err", err)
			return fail(ctx, err)
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: text}},
			StructuredContent: out,
		}, nil
	}}
}

// errorResult turns err into an isError result carrying the spec's code
// in the text and in structuredContent.
func errorResult(err error) *mcp.CallToolResult {
	body := gnoerr.BodyOf(err)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: "Error: " + string(body.Error.Code) + ": " + body.Error.Message}},
		StructuredContent: body,
	}
}

// progressToken returns the token a client sent to receive progress, or
// nil.
func progressToken(req mcp.CallToolRequest) mcp.ProgressToken {
	if req.Params.Meta == nil {
		return nil
	}
	return req.Params.Meta.ProgressToken
}

// sendProgress reports progress for token. Over stdio it is written at
// once, before the call's result can be; over HTTP mcp-go drains queued
// notifications ahead of the response.
func (s *Server) sendProgress(ctx context.Context, token mcp.ProgressToken, progress, total float64, message string) {
	if token == nil {
		return
	}
	params := map[string]any{"progressToken": token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	if sess, ok := mcpsrv.ClientSessionFromContext(ctx).(*stdioSession); ok {
		sess.out.write(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: "notifications/progress", Params: mcp.NotificationParams{AdditionalFields: params}}})
		return
	}
	if err := s.mcp.SendNotificationToClient(ctx, "notifications/progress", params); err != nil {
		s.log.Debug("progress notification not sent", "err", err)
	}
}

// settleProgress makes sure the client has handled the progress
// notifications sent so far before the result follows (stdio only; over
// HTTP each is its own SSE event).
func (s *Server) settleProgress(ctx context.Context) {
	if sess, ok := mcpsrv.ClientSessionFromContext(ctx).(*stdioSession); ok && sess.t != nil {
		sess.t.roundTrip(ctx)
	}
}

// logToClient sends a log message to the client (subject to the level it
// asked for) and to the local log.
func (s *Server) logToClient(ctx context.Context, level mcp.LoggingLevel, msg string) {
	s.log.Info(msg, "level", level)
	n := mcp.NewLoggingMessageNotification(level, "gno", msg)
	if err := s.mcp.SendLogMessageToClient(ctx, n); err != nil {
		s.log.Debug("log notification not sent", "err", err)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// oneLine squeezes s onto one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
