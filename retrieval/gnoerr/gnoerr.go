// Package gnoerr defines the error codes of gno's contract and their wire
// form, so the CLI, the MCP server and the REST API report the same
// failure the same way. It owns no behaviour beyond that.
//
// It must not import anything of gno.
package gnoerr

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// Code is one of the spec's machine-readable error codes.
type Code string

// The spec's error codes.
const (
	NotFound      Code = "NOT_FOUND"
	Duplicate     Code = "DUPLICATE"
	Conflict      Code = "CONFLICT"
	HasReferences Code = "HAS_REFERENCES"
	InvalidPath   Code = "INVALID_PATH"
	PathNotFound  Code = "PATH_NOT_FOUND"
	JobConflict   Code = "JOB_CONFLICT"
	Locked        Code = "LOCKED"
	LinkIntegrity Code = "LINK_INTEGRITY"
	// InvalidInput covers bad arguments that no other code names (empty
	// query, malformed REF).
	InvalidInput Code = "INVALID_INPUT"
	// Unavailable means a needed part (vectors, a model) is not installed.
	Unavailable Code = "UNAVAILABLE"
	// Runtime is an internal failure (I/O, database).
	Runtime Code = "RUNTIME"
)

// Error is an error with a contract code.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error with code and message around err.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code of the first Error in err's chain, or Runtime.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Runtime
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Detail is the wire form of an error: its code and message.
type Detail struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Body is the JSON body of a failure, {"error":{"code","message"}}: the
// structuredContent of a failed MCP tool call and the body of a failed
// REST request alike.
type Body struct {
	Error Detail `json:"error"`
}

// BodyOf is err's Body, its message Public. A cancelled or timed-out
// context is a Runtime failure whatever the code of the error it cut
// short.
func BodyOf(err error) Body {
	code := CodeOf(err)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		code = Runtime
	}
	return Body{Error: Detail{Code: code, Message: Public(err)}}
}

// hidden is the test HideText registered.
var hidden atomic.Pointer[func(error) bool]

// HideText registers the test for errors whose text is a component's own
// and means nothing to a user (the index database's: retrieval/store
// registers it when linked), so that Public never shows it.
func HideText(f func(error) bool) { hidden.Store(&f) }

// Internal is what a user or an agent reads of an error whose text is
// hidden: what to do, the detail going to the log.
const Internal = "internal error in the index database (the detail is logged: run the command with -v, or see the server's log)"

// Public is err's message as a user or an agent may read it: its text,
// unless that carries a component's own text (HideText), in which case the
// message of the outermost Error in its chain, if any, followed by
// Internal, else Internal alone. Front ends print Public(err), and log
// err itself.
func Public(err error) string {
	if f := hidden.Load(); f == nil || !(*f)(err) {
		return err.Error()
	}
	why := Internal
	if f := explained.Load(); f != nil {
		if x := (*f)(err); x != "" {
			why = x
		}
	}
	var e *Error
	if errors.As(err, &e) && e.Msg != "" {
		return e.Msg + " (" + why + ")"
	}
	return why
}

// explained is the function ExplainText registered.
var explained atomic.Pointer[func(error) string]

// ExplainText registers what a hidden error means in a user's words when
// its cause is one a user can act on (a full disk, a read-only folder, a
// damaged file): Public says that instead of Internal. It returns "" for
// any other error.
func ExplainText(f func(error) string) { explained.Store(&f) }
