package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/expand"
)

// ExpanderConfig configures an Ollama-served query expander.
type ExpanderConfig struct {
	// URL of the server; empty means OLLAMA_HOST, then 127.0.0.1:11434.
	URL string
	// Model is the Ollama model name, e.g. "qwen3:1.7b". Required.
	Model string
	// API is "chat" (/api/chat, the default) or "generate" (/api/generate).
	API string
	// NoStream asks for one JSON reply instead of an NDJSON stream.
	// Streaming is the default because an overlong reply is cut as soon
	// as it passes Limits.MaxResponseBytes.
	NoStream bool
	// Timeout bounds a call whose context has no deadline (default 30s).
	Timeout time.Duration
	// MaxTokens is Ollama's num_predict, the generation cap (default 400).
	MaxTokens int
	// CacheSize is the LRU size per expander (default 256; < 0 disables).
	CacheSize int
	// Limits bound the parsed reply; zero fields take expand.DefaultLimits.
	Limits expand.Limits
	// HTTPClient replaces the default client (no timeout, capped bodies).
	HTTPClient *http.Client
}

// Expander implements inference.Expander with an Ollama chat model. It is
// safe for concurrent use.
type Expander struct {
	client    *api.Client
	hc        *http.Client
	model     string
	generate  bool
	stream    bool
	timeout   time.Duration
	maxTokens int
	limits    expand.Limits
	cache     *expand.Cache
}

var _ inference.Expander = (*Expander)(nil)

// NewExpander checks the configuration; it does not contact the server, so
// an absent Ollama only shows when Expand is called.
func NewExpander(cfg ExpanderConfig) (*Expander, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, errors.New("ollama expander: no model configured")
	}
	var generate bool
	switch strings.ToLower(strings.TrimSpace(cfg.API)) {
	case "", "chat":
	case "generate":
		generate = true
	default:
		return nil, fmt.Errorf("ollama expander: API %q: want \"chat\" or \"generate\"", cfg.API)
	}
	base, err := resolveHost(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("ollama expander: %w", err)
	}
	lim := cfg.Limits.WithDefaults()
	e := &Expander{
		model:     model,
		generate:  generate,
		stream:    !cfg.NoStream,
		timeout:   cfg.Timeout,
		maxTokens: cfg.MaxTokens,
		limits:    lim,
	}
	if e.timeout <= 0 {
		e.timeout = 30 * time.Second
	}
	if e.maxTokens <= 0 {
		e.maxTokens = 400
	}
	size := cfg.CacheSize
	if size == 0 {
		size = 256
	}
	e.cache = expand.NewCache(size)
	e.client, e.hc = newClient(base, cfg.HTTPClient, max(1<<20, 64*int64(lim.MaxResponseBytes)))
	return e, nil
}

// ModelID names the backend and model, e.g. "ollama:qwen3:1.7b".
func (e *Expander) ModelID() string { return "ollama:" + e.model }

// Close drops idle connections to the server.
func (e *Expander) Close() error {
	closeIdle(e.hc)
	return nil
}

// Expand asks the model for keyword rewrites and a hypothetical passage.
// Results are cached per (model, query). Every failure is an *Error whose
// Reason() fits in a query's meta; the caller treats any error as
// "no expansion".
func (e *Expander) Expand(ctx context.Context, query string) (*inference.Expansion, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, newErr(ErrInvalid, "expand", "empty query", nil)
	}
	if exp, ok := e.cache.Get(e.model, q); ok {
		return exp, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, classify("expand", err)
	}
	ctx, cancel := withDefaultTimeout(ctx, e.timeout)
	defer cancel()

	raw, err := e.complete(ctx, q)
	if err != nil {
		return nil, err
	}
	exp, perr := expand.Parse(raw, q, e.limits)
	if perr != nil {
		return nil, newErr(ErrBadResponse, "expand", perr.Error(), nil)
	}
	e.cache.Put(e.model, q, exp)
	return exp, nil
}

// errIncomplete marks a reply that ended without Ollama's final done message.
var errIncomplete = errors.New("reply ended before done")

// complete runs one chat or generate call and returns the reply text.
func (e *Expander) complete(ctx context.Context, q string) (string, error) {
	ctx, st := withBodyState(ctx)
	stream := e.stream
	think := &api.ThinkValue{Value: false}
	opts := map[string]any{"temperature": 0, "num_predict": e.maxTokens}

	var b strings.Builder
	done := false
	add := func(s string, isDone bool) error {
		b.WriteString(s)
		if b.Len() > e.limits.MaxResponseBytes {
			return newErr(ErrBadResponse, "expand", "response too long", nil)
		}
		done = done || isDone
		return nil
	}

	var err error
	if e.generate {
		req := &api.GenerateRequest{
			Model: e.model, System: expand.SystemPrompt, Prompt: expand.UserPrompt(q),
			Stream: &stream, Format: expand.Schema, Options: opts, Think: think,
		}
		err = e.client.Generate(ctx, req, func(r api.GenerateResponse) error { return add(r.Response, r.Done) })
	} else {
		req := &api.ChatRequest{
			Model: e.model,
			Messages: []api.Message{
				{Role: "system", Content: expand.SystemPrompt},
				{Role: "user", Content: expand.UserPrompt(q)},
			},
			Stream: &stream, Format: expand.Schema, Options: opts, Think: think,
		}
		err = e.client.Chat(ctx, req, func(r api.ChatResponse) error { return add(r.Message.Content, r.Done) })
	}
	if err == nil && !done {
		// The api package ends a stream quietly on read errors.
		err = errIncomplete
	}
	if err != nil {
		var own *Error
		switch {
		case errors.As(err, &own):
			return "", own
		case ctx.Err() != nil:
			return "", classify("expand", ctx.Err())
		}
		if e := st.explain("expand", err); e != nil {
			return "", e
		}
		if errors.Is(err, errIncomplete) {
			return "", newErr(ErrUnavailable, "expand", "connection closed mid-response", nil)
		}
		return "", classify("expand", err)
	}
	return b.String(), nil
}
