package server

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func newTestServer(t *testing.T, f *fixture, write bool) *Server {
	t.Helper()
	s := New(Options{Open: f.open, Version: "1.2.3", EnableWrite: write, ValidateOutput: true})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestInitializeIsLazyAndDeclaresCapabilities(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, false)
	c := rawClient(t, s)
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	r := res["result"].(map[string]any)
	info := r["serverInfo"].(map[string]any)
	if info["name"] != "gno" || info["version"] != "1.2.3" {
		t.Fatalf("serverInfo = %v", info)
	}
	caps := r["capabilities"].(map[string]any)
	for _, k := range []string{"tools", "resources", "logging", "completions", "prompts"} {
		if caps[k] == nil {
			t.Errorf("capability %s missing: %v", k, caps)
		}
	}
	if caps["resources"].(map[string]any)["subscribe"] == true || caps["tools"].(map[string]any)["listChanged"] == true {
		t.Errorf("capabilities claim subscribe/listChanged: %v", caps)
	}
	if !strings.Contains(r["instructions"].(string), "thorough") {
		t.Errorf("instructions lack the retry strategy: %v", r["instructions"])
	}
	c.notify("notifications/initialized", nil)
	c.call("tools/list", nil)
	c.call("resources/templates/list", nil)
	c.call("prompts/list", nil)
	c.call("ping", nil)
	if n := f.opens.Load(); n != 0 {
		t.Fatalf("index opened %d times before any tool needed it", n)
	}
	c.toolOK("gno_status", nil)
	if n := f.opens.Load(); n != 1 {
		t.Fatalf("index opened %d times, want 1", n)
	}
}

func TestToolsListSchemasAndAnnotations(t *testing.T) {
	f := newFixture(t)
	for _, write := range []bool{false, true} {
		c := startClient(t, newTestServer(t, f, write))
		tools := c.call("tools/list", nil)["result"].(map[string]any)["tools"].([]any)
		names := map[string]map[string]any{}
		for _, x := range tools {
			tool := x.(map[string]any)
			names[tool["name"].(string)] = tool
			ann := tool["annotations"].(map[string]any)
			for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				if _, ok := ann[k]; !ok {
					t.Errorf("%s: annotation %s not set explicitly", tool["name"], k)
				}
			}
			if ann["openWorldHint"] != false {
				t.Errorf("%s: openWorldHint = %v", tool["name"], ann["openWorldHint"])
			}
			out, ok := tool["outputSchema"].(map[string]any)
			if !ok || out["type"] != "object" {
				t.Errorf("%s: outputSchema = %v", tool["name"], tool["outputSchema"])
			}
			if tool["description"] == "" || tool["inputSchema"].(map[string]any)["type"] != "object" {
				t.Errorf("%s: description or inputSchema missing", tool["name"])
			}
		}
		read := []string{"gno_search", "gno_vsearch", "gno_query", "gno_get", "gno_multi_get", "gno_status", "gno_list_tags", "gno_changes"}
		writeNames := []string{"gno_capture", "gno_add_collection", "gno_sync", "gno_remove_collection", "gno_tag", "gno_job_status", "gno_list_jobs"}
		for _, n := range read {
			if names[n] == nil {
				t.Errorf("read tool %s missing", n)
			} else if names[n]["annotations"].(map[string]any)["readOnlyHint"] != true {
				t.Errorf("%s: readOnlyHint not true", n)
			}
		}
		for _, n := range writeNames {
			if (names[n] != nil) != write {
				t.Errorf("write=%v: tool %s registered=%v", write, n, names[n] != nil)
			}
		}
		if write {
			for _, n := range []string{"gno_capture", "gno_remove_collection", "gno_tag"} {
				if names[n]["annotations"].(map[string]any)["destructiveHint"] != true {
					t.Errorf("%s: destructiveHint not true", n)
				}
			}
		}
		lim := names["gno_search"]["inputSchema"].(map[string]any)["properties"].(map[string]any)["limit"].(map[string]any)
		if lim["minimum"] != 1.0 || lim["maximum"] != 100.0 || lim["default"] != 5.0 {
			t.Errorf("limit schema = %v", lim)
		}
	}
}

