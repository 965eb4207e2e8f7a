// Package ollama serves gno's query expander and embedder from an Ollama
// server, through Ollama's own typed client (github.com/ollama/ollama/api).
//
// The server is the config URL, else OLLAMA_HOST, else
// http://127.0.0.1:11434. Every call honours its context's deadline and,
// when the context has none, a default timeout, so an absent or stuck
// server costs a bounded wait and yields an *Error with a short Reason.
//
// Reranking is not offered: Ollama has no rerank endpoint (no
// cross-encoder scoring in /api/*), so use the in-process ONNX reranker
// or an OpenAI-compatible /v1/rerank server (package openai).
//
// It owns the Ollama wire calls; it must not parse expansion replies
// (inference/expand does) or choose when it is used (inference/backend).
package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// errBodyTooLarge stops reading a response that exceeds the cap, so a
// runaway server cannot make us buffer without bound.
var errBodyTooLarge = errors.New("response body too large")

// resolveHost turns a configured address into the server URL. An empty
// address defers to OLLAMA_HOST (parsed the way the ollama CLI does); a
// bare "host" or "host:port" gets http:// and, without a port, 11434.
func resolveHost(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return envconfig.Host(), nil
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("ollama URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("ollama URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("ollama URL %q: no host", raw)
	}
	if !strings.Contains(raw, "://") && u.Port() == "" {
		u.Host += ":11434"
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// newClient builds the api client. The HTTP client has no overall timeout
// (contexts bound each call) but caps response bodies at maxBody bytes;
// a caller-supplied client is used as is.
func newClient(base *url.URL, hc *http.Client, maxBody int64) (*api.Client, *http.Client) {
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		hc = &http.Client{Transport: &limitTransport{base: tr, max: maxBody}}
	}
	return api.NewClient(base, hc), hc
}

type bodyStateKey struct{}

// bodyState records how reading a response body ended. The api package's
// stream reader drops read errors (and then reports the cut-off last line
// as malformed), so without it an oversized reply or a dropped connection
// would be misreported.
type bodyState struct {
	overflow atomic.Bool // the body passed the size cap
	broken   atomic.Bool // reading failed before EOF (connection closed)
}

func withBodyState(ctx context.Context) (context.Context, *bodyState) {
	st := new(bodyState)
	return context.WithValue(ctx, bodyStateKey{}, st), st
}

// explain prefers what the body reader saw over err's own wording.
func (st *bodyState) explain(op string, err error) *Error {
	switch {
	case st.overflow.Load():
		return newErr(ErrBadResponse, op, "response too long", err)
	case st.broken.Load():
		return newErr(ErrUnavailable, op, "connection closed mid-response", err)
	}
	return nil
}

type limitTransport struct {
	base http.RoundTripper
	max  int64
}

func (t *limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || t.max <= 0 {
		return resp, err
	}
	st, _ := r.Context().Value(bodyStateKey{}).(*bodyState)
	resp.Body = &limitedBody{rc: resp.Body, left: t.max, st: st}
	return resp, nil
}

// limitedBody fails with errBodyTooLarge instead of silently truncating,
// so a cut-off JSON document is reported as too long rather than as
// malformed.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	st   *bodyState // may be nil
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Exactly max bytes is fine; only a byte beyond it is an overflow.
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n == 0 && err != nil {
			b.noteErr(err)
			return 0, err
		}
		if b.st != nil {
			b.st.overflow.Store(true)
		}
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	b.noteErr(err)
	return n, err
}

func (b *limitedBody) noteErr(err error) {
	if err != nil && err != io.EOF && b.st != nil {
		b.st.broken.Store(true)
	}
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// withDefaultTimeout bounds ctx by d unless it already has a deadline, so
// a caller that forgot one still never hangs.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func closeIdle(hc *http.Client) {
	if hc != nil {
		hc.CloseIdleConnections()
	}
}
