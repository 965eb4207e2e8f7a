package server

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/server/auth"
	"github.com/gnosearch/gno/server/jobs"
	"github.com/mark3labs/mcp-go/mcp"
)

// The methods below let another front end in the same process (the web
// app and its REST API, through its own web.Backend interface) run the
// MCP tools: same argument checks, same handlers, same structuredContent,
// so /api/search and gno_search cannot drift apart.

// Call runs a tool with raw arguments as tools/call would and returns its
// structuredContent and human text. Errors carry gnoerr codes; a panic in
// the handler becomes a RUNTIME error.
func (s *Server) Call(ctx context.Context, name string, raw map[string]any) (out any, text string, err error) {
	d, ok := s.defs[name]
	if !ok {
		return nil, "", gnoerr.New(gnoerr.NotFound, "no tool %q (write tools need --enable-write)", name)
	}
	if !d.readOnly && !auth.CanWrite(ctx) {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "%s", auth.ErrReadOnly)
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

// Jobs lists the running and up to limit recent background jobs, this
// server's and the other servers' of the index.
func (s *Server) Jobs(ctx context.Context, limit int) (active, recent []jobs.Job, err error) {
	return s.runner.List(ctx, limit)
}

// StartEmbed starts embedding the chunks that lack vectors as a
// background job. It takes the one job slot, like gno_sync.
func (s *Server) StartEmbed(ctx context.Context, collection string) (jobs.Job, error) {
	if !auth.CanWrite(ctx) {
		return jobs.Job{}, gnoerr.New(gnoerr.InvalidInput, "%s", auth.ErrReadOnly)
	}
	e, err := s.engine(ctx)
	if err != nil {
		return jobs.Job{}, err
	}
	if err := s.runner.Reserve(); err != nil {
		return jobs.Job{}, err
	}
	var cols []string
	if collection != "" {
		cols = []string{collection}
	}
	je := s.runner.Start("embed", cols, nil, func(jctx context.Context, progress func(ingest.Progress)) (any, error) {
		return e.Embed(jctx, retrieval.EmbedOptions{Collection: collection, Progress: func(done, total int) {
			progress(ingest.Progress{Collection: "vectors", Done: done, Total: total})
		}})
	})
	return s.runner.Snapshot(je), nil
}

// Ask answers a question given as gno_ask arguments (checked against its
// input schema, as tools/call would), passing the raw reply to onToken
// (may be nil) as it streams.
func (s *Server) Ask(ctx context.Context, raw map[string]any, onToken func(string)) (*answer.Answer, error) {
	d := s.defs["gno_ask"]
	a, err := validateArgs(parseSchema(d.input), raw)
	if err != nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s", err.Error())
	}
	return s.answer(ctx, a, onToken)
}