func TestSearchTools(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_search", map[string]any{"query": "fox", "limit": 2})
	results := sc["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("want 2 results, got %d", len(results))
	}
	for _, r := range results {
		r := r.(map[string]any)
		if strings.ContainsAny(r["snippet"].(string), "\x01\x02") {
			t.Errorf("snippet keeps match markers: %q", r["snippet"])
		}
		if !strings.HasPrefix(r["uri"].(string), "gno://notes/") || !strings.HasPrefix(r["docid"].(string), "#") {
			t.Errorf("bad result %v", r)
		}
	}
	if m := sc["meta"].(map[string]any); m["mode"] != "bm25" || m["query"] != "fox" || m["totalResults"] != 2.0 {
		t.Errorf("meta = %v", m)
	}
	r := c.tool("gno_search", map[string]any{"query": "fox", "collection": "NOTES"})
	if !strings.Contains(text(r), "Found") || !strings.Contains(text(r), "gno://notes/") {
		t.Errorf("text = %q", text(r))
	}
	sc = c.toolOK("gno_search", map[string]any{"query": "foxes", "tagsAll": []any{"work"}})
	if rs := sc["results"].([]any); len(rs) != 1 || rs[0].(map[string]any)["uri"] != "gno://notes/sub/beta.md" {
		t.Errorf("tag filter: %v", rs)
	}
	c.toolErr("gno_search", map[string]any{"query": "fox", "collection": "nope"}, "NOT_FOUND")
	c.toolErr("gno_search", map[string]any{"query": "  "}, "INVALID_INPUT")
	msg := c.toolErr("gno_vsearch", map[string]any{"query": "fox"}, "UNAVAILABLE")
	if !strings.Contains(msg, "gno index") {
		t.Errorf("vsearch error should suggest gno index: %q", msg)
	}
	sc = c.toolOK("gno_query", map[string]any{"query": "fox", "fast": true, "rerank": false})
	if m := sc["meta"].(map[string]any); m["mode"] != "bm25_only" || m["vectorsUsed"] != false {
		t.Errorf("query meta = %v", m)
	}
}

func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{}, `missing required argument "query"`},
		{map[string]any{"query": 5}, `must be a string`},
		{map[string]any{"query": "x", "limit": 101}, `at most 100`},
		{map[string]any{"query": "x", "limit": 0}, `at least 1`},
		{map[string]any{"query": "x", "limit": 2.5}, `must be an integer`},
		{map[string]any{"query": "x", "limit": "5"}, `must be an integer`},
		{map[string]any{"query": "x", "minScore": 1.5}, `at most 1`},
		{map[string]any{"query": "x", "minScore": -0.1}, `at least 0`},
		{map[string]any{"query": "x", "tagsAny": "work"}, `must be an array`},
		{map[string]any{"query": "x", "tagsAny": []any{1}}, `must be a string`},
		{[]any{1, 2}, `must be a JSON object`},
		{map[string]any{"query": strings.Repeat("fox ", 2_600_000)}, `too long`},
	} {
		msg := c.toolErr("gno_search", tc.args, "INVALID_INPUT")
		if !strings.Contains(msg, tc.want) {
			t.Errorf("args %.80v: message %q lacks %q", tc.args, msg, tc.want)
		}
	}
	c.toolErr("gno_get", map[string]any{"ref": "x", "fromLine": 0}, "INVALID_INPUT")
	// The server is still alive and well.
	c.toolOK("gno_search", map[string]any{"query": "fox"})
}

