package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/mark3labs/mcp-go/mcp"
)

// The reconcile tools (reconcile-cache-mcp.md) answer a failure as a
// JSON-RPC error, as that spec says: -32602 (invalid params) for input
// the caller must change, -32603 (internal error) for a failure of git,
// the files or the cache; gno's own code and message ride in the error's
// data ({"code","message"}, the shape of gno's other error bodies), so an
// agent sees the same code whichever tool failed. Every other tool keeps
// MCP's isError results.
//
// mcp-go answers any handler error with -32603 and no data, so the
// handler leaves its error in a slot the transport put in the request's
// context, and the transport rewrites the response from it (stdio.go's
// dispatch, share.go's HTTP wrapper).

// rpcToolError is a reconcile tool's failure, returned to mcp-go as the
// handler's error.
type rpcToolError struct {
	code int
	body gnoerr.Body
}

func (e *rpcToolError) Error() string { return e.body.Error.Message }

// newRPCToolError maps err to its JSON-RPC code: input errors are invalid
// params, anything else internal.
func newRPCToolError(err error) *rpcToolError {
	body := gnoerr.BodyOf(err)
	code := mcp.INTERNAL_ERROR
	switch body.Error.Code {
	case gnoerr.InvalidInput, gnoerr.InvalidPath, gnoerr.NotFound, gnoerr.PathNotFound:
		code = mcp.INVALID_PARAMS
	}
	return &rpcToolError{code: code, body: body}
}

// jsonRPC is the JSON-RPC error of e for request id.
func (e *rpcToolError) jsonRPC(id mcp.RequestId) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
		Error: mcp.NewJSONRPCErrorDetails(e.code, e.body.Error.Message, e.body.Error)}
}

// rpcSlot holds the failure of the one tool call a request carries.
type rpcSlot struct {
	mu  sync.Mutex
	err *rpcToolError
}

type rpcSlotKey struct{}

// withRPCSlot gives ctx a slot for a request's tool failure.
func withRPCSlot(ctx context.Context) (context.Context, *rpcSlot) {
	sl := &rpcSlot{}
	return context.WithValue(ctx, rpcSlotKey{}, sl), sl
}

// keep records e in ctx's slot, if it has one.
func keepRPCError(ctx context.Context, e *rpcToolError) {
	if sl, ok := ctx.Value(rpcSlotKey{}).(*rpcSlot); ok {
		sl.mu.Lock()
		sl.err = e
		sl.mu.Unlock()
	}
}

// fix turns mcp-go's generic internal error into the tool's own, when the
// handler left one.
func (sl *rpcSlot) fix(resp mcp.JSONRPCMessage) mcp.JSONRPCMessage {
	sl.mu.Lock()
	e := sl.err
	sl.mu.Unlock()
	if e == nil {
		return resp
	}
	switch r := resp.(type) {
	case mcp.JSONRPCError:
		return e.jsonRPC(r.ID)
	case *mcp.JSONRPCError:
		return e.jsonRPC(r.ID)
	}
	return resp
}

// fixRPCErrors is the HTTP side of the rewrite: once a reconcile tool has
// failed, the response (JSON, or the SSE event carrying it) is held and
// its JSON-RPC error replaced by the tool's own. Anything else streams
// through untouched.
func fixRPCErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ctx, slot := withRPCSlot(r.Context())
		fw := &rpcFixWriter{ResponseWriter: w, slot: slot}
		next.ServeHTTP(fw, r.WithContext(ctx))
		fw.finish()
	})
}

// rpcFixWriter holds what mcp-go writes after a reconcile tool failed.
type rpcFixWriter struct {
	http.ResponseWriter
	slot *rpcSlot
	held bytes.Buffer
}

func (w *rpcFixWriter) failed() bool {
	w.slot.mu.Lock()
	defer w.slot.mu.Unlock()
	return w.slot.err != nil
}

func (w *rpcFixWriter) Write(p []byte) (int, error) {
	if w.failed() {
		return w.held.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes through until the response is held.
func (w *rpcFixWriter) Flush() {
	if w.held.Len() > 0 || w.failed() {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *rpcFixWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the held response with its error replaced: a JSON body,
// or the SSE data lines of an event stream.
func (w *rpcFixWriter) finish() {
	if w.held.Len() == 0 {
		return
	}
	body := w.held.Bytes()
	if fixed, ok := w.fixJSON(bytes.TrimSpace(body)); ok {
		w.ResponseWriter.Write(append(fixed, '\n'))
		return
	}
	lines := bytes.Split(body, []byte("\n"))
	for i, l := range lines {
		if data, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			if fixed, ok := w.fixJSON(data); ok {
				lines[i] = append([]byte("data: "), fixed...)
			}
		}
	}
	w.ResponseWriter.Write(bytes.Join(lines, []byte("\n")))
}

// fixJSON rewrites one JSON-RPC error message.
func (w *rpcFixWriter) fixJSON(data []byte) ([]byte, bool) {
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &msg) != nil || len(msg.Error) == 0 {
		return nil, false
	}
	var id any
	if json.Unmarshal(msg.ID, &id) != nil {
		return nil, false
	}
	out, err := json.Marshal(w.slot.fix(mcp.JSONRPCError{ID: mcp.NewRequestId(id)}))
	return out, err == nil
}
