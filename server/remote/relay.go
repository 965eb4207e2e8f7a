package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The relays besides the client's requests: its notifications, the
// server's requests and the client's answers to them, a new session when
// the server forgot the old one, and what may be sent twice.

// learnTools records which tools the server marked read-only: a call of
// one may be sent again after a lost connection.
func (b *bridge) learnTools(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range r.Tools {
		b.readOnly[t.Name] = t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	}
}

// replayable reports a request that may run twice: any but a call of a
// tool the server did not mark read-only (a write could happen twice).
func (b *bridge) replayable(req transport.JSONRPCRequest) bool {
	if req.Method != string(mcp.MethodToolsCall) {
		return true
	}
	var p struct {
		Name string `json:"name"`
	}
	raw, _ := req.Params.(json.RawMessage)
	if json.Unmarshal(raw, &p) != nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.readOnly[p.Name]
}

// notify relays a client notification. A cancellation also ends the
// request here, so its answer is not waited for.
func (b *bridge) notify(ctx context.Context, m *message) {
	switch m.Method {
	case string(mcp.MethodNotificationInitialized):
		b.mu.Lock()
		b.initialized = true
		b.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
			b.mu.Lock()
			cancel := b.inflight[idKey(p.RequestID)]
			b.mu.Unlock()
			if cancel != nil {
				defer cancel() // after the server hears of it
			}
		}
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: m.Method}}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &n.Params); err != nil {
			b.log.Warn("gno mcp --remote: dropped a notification with unreadable params", "method", m.Method)
			return
		}
	}
	for attempt := 0; ; attempt++ {
		f := &failure{}
		err := b.tr.SendNotification(withFailure(ctx, f), n)
		if err == nil || ctx.Err() != nil {
			return
		}
		be := explain(b.o.URL, err, f)
		if be.lost {
			be.retry = true // a notification may arrive twice
		}
		if !be.retry || attempt >= len(b.o.Retry) {
			b.log.Error("gno mcp --remote: a notification was lost: "+be.msg, "method", m.Method)
			return
		}
		select {
		case <-time.After(b.o.Retry[attempt]):
		case <-ctx.Done():
			return
		}
	}
}

// serverRequest relays a request of the server (roots/list, sampling,
// elicitation) to the client and waits for its answer.
func (b *bridge) serverRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	raw, err := json.Marshal(req.ID)
	if err != nil {
		return nil, err
	}
	key := idKey(raw)
	ch := make(chan *transport.JSONRPCResponse, 1)
	b.mu.Lock()
	b.pending[key] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, key)
		b.mu.Unlock()
	}()
	b.write(req)
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// clientResponse hands the client's answer to the server request waiting
// for it.
func (b *bridge) clientResponse(m *message) {
	key := idKey(m.ID)
	b.mu.Lock()
	ch := b.pending[key]
	b.mu.Unlock()
	if ch == nil {
		b.log.Warn("gno mcp --remote: the client answered a request nobody is waiting for", "id", string(m.ID))
		return
	}
	var id mcp.RequestId
	json.Unmarshal(m.ID, &id)
	resp := &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: m.Result}
	if len(m.Error) > 0 {
		resp.Error = &mcp.JSONRPCErrorDetails{}
		if err := json.Unmarshal(m.Error, resp.Error); err != nil {
			resp.Error = &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "unreadable error from the client"}
		}
	}
	select {
	case ch <- resp:
	default:
	}
}

// renew starts a new session after the server forgot old (it restarted,
// or the session idled out), replaying the client's initialize and
// initialized. Concurrent requests that failed on the same session renew
// it once.
func (b *bridge) renew(ctx context.Context, old string) error {
	b.reinitMu.Lock()
	defer b.reinitMu.Unlock()
	if cur := b.tr.GetSessionId(); cur != "" && cur != old {
		return nil // another request renewed it
	}
	b.mu.Lock()
	params, initialized := b.initParams, b.initialized
	b.reinits++
	n := b.reinits
	b.mu.Unlock()
	if params == nil {
		return &bridgeError{code: mcp.INVALID_REQUEST, msg: "the session has ended and the client never sent initialize"}
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("gno-remote-reinit-%d", n)),
		Method: string(mcp.MethodInitialize), Params: params}
	resp, err := b.send(ctx, req)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return &bridgeError{code: resp.Error.Code, msg: "the server refused a new session: " + resp.Error.Message}
	}
	b.setProtocol(resp.Result)
	if initialized {
		if err := b.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}); err != nil {
			return explain(b.o.URL, err, &failure{})
		}
	}
	b.log.Warn("gno mcp --remote: the server had forgotten the session (restarted?); started a new one")
	return nil
}
