package server

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval/chunk"
)

// pkgFixture is a server whose working folder is a project depending on
// the checked-out Swift package of pkgtest (no client, no network), and a
// second such project for roots.
type pkgFixture struct {
	srv         *Server
	work, other string
	rootURI     string
}

func newPkgFixture(t *testing.T) *pkgFixture {
	t.Helper()
	f := newFixture(t) // a notes index beside, as in real use
	p := &pkgFixture{work: filepath.Join(t.TempDir(), "work"), other: filepath.Join(t.TempDir(), "other")}
	for _, d := range []string{p.work, p.other} {
		if err := (pkgtest.Project{Swift: true}).Write(d); err != nil {
			t.Fatal(err)
		}
	}
	p.rootURI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(p.other)}).String()
	p.srv = New(Options{Open: f.open, Version: "1", ValidateOutput: true, WorkDir: p.work,
		OpenPackages: func(ctx context.Context) (*pkgdocs.Index, error) { return pkgdocs.Open(ctx, pkgdocs.Options{}) }})
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// startRootsClient initializes a client that declares the roots
// capability and answers roots/list with roots.
func startRootsClient(t *testing.T, s *Server, roots ...string) *client {
	t.Helper()
	c := rawClient(t, s)
	c.roots.Store(&roots)
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"roots": map[string]any{"listChanged": true}},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	if res["error"] != nil {
		t.Fatalf("initialize: %v", res["error"])
	}
	c.notify("notifications/initialized", nil)
	return c
}

func TestPackageToolsListed(t *testing.T) {
	p := newPkgFixture(t)
	c := startClient(t, p.srv)
	tools := c.call("tools/list", nil)["result"].(map[string]any)["tools"].([]any)
	found := 0
	for _, x := range tools {
		tool := x.(map[string]any)
		switch tool["name"] {
		case "gno_search_package_docs", "gno_describe_package", "gno_get_package_doc", "gno_package_changes":
			found++
			if tool["annotations"].(map[string]any)["readOnlyHint"] != true || tool["outputSchema"].(map[string]any)["type"] != "object" {
				t.Errorf("%s: %v", tool["name"], tool)
			}
		}
	}
	if found != 4 {
		t.Errorf("package tools listed: %d of 4", found)
	}
}

