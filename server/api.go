package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/mark3labs/mcp-go/mcp"
)

// The functions below let other front ends (the web app's REST API) run
// the MCP tools in-process: same argument checks, same handlers, same
// structuredContent, so /api/search and gno_search cannot drift apart.

// HasTool reports whether the tool is registered (write tools only with
// EnableWrite).
func (s *Server) HasTool(name string) bool {
	_, ok := s.defs[name]
	return ok
}

// Call runs a tool with raw arguments as tools/call would and returns its
// structuredContent and human text. Errors carry gnoerr codes; a panic in
// the handler becomes a RUNTIME error.
func (s *Server) Call(ctx context.Context, name string, raw map[string]any) (out any, text string, err error) {
	d, ok := s.defs[name]
	if !ok {
		return nil, "", gnoerr.New(gnoerr.NotFound, "no tool %q (write tools need --enable-write)", name)
	}
	defer func() {
		if r := recover(); r != nil {
			out, text, err = nil, "", gnoerr.New(gnoerr.Runtime, "internal error in %s: %v", name, r)
		}
	}()
	a, err := validateArgs(parseSchema(d.input), raw)
	if err != nil {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "%s", err.Error())
	}
	return d.run(s, ctx, args(a), mcp.CallToolRequest{})
}

// ArgsFromQuery turns URL query parameters into a tool's arguments, typed
// by its input schema: numbers and booleans are parsed, an array takes
// repeated or comma-separated values. "q" stands for "query" (or
// "question").
func (s *Server) ArgsFromQuery(name string, q url.Values) (map[string]any, error) {
	d, ok := s.defs[name]
	if !ok {
		return nil, gnoerr.New(gnoerr.NotFound, "no tool %q", name)
	}
	sch := parseSchema(d.input)
	out := map[string]any{}
	for key, vals := range q {
		if key == "q" {
			key = "query"
			if _, ok := sch.Properties["question"]; ok {
				key = "question"
			}
		}
		p := sch.Properties[key]
		if p == nil || len(vals) == 0 {
			continue
		}
		v := vals[len(vals)-1]
		switch p.Type {
		case "integer", "number":
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, gnoerr.New(gnoerr.InvalidInput, "parameter %q must be a number, not %q", key, v)
			}
			out[key] = f
		case "boolean":
			if v == "" || v == "on" {
				v = "true"
			}
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, gnoerr.New(gnoerr.InvalidInput, "parameter %q must be true or false, not %q", key, v)
			}
			out[key] = b
		case "array":
			var items []any
			for _, v := range vals {
				for _, it := range strings.Split(v, ",") {
					if it = strings.TrimSpace(it); it != "" {
						items = append(items, it)
					}
				}
			}
			if len(items) > 0 {
				out[key] = items
			}
		default:
			out[key] = v
		}
	}
	return out, nil
}

// OutputSchema is a tool's output JSON Schema (nil if unknown).
func (s *Server) OutputSchema(name string) json.RawMessage {
	if d, ok := s.defs[name]; ok && d.output != nil {
		return d.output()
	}
	return nil
}

// Engine opens (once) and returns the server's engine.
func (s *Server) Engine(ctx context.Context) (*retrieval.Engine, error) { return s.engine(ctx) }

// ErrorBody is the JSON body of a failed call, the same
// {"error":{"code","message"}} a failed tool call carries.
func ErrorBody(err error) any {
	code := gnoerr.CodeOf(err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		code = gnoerr.Runtime
	}
	return errorBody{Error: errorDetail{Code: code, Message: err.Error()}}
}

// Jobs lists the running and up to limit recent background jobs.
func (s *Server) Jobs(limit int) (active, recent []Job) { return s.jobs.list(limit) }

// StartEmbed starts embedding the chunks that lack vectors as a
// background job. It takes the one job slot, like gno_sync.
func (s *Server) StartEmbed(ctx context.Context, collection string) (Job, error) {
	e, err := s.engine(ctx)
	if err != nil {
		return Job{}, err
	}
	if err := s.jobs.reserve(); err != nil {
		return Job{}, err
	}
	var cols []string
	if collection != "" {
		cols = []string{collection}
	}
	je := s.jobs.start("embed", cols, nil, func(jctx context.Context, progress func(ingest.Progress)) (any, error) {
		return e.Embed(jctx, retrieval.EmbedOptions{Collection: collection, Progress: func(done, total int) {
			progress(ingest.Progress{Collection: "vectors", Done: done, Total: total})
		}})
	})
	return s.jobs.snapshot(je), nil
}

// IsLoopback reports whether host (a name or IP, brackets allowed) is
// localhost or a loopback address.
func IsLoopback(host string) bool { return isLoopback(host) }

// CheckOrigin wraps next with the MCP endpoint's Origin check: unless
// listenAny, a browser request must come from a loopback origin.
func (s *Server) CheckOrigin(next http.Handler, listenAny bool) http.Handler {
	return s.checkOrigin(next, listenAny)
}

// Validate checks raw arguments against a tool's input schema, as Call
// does, for callers that run the work themselves (streaming answers).
func (s *Server) Validate(name string, raw map[string]any) (map[string]any, error) {
	d, ok := s.defs[name]
	if !ok {
		return nil, gnoerr.New(gnoerr.NotFound, "no tool %q", name)
	}
	a, err := validateArgs(parseSchema(d.input), raw)
	if err != nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s", err.Error())
	}
	return a, nil
}
