package openai

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
)

// Error kinds. Every error a backend call returns is an *Error whose Kind
// is one of these, so callers can branch with errors.Is and show Reason().
var (
	// ErrUnavailable: no server answered usefully (refused, unknown host,
	// connection dropped, any HTTP error other than a missing model).
	ErrUnavailable = errors.New("openai-compatible server unavailable")
	// ErrModelNotFound: the server runs but does not serve the model.
	ErrModelNotFound = errors.New("openai-compatible model not found")
	// ErrTimeout: the context's deadline (or the default timeout) passed.
	ErrTimeout = errors.New("openai-compatible server timeout")
	// ErrBadResponse: the server answered, but not with anything usable.
	ErrBadResponse = errors.New("openai-compatible bad response")
	// ErrInvalid: the caller's input is unusable.
	ErrInvalid = errors.New("openai-compatible invalid request")
)

// Error is a failed call. Detail is short enough for a query's meta;
// Error() adds the operation and the cause.
type Error struct {
	Kind   error  // one of the Err* sentinels
	Op     string // "embed", "expand", "rerank"
	Detail string
	Err    error // underlying cause, may be nil
}

// Reason is the short reason for a query's meta; the ollama package's
// errors have the same method, so the pipeline can read either through
// errors.As(err, &r) with r of type interface{ Reason() string }.
func (e *Error) Reason() string { return e.Detail }

func (e *Error) Error() string {
	msg := "openai " + e.Op + ": " + e.Detail
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

func newErr(kind error, op, detail string, cause error) *Error {
	return &Error{Kind: kind, Op: op, Detail: detail, Err: cause}
}

var errBodyTooLarge = errors.New("response body too large")

// classify turns transport, context and decoding errors into an *Error.
func classify(op string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var dns *net.DNSError
	var ne net.Error
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return newErr(ErrTimeout, op, "timeout", err)
	case errors.Is(err, context.Canceled):
		return newErr(ErrUnavailable, op, "canceled", err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return newErr(ErrUnavailable, op, "connection refused", err)
	case errors.As(err, &dns):
		return newErr(ErrUnavailable, op, "unknown host "+dns.Name, err)
	case errors.As(err, &ne) && ne.Timeout():
		return newErr(ErrTimeout, op, "timeout", err)
	case errors.Is(err, errBodyTooLarge):
		return newErr(ErrBadResponse, op, "response too long", err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return newErr(ErrUnavailable, op, "connection closed", err)
	case errors.As(err, &syn), errors.As(err, &typ):
		return newErr(ErrBadResponse, op, "invalid JSON", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return newErr(ErrUnavailable, op, shorten(ue.Err.Error(), 80), err)
	}
	return newErr(ErrBadResponse, op, shorten(err.Error(), 80), err)
}

// httpError reads the error shapes servers use: OpenAI/vLLM
// {"error":{"message","code"}}, vLLM {"message","code"}, TEI
// {"error":"…"}, FastAPI/Jina {"detail":"…"}; else the raw body.
func httpError(op string, status int, body []byte, bareBase bool) *Error {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	msg, code := "", ""
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg, code = obj.Message, fmt.Sprint(obj.Code)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case v.Message != "":
			msg = v.Message
		case v.Detail != nil:
			if ds, ok := v.Detail.(string); ok {
				msg = ds
			} else if b, err := json.Marshal(v.Detail); err == nil {
				msg = string(b)
			}
		}
	} else {
		msg = string(body)
	}
	msg = shorten(msg, 120)
	detail := fmt.Sprintf("HTTP %d", status)
	if msg != "" {
		detail += ": " + msg
	}
	lower := strings.ToLower(msg)
	cause := fmt.Errorf("%s", http.StatusText(status))
	switch {
	case code == "model_not_found" || (status == http.StatusNotFound && strings.Contains(lower, "model")):
		return newErr(ErrModelNotFound, op, detail, cause)
	case status == http.StatusNotFound && bareBase:
		return newErr(ErrUnavailable, op, detail+" (does the base URL need /v1?)", cause)
	}
	// 5xx, 401/403, 429, a missing endpoint, or a 400/422 rejecting a
	// parameter the server does not support: either way, not usable now.
	return newErr(ErrUnavailable, op, detail, cause)
}

// shorten trims s to at most n runes on one line, for reasons.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
