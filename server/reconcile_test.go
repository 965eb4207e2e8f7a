package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/mark3labs/mcp-go/mcp"
)

// The reconcile tools answer without --enable-write, match their output
// schemas, and refuse bad input with gno's codes.
func TestReconcileTools(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_affected", map[string]any{"since": 0})
	if len(sc["changed"].([]any)) != len(fixtureDocs) || len(sc["notes"].([]any)) != 0 {
		t.Errorf("affected = %v", sc)
	}
	sc = c.toolOK("gno_diff", map[string]any{"ref": "notes/sub/gamma.md", "since": 0})
	if d := sc["diff"].(string); !strings.HasPrefix(d, "diff --git a/sub/gamma.md b/sub/gamma.md\n--- /dev/null\n+++ b/sub/gamma.md\n") {
		t.Errorf("own diff = %q", d)
	}
	sc = c.toolOK("gno_mark_reconciled", map[string]any{"files": []string{"notes/alpha.md", "gno://notes/nope.md"}, "cursor": "agent-1"})
	if sc["updated"] != float64(1) || len(sc["missing"].([]any)) != 1 {
		t.Errorf("mark = %v", sc)
	}
	sc = c.toolOK("gno_clear_reconciled", map[string]any{"cursor": "agent-1"})
	if sc["cleared"] != true {
		t.Errorf("clear = %v", sc)
	}
	sc = c.toolOK("gno_changes", map[string]any{"since": 0, "diff": true})
	diffs := 0
	for _, a := range sc["added"].([]any) {
		if d, _ := a.(map[string]any)["diff"].(string); strings.HasPrefix(d, "diff --git ") {
			diffs++
		}
	}
	if diffs == 0 {
		t.Errorf("changes with diffs = %v", sc)
	}
	// Failures are JSON-RPC errors, as reconcile-cache-mcp.md says, with
	// gno's code in data; over stdio here, over HTTP in
	// TestReconcileErrorsOverHTTP.
	c.rpcErr("gno_diff", map[string]any{"ref": "notes/alpha.md", "since": 0, "cursor": "../x"}, -32602, "INVALID_INPUT")
	c.rpcErr("gno_diff", map[string]any{"ref": "notes/alpha.md"}, -32602, "INVALID_INPUT")
	c.rpcErr("gno_diff", map[string]any{"ref": "notes/none.md", "since": 0}, -32602, "NOT_FOUND")
	c.rpcErr("gno_diff", map[string]any{"since": 0}, -32602, "INVALID_INPUT") // missing required ref
	c.rpcErr("gno_affected", map[string]any{"base": "main"}, -32602, "INVALID_INPUT")
	c.rpcErr("gno_affected", map[string]any{"since": "x"}, -32602, "INVALID_INPUT")
	c.rpcErr("gno_mark_reconciled", map[string]any{"files": []string{"/etc/passwd"}}, -32602, "INVALID_PATH")
	c.rpcErr("gno_mark_reconciled", map[string]any{}, -32602, "INVALID_INPUT")
	c.rpcErr("gno_clear_reconciled", map[string]any{"cursor": "a/b"}, -32602, "INVALID_INPUT")
	// Other tools keep MCP's isError results.
	c.toolErr("gno_get", map[string]any{"ref": "notes/none.md"}, "NOT_FOUND")
}

// rpcErr calls a tool that must fail with a JSON-RPC error of code rpc
// whose data carries gno's code.
func (c *client) rpcErr(name string, args any, rpc float64, code string) {
	c.t.Helper()
	res := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	checkRPCErr(c.t, name, res, rpc, code)
}

func checkRPCErr(t testing.TB, name string, res map[string]any, rpc float64, code string) {
	t.Helper()
	e, ok := res["error"].(map[string]any)
	if !ok {
		t.Fatalf("%s: want a JSON-RPC error %v, got %v", name, rpc, res)
	}
	data, _ := e["data"].(map[string]any)
	if e["code"] != rpc || data["code"] != code || e["message"] == "" || data["message"] != e["message"] {
		t.Fatalf("%s: want JSON-RPC %v with data.code %s, got %v", name, rpc, code, e)
	}
}

