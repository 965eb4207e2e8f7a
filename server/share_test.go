package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gnosearch/gno/server/auth"
	"github.com/gnosearch/gno/server/web"
)

// TestWebMountsMCPAtEndpoint: the web app mounts MCPHandler at its own
// constant (it may not import this package); both must name one URL.
func TestWebMountsMCPAtEndpoint(t *testing.T) {
	if web.MCPPath != EndpointPath {
		t.Fatalf("web.MCPPath %q != EndpointPath %q", web.MCPPath, EndpointPath)
	}
}

// TestReadIdentityNeverWrites checks the layers behind the HTTP 403 (see
// share.go): with a read identity in the context, mcp-go itself hides and
// refuses the write tools, and Call (the REST API) refuses them, even
// for a request the HTTP check would not have parsed the same way.
func TestReadIdentityNeverWrites(t *testing.T) {
	f := newFixture(t)
	srv := New(Options{Open: f.open, EnableWrite: true})
	defer srv.Close()
	read := auth.WithIdentity(context.Background(), auth.Identity{TokenID: "r", Scope: auth.Read})
	write := auth.WithIdentity(context.Background(), auth.Identity{TokenID: "w", Scope: auth.Write})
	msg := func(ctx context.Context, method string, params any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		out, _ := json.Marshal(srv.MCP().HandleMessage(ctx, b))
		return string(out)
	}
	if got := msg(read, "tools/list", map[string]any{}); strings.Contains(got, `"gno_sync"`) || !strings.Contains(got, `"gno_search"`) {
		t.Errorf("a read identity's tools/list: %.300s", got)
	}
	if got := msg(write, "tools/list", map[string]any{}); !strings.Contains(got, `"gno_sync"`) {
		t.Errorf("a write identity's tools/list lacks gno_sync")
	}
	if got := msg(read, "tools/call", map[string]any{"name": "gno_sync", "arguments": map[string]any{}}); !strings.Contains(got, "error") || strings.Contains(got, "jobId") {
		t.Errorf("a read identity's tools/call gno_sync: %.300s", got)
	}
	if _, _, err := srv.Call(read, "gno_tag", map[string]any{"ref": "alpha.md", "add": []any{"x"}}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Call(gno_tag) with a read identity: %v", err)
	}
	if _, err := srv.StartEmbed(read, ""); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("StartEmbed with a read identity: %v", err)
	}
	if _, _, err := srv.Call(read, "gno_search", map[string]any{"query": "fox"}); err != nil {
		t.Errorf("Call(gno_search) with a read identity: %v", err)
	}
	// The HTTP check's parser: a single call, a batch, and not JSON-RPC.
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gno_sync"}}`:                                               true,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gno_capture"}}]`: true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gno_search"}}`:                                             false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gno_job_status"}}`:                                         false,
		`not json`: false,
	} {
		if _, got := srv.callsWriteTool([]byte(body)); got != want {
			t.Errorf("callsWriteTool(%s) = %v, want %v", body, got, want)
		}
	}
}
