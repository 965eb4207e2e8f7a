package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// bridgeError is why the bridge answers a request itself.
type bridgeError struct {
	code  int
	msg   string
	retry bool // the request never reached the server: trying again is safe
	// lost is a connection lost after the whole request went out: trying
	// again is safe only for a request that may run twice (replayable).
	lost bool
}

func (e *bridgeError) Error() string { return e.msg }

// failure is the HTTP refusal of one request, caught by capture before
// mcp-go reads the body: mcp-go reports a 401 or a 4xx to initialize
// without the server's words, which say what is wrong.
type failure struct {
	mu         sync.Mutex
	status     int
	message    string
	retryAfter string
}

type failureKey struct{}

func withFailure(ctx context.Context, f *failure) context.Context {
	return context.WithValue(ctx, failureKey{}, f)
}

func (f *failure) get() (int, string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, f.message, f.retryAfter
}

// capture is the HTTP transport that records refusals in the request's
// failure, leaving the body for mcp-go to read too. It also adds the
// token to every request that lacks it: mcp-go builds some requests (the
// session's DELETE at Close) without the headers it was given, and a
// DELETE the guard refuses leaves the session alive on the server.
type capture struct {
	base  http.RoundTripper
	token string
}

func (c capture) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.token != "" && r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context()) // a RoundTripper must not modify its request
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	f, ok := r.Context().Value(failureKey{}).(*failure)
	if !ok {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	f.status, f.message, f.retryAfter = resp.StatusCode, serverMessage(body), resp.Header.Get("Retry-After")
	f.mu.Unlock()
	return resp, nil
}

// serverMessage is the message of gno's error shape ({"error": {"message"}}),
// of a JSON-RPC error, or the start of a plain body.
func serverMessage(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &e) == nil && e.Message != "" {
			return e.Message
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// explain turns a failed exchange into the message the client shows:
// what happened, in the server's words when it refused, and what to do.
func explain(endpoint string, err error, f *failure) *bridgeError {
	var pe *PinError
	if errors.As(err, &pe) {
		return &bridgeError{code: CodeRefused, msg: pe.Error()}
	}
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var cv *tls.CertificateVerificationError
	if errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cv) {
		return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("the certificate of %s is not trusted (%v): a gno team server's own certificate is trusted by its fingerprint; "+
			"pass --fingerprint with the SHA-256 fingerprint gno serve printed", endpoint, unwrapAll(err))}
	}
	if status, msg, after := f.get(); status != 0 {
		switch status {
		case http.StatusUnauthorized:
			return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("the team server at %s refused the access token (%s): set GNO_TOKEN (or --token-file) to a live token from its owner's `gno token create`", endpoint, msg)}
		case http.StatusForbidden:
			return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("the team server at %s refused the request: %s", endpoint, msg)}
		case http.StatusTooManyRequests:
			return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("the team server at %s is refusing this address after repeated failed attempts; retry in %ss", endpoint, after)}
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return &bridgeError{code: CodeUnreachable, msg: fmt.Sprintf("the team server at %s is unavailable (HTTP %d: %s)", endpoint, status, msg), retry: true}
		case http.StatusNotFound, http.StatusMethodNotAllowed:
			return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("%s is not an MCP endpoint (HTTP %d): give the address gno serve --listen-any printed, https://HOST:PORT", endpoint, status)}
		default:
			return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("the team server at %s answered HTTP %d: %s", endpoint, status, msg)}
		}
	}
	if errors.Is(err, transport.ErrLegacySSEServer) {
		return &bridgeError{code: CodeRefused, msg: fmt.Sprintf("%s does not speak MCP's streamable HTTP: give the address gno serve --listen-any printed", endpoint)}
	}
	// A dial that failed sent nothing; a write that failed sent part of
	// the request at most (a kept-alive connection the server closed when
	// it stopped), which no server acts on. Both are safe to try again. A
	// read that failed came after the whole request: it may have run.
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "write") {
		return &bridgeError{code: CodeUnreachable, msg: fmt.Sprintf("cannot reach the team server at %s: %v", endpoint, op.Err), retry: true}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &bridgeError{code: CodeUnreachable, msg: fmt.Sprintf("cannot reach the team server at %s: %v", endpoint, dns), retry: dns.IsTemporary || dns.IsTimeout}
	}
	return &bridgeError{code: CodeUnreachable, lost: true, msg: fmt.Sprintf("lost the connection to the team server at %s before its answer (the request may or may not have run): %v", endpoint, unwrapAll(err))}
}

// unwrapAll is the innermost error: mcp-go wraps "failed to send request"
// twice around what matters.
func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