func TestGetAndMultiGet(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	r := c.tool("gno_get", map[string]any{"ref": "gno://notes/alpha.md", "fromLine": 3, "lineCount": 2})
	if got := text(r); got != "3: The quick brown fox jumps over the lazy dog.\n4: Second line about foxes." {
		t.Errorf("text = %q", got)
	}
	sc := r["structuredContent"].(map[string]any)
	if rl := sc["returnedLines"].(map[string]any); rl["start"] != 3.0 || rl["end"] != 4.0 || sc["totalLines"] != 5.0 {
		t.Errorf("lines = %v of %v", rl, sc["totalLines"])
	}
	if sc["title"] != "Alpha note" || sc["source"].(map[string]any)["sizeBytes"] == nil {
		t.Errorf("get = %v", sc)
	}
	docid := sc["docid"].(string)
	r = c.tool("gno_get", map[string]any{"ref": docid, "lineNumbers": false})
	if !strings.HasPrefix(text(r), "# Alpha note\n") {
		t.Errorf("by docid without numbers: %q", text(r))
	}
	c.toolOK("gno_get", map[string]any{"ref": "notes/my notes/x y.md"})
	c.toolOK("gno_get", map[string]any{"ref": "gno://notes/my%20notes/x%20y.md"})
	c.toolErr("gno_get", map[string]any{"ref": "gno://notes/missing.md"}, "NOT_FOUND")
	c.toolErr("gno_get", map[string]any{"ref": "#zz"}, "INVALID_INPUT")
	c.toolErr("gno_get", map[string]any{"ref": "notes/../etc/passwd"}, "INVALID_PATH")

	sc = c.toolOK("gno_multi_get", map[string]any{"refs": []any{"gno://notes/alpha.md", "notes/big.md", "notes/none.md"}, "maxBytes": 2000})
	if len(sc["documents"].([]any)) != 1 || len(sc["skipped"].([]any)) != 2 {
		t.Errorf("multi_get = %v", sc)
	}
	if m := sc["meta"].(map[string]any); m["requested"] != 3.0 || m["returned"] != 1.0 || m["skipped"] != 2.0 {
		t.Errorf("meta = %v", m)
	}
	r = c.tool("gno_multi_get", map[string]any{"pattern": "notes/sub/*.md"})
	if sc := r["structuredContent"].(map[string]any); len(sc["documents"].([]any)) != 2 {
		t.Errorf("pattern: %v", sc)
	}
	if !strings.Contains(text(r), "Retrieved 2 documents") || !strings.Contains(text(r), "1: # Beta") && !strings.Contains(text(r), "4: # Beta") {
		t.Errorf("text = %q", text(r))
	}
	c.toolErr("gno_multi_get", map[string]any{"refs": []any{"a/b"}, "pattern": "x"}, "INVALID_INPUT")
	c.toolErr("gno_multi_get", map[string]any{}, "INVALID_INPUT")
}

func TestStatusTagsChanges(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_status", map[string]any{})
	if sc["totalDocuments"] != float64(len(fixtureDocs)) || sc["indexName"] != "default" {
		t.Errorf("status = %v", sc)
	}
	sc = c.toolOK("gno_list_tags", map[string]any{"prefix": "project/"})
	if tags := sc["tags"].([]any); len(tags) != 1 || tags[0].(map[string]any)["tag"] != "project/api" {
		t.Errorf("tags = %v", tags)
	}
	c.toolErr("gno_list_tags", map[string]any{"collection": "nope"}, "NOT_FOUND")
	sc = c.toolOK("gno_changes", map[string]any{"since": 0})
	if len(sc["added"].([]any)) != len(fixtureDocs) {
		t.Errorf("changes = %v", sc)
	}
	gen := sc["generation"].(float64)
	sc = c.toolOK("gno_changes", map[string]any{"since": gen})
	if len(sc["added"].([]any))+len(sc["modified"].([]any))+len(sc["removed"].([]any)) != 0 {
		t.Errorf("changes since current generation = %v", sc)
	}
}

