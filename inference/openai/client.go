// Package openai serves gno's embedder, reranker and query expander from
// any OpenAI-compatible HTTP server (OpenAI, vLLM, llama.cpp server,
// LocalAI, LM Studio, TEI, Jina, Cohere-style rerank APIs), with plain
// net/http and encoding/json.
//
// Endpoints are appended to the base URL as is: /embeddings,
// /chat/completions and /rerank. The base URL therefore includes the
// version path where the server has one ("http://gpu-box:8000/v1",
// "https://api.jina.ai/v1"); a TEI server's root ("http://tei:8080")
// serves /rerank directly.
//
// Every call honours its context's deadline and, when the context has
// none, a default timeout. Failures are *Error values with a short
// Reason() for a query's meta.
//
// It owns the OpenAI-compatible wire calls; it must not parse expansion
// replies (inference/expand does) or import another backend.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// DefaultBaseURL is used when neither the config nor OPENAI_BASE_URL names
// a server.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config is what every role needs to reach its server.
type Config struct {
	// BaseURL of the API, e.g. "http://localhost:8000/v1". Empty means
	// OPENAI_BASE_URL, then DefaultBaseURL.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer …". Empty means
	// OPENAI_API_KEY, but only for the server that variable belongs to
	// (the OPENAI_BASE_URL host, or api.openai.com), so a key is never
	// sent to an unrelated host. No key at all sends no header, which
	// local servers accept.
	APIKey string
	// Model is the served model name. Required.
	Model string
	// Timeout bounds a call whose context has no deadline (default 60s).
	Timeout time.Duration
	// MaxResponseBytes caps a response body (default 64 MiB).
	MaxResponseBytes int64
	// HTTPClient replaces http.DefaultClient's transport; contexts bound
	// every call, so it needs no timeout of its own.
	HTTPClient *http.Client
}

// client is the shared HTTP core of the three roles.
type client struct {
	base     *url.URL
	bareBase bool // no path: a 404 may mean "/v1" is missing
	key      string
	model    string
	timeout  time.Duration
	maxBody  int64
	hc       *http.Client
}

func newClient(role string, cfg Config) (*client, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, fmt.Errorf("openai %s: no model configured", role)
	}
	envBase := strings.TrimSpace(os.Getenv("OPENAI_BASE_URL"))
	if envBase == "" {
		envBase = DefaultBaseURL
	}
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		raw = envBase
	}
	base, err := parseBase(raw)
	if err != nil {
		return nil, fmt.Errorf("openai %s: %w", role, err)
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		if eb, err := parseBase(envBase); err == nil && strings.EqualFold(eb.Host, base.Host) {
			key = strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
		}
	}
	c := &client{
		base:     base,
		bareBase: base.Path == "",
		key:      key,
		model:    model,
		timeout:  cfg.Timeout,
		maxBody:  cfg.MaxResponseBytes,
		hc:       cfg.HTTPClient,
	}
	if c.timeout <= 0 {
		c.timeout = 60 * time.Second
	}
	if c.maxBody <= 0 {
		c.maxBody = 64 << 20
	}
	if c.hc == nil {
		c.hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return c, nil
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q: no host", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// send POSTs req as JSON to base+path, asking for accept; the caller
// closes the response body.
func (c *client) send(ctx context.Context, op, path, accept string, req any) (*http.Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, newErr(ErrInvalid, op, "encode request", err)
	}
	u := *c.base
	u.Path += path
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, newErr(ErrInvalid, op, "build request", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", accept)
	if c.key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := c.hc.Do(hr)
	if err != nil {
		return nil, classify(op, err)
	}
	return res, nil
}

// post sends req as JSON to base+path and decodes a 2xx reply into resp.
// Every failure is an *Error for op.
func (c *client) post(ctx context.Context, op, path string, req, resp any) error {
	if err := ctx.Err(); err != nil {
		return classify(op, err)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()

	res, err := c.send(ctx, op, path, "application/json", req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, c.maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return classify(op, ctx.Err())
		}
		return classify(op, err)
	}
	if int64(len(data)) > c.maxBody {
		return classify(op, errBodyTooLarge)
	}
	if res.StatusCode >= 300 {
		return httpError(op, res.StatusCode, data, c.bareBase)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return newErr(ErrBadResponse, op, "empty response", nil)
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return classify(op, err)
	}
	return nil
}

func (c *client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.timeout)
}

func (c *client) close() {
	c.hc.CloseIdleConnections()
}
