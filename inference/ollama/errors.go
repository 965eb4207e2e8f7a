package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"
)

// Error kinds. Every error this package returns is an *Error whose Kind is
// one of these, so callers can branch with errors.Is and show Reason().
var (
	// ErrUnavailable: no server answered usefully (refused, unknown host,
	// connection dropped, HTTP 5xx, unauthorised).
	ErrUnavailable = errors.New("ollama unavailable")
	// ErrModelNotFound: the server runs but lacks the model (HTTP 404).
	ErrModelNotFound = errors.New("ollama model not found")
	// ErrTimeout: the context's deadline (or the default timeout) passed.
	ErrTimeout = errors.New("ollama timeout")
	// ErrBadResponse: the server answered, but not with anything usable
	// (malformed JSON, empty, too long, an echo of the prompt).
	ErrBadResponse = errors.New("ollama bad response")
	// ErrInvalid: the caller's input or configuration is unusable.
	ErrInvalid = errors.New("ollama invalid request")
)

// Error is a failed Ollama call. Detail is short and stable enough to put
// in a query's meta (e.g. "connection refused", "timeout",
// `model "qwen3" not found`); Error() adds the operation and the cause.
type Error struct {
	Kind   error  // one of the Err* sentinels
	Op     string // "expand", "embed"
	Detail string
	Err    error // underlying cause, may be nil
}

// Reason is the short reason for a query's meta. The openai package's
// errors have the same method, so the pipeline can read either through
// errors.As(err, &r) with r of type interface{ Reason() string }.
func (e *Error) Reason() string { return e.Detail }

func (e *Error) Error() string {
	msg := "ollama " + e.Op + ": " + e.Detail
	if e.Err != nil && !strings.Contains(msg, e.Err.Error()) {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes both the kind and the cause, so errors.Is works for
// ErrTimeout as well as for context.DeadlineExceeded.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newErr(kind error, op, reason string, cause error) *Error {
	return &Error{Kind: kind, Op: op, Detail: reason, Err: cause}
}

// classify turns whatever the HTTP client, the api package or the context
// produced into an *Error with a short reason.
func classify(op string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var se api.StatusError
	var ae api.AuthorizationError
	var dns *net.DNSError
	var ne net.Error
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return newErr(ErrTimeout, op, "timeout", err)
	case errors.Is(err, context.Canceled):
		return newErr(ErrUnavailable, op, "canceled", err)
	case errors.As(err, &se):
		msg := shorten(se.ErrorMessage, 120)
		if se.StatusCode == http.StatusNotFound {
			if msg == "" {
				msg = "model not found"
			}
			return newErr(ErrModelNotFound, op, msg, err)
		}
		if msg == "" {
			return newErr(ErrUnavailable, op, fmt.Sprintf("HTTP %d", se.StatusCode), err)
		}
		return newErr(ErrUnavailable, op, fmt.Sprintf("HTTP %d: %s", se.StatusCode, msg), err)
	case errors.As(err, &ae):
		return newErr(ErrUnavailable, op, fmt.Sprintf("HTTP %d: unauthorized", ae.StatusCode), err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return newErr(ErrUnavailable, op, "connection refused", err)
	case errors.As(err, &dns):
		return newErr(ErrUnavailable, op, "unknown host "+dns.Name, err)
	case errors.As(err, &ne) && ne.Timeout():
		return newErr(ErrTimeout, op, "timeout", err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return newErr(ErrUnavailable, op, "connection closed", err)
	case errors.Is(err, errBodyTooLarge):
		return newErr(ErrBadResponse, op, "response too long", err)
	case errors.As(err, &syn), errors.As(err, &typ):
		return newErr(ErrBadResponse, op, "invalid JSON", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return newErr(ErrUnavailable, op, shorten(ue.Err.Error(), 80), err)
	}
	// The api package reports a non-JSON stream line, or an {"error": …}
	// line inside a 200 stream, as a bare error carrying that text.
	return newErr(ErrBadResponse, op, "malformed response: "+shorten(err.Error(), 80), err)
}

// shorten trims s to at most n runes on one line, for reasons and messages.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