// TestPackageToolsNoRoots: a client without roots gets the server's
// working folder, indexed on first use; results carry package and
// symbol, and every answer passes its output schema (ValidateOutput).
func TestPackageToolsNoRoots(t *testing.T) {
	p := newPkgFixture(t)
	c := startClient(t, p.srv)
	sc := c.toolOK("gno_search_package_docs", map[string]any{"query": "circuit breaker that fails fast", "limit": 3})
	if c.rootsAsked.Load() != 0 {
		t.Errorf("roots/list sent to a client without the capability")
	}
	res := sc["results"].([]any)
	if len(res) == 0 {
		t.Fatalf("no results: %v", sc)
	}
	top := res[0].(map[string]any)
	if pk := top["package"].(map[string]any); pk["name"] != "swift-retry" || pk["version"] != "1.2.0" || pk["ecosystem"] != "swift" {
		t.Errorf("package = %v", pk)
	}
	if sym, _ := top["symbol"].(map[string]any); sym == nil || !strings.HasPrefix(sym["name"].(string), "CircuitBreaker") || !strings.Contains(sym["signature"].(string), "public") {
		t.Errorf("top result %v", top)
	}
	scope := sc["scope"].(map[string]any)
	if ps := scope["projects"].([]any); len(ps) != 1 || !strings.HasSuffix(ps[0].(string), "work") {
		t.Errorf("scope = %v", scope)
	}
	notes, _ := json.Marshal(sc["meta"].(map[string]any)["notes"])
	if !strings.Contains(string(notes), "working folder") || !strings.Contains(string(notes), "indexed on first use") {
		t.Errorf("notes do not say where the project came from: %s", notes)
	}

	d := c.toolOK("gno_describe_package", map[string]any{"package": "swift-retry", "symbol": "CircuitBreaker.run"})
	if s := d["symbol"].(map[string]any); !strings.Contains(s["signature"].(string), "public func run<T>") || s["doc"] != "Runs operation through the breaker; fails fast while it is open." {
		t.Errorf("describe symbol: %v", s)
	}
	d = c.toolOK("gno_describe_package", map[string]any{"package": "swift-retry"})
	if !strings.Contains(d["install"].(string), ".package(url:") || !strings.Contains(d["usage"].(string), "retry(policy: .default)") {
		t.Errorf("install/usage: %v / %v", d["install"], d["usage"])
	}

	g := c.toolOK("gno_get", map[string]any{"ref": top["uri"]})
	if sym := top["symbol"].(map[string]any)["name"].(string); !strings.HasPrefix(g["content"].(string), "# "+sym+"\n") || g["symbol"] == nil {
		t.Errorf("gno_get of %s: %v", top["uri"], g)
	}
	r := c.call("resources/read", map[string]any{"uri": top["uri"]})
	if r["error"] != nil || !strings.Contains(text(map[string]any{"content": []any{map[string]any{"type": "text", "text": r["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)["text"]}}}), "CircuitBreaker") {
		t.Errorf("resources/read: %v", r)
	}

	sec := c.toolOK("gno_get_package_doc", map[string]any{"package": "swift-retry", "section": "installation"})
	if sec["section"] != "Installation" || !strings.Contains(sec["content"].(string), "from: \"1.2.0\"") || strings.Contains(sec["content"].(string), "## Usage") {
		t.Errorf("section: %v", sec)
	}
	q := c.toolOK("gno_get_package_doc", map[string]any{"package": "swift-retry", "query": "timeout"})
	if units := q["units"].([]any); len(units) == 0 || !strings.Contains(q["content"].(string), "withTimeout") {
		t.Errorf("query page: %v", q)
	}
	c.toolErr("gno_describe_package", map[string]any{"package": "left-pad"}, "NOT_FOUND")
	c.toolErr("gno_describe_package", map[string]any{"package": "swift-retry", "symbol": "NoSuchThing"}, "NOT_FOUND")
	c.toolErr("gno_search_package_docs", map[string]any{"query": "x", "ecosystem": "cobol"}, "INVALID_INPUT")

	// The file being edited narrows the search to its language; one the
	// project has no package of searches everything and says so.
	hinted := c.toolOK("gno_search_package_docs", map[string]any{"query": "circuit breaker", "path": "Sources/App/main.swift"})
	if n, _ := json.Marshal(hinted["meta"].(map[string]any)["notes"]); !strings.Contains(string(n), "searched the swift packages only") {
		t.Errorf("path hint: notes %s", n)
	}
	hinted = c.toolOK("gno_search_package_docs", map[string]any{"query": "circuit breaker", "path": "src/lib.rs"})
	if n, _ := json.Marshal(hinted["meta"].(map[string]any)["notes"]); !strings.Contains(string(n), "no rust package in scope") || len(hinted["results"].([]any)) == 0 {
		t.Errorf("path hint of an absent ecosystem: notes %s, results %v", n, hinted["results"])
	}
}

// TestPackageToolsRoots: a client with roots has its roots searched, is
// asked once per session, and again after it says they changed.
func TestPackageToolsRoots(t *testing.T) {
	p := newPkgFixture(t)
	c := startRootsClient(t, p.srv, p.rootURI)
	for range 2 {
		sc := c.toolOK("gno_search_package_docs", map[string]any{"query": "retry"})
		ps := sc["scope"].(map[string]any)["projects"].([]any)
		if len(ps) != 1 || !strings.HasSuffix(ps[0].(string), "other") {
			t.Fatalf("scope from roots: %v", ps)
		}
	}
	if n := c.rootsAsked.Load(); n != 1 {
		t.Errorf("roots asked %d times, want once", n)
	}
	c.notify("notifications/roots/list_changed", nil)
	c.call("ping", nil)
	// An explicit project wins over the roots.
	sc := c.toolOK("gno_search_package_docs", map[string]any{"query": "retry", "project": p.work})
	if ps := sc["scope"].(map[string]any)["projects"].([]any); !strings.HasSuffix(ps[0].(string), "work") {
		t.Errorf("project argument ignored: %v", ps)
	}
	c.toolOK("gno_search_package_docs", map[string]any{"query": "retry"})
	if n := c.rootsAsked.Load(); n != 2 {
		t.Errorf("roots asked %d times after list_changed, want 2", n)
	}
}

// TestPackageToolsBudget: maxTokens bounds every answer and marks the cut.
func TestPackageToolsBudget(t *testing.T) {
	p := newPkgFixture(t)
	c := startClient(t, p.srv)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"gno_get_package_doc", map[string]any{"package": "swift-retry", "query": "retry policy backoff breaker timeout", "maxTokens": 300}},
		{"gno_describe_package", map[string]any{"package": "swift-retry", "maxTokens": 200}},
		{"gno_search_package_docs", map[string]any{"query": "retry", "limit": 50, "maxTokens": 300}},
	} {
		sc := c.toolOK(tc.tool, tc.args)
		b, _ := json.Marshal(sc)
		budget := int(tc.args["maxTokens"].(int))
		if got := chunk.EstimateTokens(string(b)); got > budget {
			t.Errorf("%s: %d tokens over a budget of %d", tc.tool, got, budget)
		}
		if sc["truncated"] != true {
			t.Errorf("%s: not marked truncated: %s", tc.tool, b)
		}
	}
	// A query's page drops whole units; one text is cut, and marked.
	big := c.toolOK("gno_get_package_doc", map[string]any{"package": "swift-retry", "query": "retry policy backoff breaker timeout", "maxTokens": 300})
	if n := len(big["units"].([]any)); n == 0 || n >= 5 || strings.Count(big["content"].(string), "<!-- gno://pkg/") != n {
		t.Errorf("query page cut: %d units, content %q", n, big["content"])
	}
	readme := c.toolOK("gno_get_package_doc", map[string]any{"package": "swift-retry", "project": p.work, "maxTokens": 200})
	if !strings.HasSuffix(readme["content"].(string), "[… truncated]") || readme["totalTokens"].(float64) < 50 {
		t.Errorf("cut README not marked: %v", readme)
	}
}

// TestPackageToolsPathFirstUse: a hint that falls back to every
// ecosystem on a project's first use still says it was indexed.
func TestPackageToolsPathFirstUse(t *testing.T) {
	p := newPkgFixture(t)
	c := startClient(t, p.srv)
	sc := c.toolOK("gno_search_package_docs", map[string]any{"query": "circuit breaker", "path": "src/lib.rs", "limit": 3})
	notes, _ := json.Marshal(sc["meta"].(map[string]any)["notes"])
	if !strings.Contains(string(notes), "indexed on first use") || !strings.Contains(string(notes), "no rust package in scope for lib.rs") {
		t.Errorf("notes %s", notes)
	}
	if len(sc["results"].([]any)) == 0 {
		t.Errorf("no results: %v", sc)
	}
}