func TestProtocolErrors(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	c.sendRaw(`{"jsonrpc":"2.0","id":"x","method":`)
	if m, _ := c.wait(nil); errCode(m) != -32700 {
		t.Errorf("malformed JSON: %v", m)
	}
	c.sendRaw(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if m, _ := c.wait(nil); errCode(m) != -32600 {
		t.Errorf("batch: %v", m)
	}
	if m := c.call("no/such/method", nil); errCode(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	if m := c.call("tools/call", map[string]any{"name": "gno_nope", "arguments": map[string]any{}}); errCode(m) != -32602 {
		t.Errorf("unknown tool: %v", m)
	}
	if m := c.call("tools/call", map[string]any{"name": "gno_capture", "arguments": map[string]any{}}); errCode(m) != -32602 {
		t.Errorf("write tool without --enable-write: %v", m)
	}
	if m := c.call("resources/list", map[string]any{"cursor": "bm9wZQ=="}); errCode(m) != -32602 {
		t.Errorf("foreign cursor: %v", m)
	}
	if m := c.call("ping", nil); m["result"] == nil {
		t.Errorf("ping after errors: %v", m)
	}
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	s := New(Options{Open: f.open, PageSize: 2})
	defer s.Close()
	c := startClient(t, s)
	tpl := c.call("resources/templates/list", nil)["result"].(map[string]any)["resourceTemplates"].([]any)
	if len(tpl) != 1 || tpl[0].(map[string]any)["uriTemplate"] != "gno://{collection}/{+path}" {
		t.Fatalf("templates = %v", tpl)
	}
	var uris []string
	var cursor any
	for pages := 0; ; pages++ {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = cursor
		}
		r := c.call("resources/list", params)["result"].(map[string]any)
		for _, x := range r["resources"].([]any) {
			res := x.(map[string]any)
			if res["name"] == "" || res["mimeType"] != "text/markdown" {
				t.Errorf("resource = %v", res)
			}
			uris = append(uris, res["uri"].(string))
		}
		cursor = r["nextCursor"]
		if cursor == nil || cursor == "" {
			break
		}
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
	}
	if len(uris) != len(fixtureDocs) {
		t.Fatalf("listed %d resources, want %d: %v", len(uris), len(fixtureDocs), uris)
	}
	for _, u := range uris {
		r := c.call("resources/read", map[string]any{"uri": u})
		if r["error"] != nil {
			t.Fatalf("read %s: %v", u, r["error"])
		}
		ct := r["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)
		body := ct["text"].(string)
		if ct["uri"] != u || ct["mimeType"] != "text/markdown" || !strings.HasPrefix(body, "<!-- "+u+"\n     docid: #") ||
			!strings.Contains(body, "-->\n\n1: ") {
			t.Errorf("read %s = %q", u, body)
		}
	}
	for _, u := range []string{"gno://notes/missing.md", "gno://nope/alpha.md", "gno://notes/../x.md"} {
		r := c.call("resources/read", map[string]any{"uri": u})
		if errCode(r) != -32002 {
			t.Errorf("read %s: want -32002, got %v", u, r)
		}
	}
	if r := c.call("resources/read", map[string]any{"uri": "file:///etc/passwd"}); errCode(r) != -32002 {
		t.Errorf("foreign scheme: %v", r)
	}
	comp := c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "gno://{collection}/{+path}"},
		"argument": map[string]any{"name": "collection", "value": "no"}})
	if v := comp["result"].(map[string]any)["completion"].(map[string]any)["values"].([]any); len(v) != 1 || v[0] != "notes" {
		t.Errorf("completion = %v", comp)
	}
}

// blockTool waits until its request is cancelled; panicTool panics.
func addTestTools(s *Server, started chan<- struct{}) {
	block := toolDef{name: "test_block", input: emptyInputSchema, output: removeOutput, run: func(_ *Server, ctx context.Context, _ args, _ mcp.CallToolRequest) (any, string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, "", ctx.Err()
	}}
	boom := toolDef{name: "test_panic", input: emptyInputSchema, output: removeOutput, run: func(*Server, context.Context, args, mcp.CallToolRequest) (any, string, error) {
		panic("boom")
	}}
	s.mcp.AddTools(s.serverTool(block), s.serverTool(boom))
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, false)
	started := make(chan struct{}, 1)
	addTestTools(s, started)
	c := startClient(t, s)
	id := c.request("tools/call", map[string]any{"name": "test_block", "arguments": map[string]any{}})
	<-started
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "test"})
	if m := c.call("ping", nil); m["result"] == nil {
		t.Fatalf("ping: %v", m)
	}
	for _, m := range c.drain() {
		if m["id"] == float64(id) {
			t.Fatalf("cancelled request %d got a response: %v", id, m)
		}
	}
}

func TestPanicBecomesToolError(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, false)
	addTestTools(s, make(chan struct{}, 1))
	c := startClient(t, s)
	msg := c.toolErr("test_panic", map[string]any{}, "RUNTIME")
	if !strings.Contains(msg, "internal error") {
		t.Errorf("message = %q", msg)
	}
	c.toolOK("gno_status", nil)
}

func TestRequestsReadBeforeEOFAreAnswered(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	ids := map[float64]bool{}
	for range 5 {
		ids[float64(c.request("tools/call", map[string]any{"name": "gno_search", "arguments": map[string]any{"query": "fox"}}))] = true
	}
	for _, m := range c.drain() {
		if id, ok := m["id"].(float64); ok && m["result"] != nil {
			delete(ids, id)
		}
	}
	if len(ids) != 0 {
		t.Fatalf("requests sent before EOF were not answered: %v", ids)
	}
}