// TestReconcileErrorsOverHTTP: the streamable HTTP transport answers the
// same JSON-RPC errors (a JSON body, or the SSE event carrying it), and a
// failing tool outside the spec keeps its isError result.
func TestReconcileErrorsOverHTTP(t *testing.T) {
	f := newFixture(t)
	srv := newTestServer(t, f, false)
	h, stop := srv.MCPHandler(false)
	defer stop(context.Background())
	hs := httptest.NewServer(h)
	defer hs.Close()
	post := func(session string, body map[string]any) (*http.Response, map[string]any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, hs.URL, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, l := range strings.Split(string(raw), "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok && strings.Contains(d, `"id"`) {
					raw = []byte(d)
				}
			}
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("response %q: %v", raw, err)
		}
		return resp, m
	}
	resp, init := post("", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	if init["error"] != nil {
		t.Fatalf("initialize: %v", init)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	call := func(id int, name string, args map[string]any) map[string]any {
		_, m := post(session, map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		return m
	}
	checkRPCErr(t, "gno_diff", call(2, "gno_diff", map[string]any{"ref": "notes/none.md", "since": 0}), -32602, "NOT_FOUND")
	checkRPCErr(t, "gno_clear_reconciled", call(3, "gno_clear_reconciled", map[string]any{"cursor": "../x"}), -32602, "INVALID_INPUT")
	if m := call(4, "gno_get", map[string]any{"ref": "notes/none.md"}); m["error"] != nil || m["result"].(map[string]any)["isError"] != true {
		t.Errorf("gno_get over HTTP: %v", m)
	}
	if m := call(5, "gno_clear_reconciled", map[string]any{"cursor": "http"}); m["error"] != nil {
		t.Errorf("gno_clear_reconciled over HTTP: %v", m)
	}
}

// TestRPCToolErrorCodes: input errors are invalid params, the rest
// internal errors, and no driver text reaches the message.
func TestRPCToolErrorCodes(t *testing.T) {
	for err, want := range map[error]int{
		gnoerr.New(gnoerr.InvalidInput, "bad"):    -32602,
		gnoerr.New(gnoerr.NotFound, "gone"):       -32602,
		gnoerr.New(gnoerr.InvalidPath, "outside"): -32602,
		gnoerr.New(gnoerr.Runtime, "git failed"):  -32603,
		gnoerr.New(gnoerr.Unavailable, "no git"):  -32603,
		errors.New("plain"):                       -32603,
		fmt.Errorf("x: %w", context.Canceled):     -32603,
	} {
		e := newRPCToolError(err)
		if e.code != want {
			t.Errorf("%v: code %d, want %d", err, e.code, want)
		}
		if j := e.jsonRPC(mcp.NewRequestId(1)); j.Error.Code != want || j.Error.Data.(gnoerr.Detail).Code != gnoerr.CodeOf(err) && want == -32602 {
			t.Errorf("%v: %+v", err, j)
		}
	}
}

// TestReconcileSpecProtocol: the protocol points of reconcile-cache-mcp.md
// over stdio: its protocol version is accepted as it is, and malformed
// JSON, an unknown method and an unknown tool get the JSON-RPC codes its
// table lists.
func TestReconcileSpecProtocol(t *testing.T) {
	f := newFixture(t)
	c := rawClient(t, newTestServer(t, f, false))
	res := c.call("initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "notarai", "version": "1"}})
	if r, _ := res["result"].(map[string]any); r == nil || r["protocolVersion"] != "2024-11-05" {
		t.Fatalf("initialize 2024-11-05: %v", res)
	}
	c.notify("notifications/initialized", nil)
	c.sendRaw(`{"jsonrpc":"2.0","id":`)
	if m, _ := c.wait(nil); errCode(m) != -32700 {
		t.Errorf("malformed JSON: %v", m)
	}
	if m := c.call("no/such/method", nil); errCode(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	if m := c.call("tools/call", map[string]any{"name": "list_affected_specs", "arguments": map[string]any{}}); errCode(m) != -32602 {
		t.Errorf("unknown tool: %v", m)
	}
	c.rpcErr("gno_affected", map[string]any{}, -32602, "INVALID_INPUT")
}
