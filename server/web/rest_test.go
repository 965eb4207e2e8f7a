package web

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestRESTMirrorsMCP checks every read endpoint against the MCP tool's
// output schema, and that its JSON is what the tool returns.
func TestRESTMirrorsMCP(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	for _, tc := range []struct {
		path, tool string
		args       map[string]any
	}{
		{"/api/search?q=fox&limit=3", "gno_search", map[string]any{"query": "fox", "limit": 3.0}},
		{"/api/query?q=fox&fast=true", "gno_query", map[string]any{"query": "fox", "fast": true}},
		{"/api/vsearch?q=fox", "gno_vsearch", nil},
		{"/api/get?ref=notes/tea.md&fromLine=1&lineCount=2", "gno_get", map[string]any{"ref": "notes/tea.md", "fromLine": 1.0, "lineCount": 2.0}},
		{"/api/multi-get?pattern=notes/*.md", "gno_multi_get", map[string]any{"pattern": "notes/*.md"}},
		{"/api/status", "gno_status", map[string]any{}},
		{"/api/tags?collection=notes", "gno_list_tags", map[string]any{"collection": "notes"}},
		{"/api/changes?since=0", "gno_changes", map[string]any{"since": 0.0}},
		{"/api/affected?since=0", "gno_affected", map[string]any{"since": 0.0}},
		{"/api/diff?ref=notes/tea.md&since=0", "gno_diff", map[string]any{"ref": "notes/tea.md", "since": 0.0}},
		{"/api/ask?question=where+do+foxes+live&mode=fast", "gno_ask", nil},
		{"/api/search?q=", "gno_search", nil}, // an error has the tool error's shape
	} {
		code, body := v.get(t, tc.path)
		validate(t, v.srv, tc.tool, body)
		if strings.HasSuffix(tc.path, "q=") {
			if code != 400 || !strings.Contains(body, `"INVALID_INPUT"`) {
				t.Errorf("%s: %d %s", tc.path, code, body)
			}
			continue
		}
		if code != 200 && tc.tool != "gno_vsearch" {
			t.Errorf("%s: status %d: %s", tc.path, code, body)
		}
		if tc.args == nil {
			continue
		}
		out, _, err := v.srv.Call(context.Background(), tc.tool, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(out)
		if !strings.Contains(tc.tool, "query") && !strings.Contains(tc.tool, "search") && !jsonEqual(string(want), body) {
			t.Errorf("%s differs from %s:\nREST %s\nMCP  %s", tc.path, tc.tool, body, want)
		}
		// Search JSON differs only in timings: compare the results.
		if strings.Contains(tc.tool, "search") || strings.Contains(tc.tool, "query") {
			var a, b struct{ Results json.RawMessage }
			_ = json.Unmarshal([]byte(body), &a)
			_ = json.Unmarshal(want, &b)
			if !jsonEqual(string(a.Results), string(b.Results)) {
				t.Errorf("%s results differ from %s", tc.path, tc.tool)
			}
		}
	}
	// POST takes the MCP arguments as a JSON body.
	code, body := v.post(t, "/api/search", `{"query":"green tea","tagsAny":[]}`)
	validate(t, v.srv, "gno_search", body)
	if code != 200 || !strings.Contains(body, "tea.md") {
		t.Fatalf("POST /api/search: %d %s", code, body)
	}
	// Arguments are checked by the tool's schema.
	for _, p := range []string{"/api/search?q=x&limit=0", "/api/search?q=x&limit=abc", "/api/query?q=x&fast=maybe"} {
		if code, body := v.get(t, p); code != 400 {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
	if code, _ := v.get(t, "/api/nope"); code != 404 {
		t.Errorf("unknown endpoint: %d", code)
	}
}

// TestHostileHostAndOrigin: DNS rebinding and cross-site reads are
// refused; loopback is served.
func TestHostileHostAndOrigin(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	u, _ := url.Parse(v.ts.URL)
	for _, tc := range []struct {
		hdr  []string
		want int
	}{
		{nil, 200},
		{[]string{"Host", "evil.example"}, 403},
		{[]string{"Host", "evil.example:" + u.Port()}, 403},
		{[]string{"Host", "127.0.0.1.nip.io:" + u.Port()}, 403},
		{[]string{"Host", "localhost:" + u.Port()}, 200},
		{[]string{"Origin", "http://evil.example"}, 403},
		{[]string{"Origin", "null"}, 403},
		{[]string{"Origin", "http://localhost:" + u.Port()}, 200},
		{[]string{"Sec-Fetch-Site", "same-origin"}, 200},
	} {
		for _, p := range []string{"/", "/api/status", "/doc?ref=notes/tea.md"} {
			if code, body := v.get(t, p, tc.hdr...); code != tc.want {
				t.Errorf("GET %s with %v: %d, want %d (%s)", p, tc.hdr, code, tc.want, body)
			}
		}
	}
}

// TestCrossSiteAPI: another site may link to a page but not call the API.
func TestCrossSiteAPI(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	if code, _ := v.get(t, "/api/ask?q=foxes", "Sec-Fetch-Site", "cross-site"); code != 403 {
		t.Errorf("cross-site API call: %d", code)
	}
	if code, _ := v.get(t, "/?q=foxes", "Sec-Fetch-Site", "cross-site"); code != 200 {
		t.Errorf("cross-site link to a page: %d", code)
	}
}

// TestWritesGuarded: writes need --enable-write, the CSRF token and the
// same origin.
func TestWritesGuarded(t *testing.T) {
	off := newEnv(t, Options{}, nil)
	if code, body := off.post(t, "/api/sync", `{}`, CSRFHeader, off.app.CSRFToken()); code != 403 || !strings.Contains(body, "--enable-write") {
		t.Fatalf("write without --enable-write: %d %s", code, body)
	}
	// The reconcile cache is gno's own: no --enable-write, but the same
	// origin and CSRF checks.
	if code, body := off.post(t, "/api/reconcile/mark", `{"files":["notes/tea.md"]}`); code != 403 {
		t.Fatalf("mark without the CSRF token: %d %s", code, body)
	}
	if code, body := off.post(t, "/api/reconcile/mark", `{"files":["notes/tea.md"]}`, CSRFHeader, off.app.CSRFToken()); code != 200 || !strings.Contains(body, `"updated":1`) {
		t.Fatalf("mark: %d %s", code, body)
	} else {
		validate(t, off.srv, "gno_mark_reconciled", body)
	}
	if code, body := off.post(t, "/api/reconcile/clear", `{}`, CSRFHeader, off.app.CSRFToken()); code != 200 || !strings.Contains(body, `"cleared":true`) {
		t.Fatalf("clear: %d %s", code, body)
	}
	v := newEnv(t, Options{EnableWrite: true}, nil)
	tok := v.app.CSRFToken()
	for _, tc := range []struct {
		hdr  []string
		want int
	}{
		{nil, 403},
		{[]string{CSRFHeader, "wrong"}, 403},
		{[]string{CSRFHeader, tok, "Origin", "http://evil.example"}, 403},
		{[]string{CSRFHeader, tok, "Sec-Fetch-Site", "cross-site"}, 403},
		{[]string{CSRFHeader, tok, "Origin", v.ts.URL}, 200},
	} {
		code, body := v.post(t, "/api/tag", `{"ref":"notes/tea.md","tag":"drinks"}`, tc.hdr...)
		if code != tc.want {
			t.Errorf("tag with %v: %d, want %d (%s)", tc.hdr, code, tc.want, body)
		}
		if code == 200 {
			validate(t, v.srv, "gno_tag", body)
		}
	}
	// A sync job, then its live progress on the events stream.
	code, body := v.post(t, "/api/sync", `{"collection":"notes"}`, CSRFHeader, tok)
	validate(t, v.srv, "gno_sync", body)
	if code != 200 {
		t.Fatalf("sync: %d %s", code, body)
	}
	if code, body := v.get(t, "/api/jobs"); code != 200 || !strings.Contains(body, `"type":"sync"`) {
		t.Fatalf("jobs: %d %s", code, body)
	}
}

// TestPathTraversal: every path parameter is tried with ways out of the
// collection root; nothing outside the index is ever served.
func TestPathTraversal(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	refs := []string{"../secret.md", "notes/../secret.md", "notes/../../secret.md", "gno://notes/../secret.md",
		"/etc/passwd", "../../../../etc/passwd", "notes/%2e%2e/secret.md", "notes/..%2fsecret.md", v.notes + "/../secret.md", "secret.md", "#../../x"}
	for _, ref := range refs {
		q := url.QueryEscape(ref)
		for _, p := range []string{"/doc?ref=" + q, "/doc?view=source&ref=" + q, "/api/get?ref=" + q, "/api/multi-get?refs=" + q,
			"/api/multi-get?pattern=" + q, "/api/tags?collection=" + q, "/api/changes?collection=" + q, "/api/search?q=secret&collection=" + q} {
			code, body := v.get(t, p)
			if strings.Contains(body, secret) || strings.Contains(body, "root:x:0:0") {
				t.Fatalf("%s served a file outside the collection (%d)", p, code)
			}
			if code == 500 {
				t.Errorf("%s: 500 %s", p, body)
			}
		}
	}
	for _, p := range []string{"/assets/../../web.go", "/assets/%2e%2e/web.go", "/assets/..%2f..%2fweb.go", "/assets//etc/passwd", "/assets/../templates/layout.html"} {
		code, body := v.get(t, p)
		if code == 200 && (strings.Contains(body, "package web") || strings.Contains(body, "root:x")) {
			t.Errorf("%s served source: %d", p, code)
		}
	}
}

// TestDocumentHTMLNotRendered: a document's own HTML and javascript:
// links never reach the page.
func TestDocumentHTMLNotRendered(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	code, body := v.get(t, "/doc?ref=notes/evil.md")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for _, bad := range []string{"<script>window", "onerror", "onclick", "javascript:", "__pwned"} {
		if strings.Contains(body, bad) {
			t.Errorf("rendered document contains %q", bad)
		}
	}
	if !strings.Contains(body, "text about a fox") {
		t.Error("the document's text is missing")
	}
	code, body = v.get(t, "/doc?ref=notes/evil.md&view=source")
	if code != 200 || !strings.Contains(body, "&lt;script&gt;") || strings.Contains(body, "<script>window") {
		t.Errorf("source view must show the HTML as text: %d", code)
	}
}

func TestSecurityHeaders(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	res, err := v.ts.Client().Get(v.ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: %v", res.Header)
	}
}

// TestLoopbackOnly: Serve refuses a non-loopback address without
// ListenAny.
func TestLoopbackOnly(t *testing.T) {
	err := Serve(context.Background(), "0.0.0.0:0", Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "--listen-any") {
		t.Fatalf("want a refusal naming --listen-any, got %v", err)
	}
}

func TestPages(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	for _, tc := range []struct{ path, want string }{
		{"/", `name="q"`},
		{"/?q=fox&explain=1", `<mark>`},
		{"/?q=fox&explain=1", `id="stages"`},
		{"/?q=fox&mode=query&explain=1", `class="explain"`},
		{"/?q=fox&tags=animals", "Foxes"},
		{"/doc?ref=notes/animals/foxes.md&from=7&to=7", `class="blk hit" id="L6"`},
		{"/doc?ref=notes/animals/foxes.md", `href="/doc?ref=notes%2Findex.md"`},
		{"/doc?ref=notes/animals/foxes.md&view=source", `id="L8"`},
		{"/status", "notes"},
		{"/ask?q=foxes&mode=fast", "no answer model configured"},
	} {
		code, body := v.get(t, tc.path)
		if code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %q in\n%s", tc.path, code, tc.want, body)
		}
	}
	if code, body := v.get(t, "/doc?ref=notes/nope.md"); code != 404 || !strings.Contains(body, "not found") {
		t.Errorf("missing doc: %d", code)
	}
	if code, _ := v.get(t, "/?q=x&mode=bogus"); code != 400 {
		t.Errorf("bad mode: %d", code)
	}
}

// TestBacklinks: with a links graph, the document view lists both ways.
func TestBacklinks(t *testing.T) {
	graph := LinksFunc(func(_ context.Context, ref string) ([]Link, []Link, error) {
		return []Link{{DocID: "#out1", URI: "gno://notes/index.md", Title: "Index of notes"}},
			[]Link{{DocID: "#in1", URI: "gno://notes/index.md", Title: "Index of notes", Line: 3}}, nil
	})
	v := newEnv(t, Options{Links: graph}, nil)
	code, body := v.get(t, "/doc?ref=notes/animals/foxes.md")
	if code != 200 || !strings.Contains(body, `id="backlinks"`) || !strings.Contains(body, `class="backlink" href="/doc?ref=%23in1&amp;from=3&amp;to=3#L3"`) {
		t.Fatalf("%d %s", code, body)
	}
}

// syncBuffer is a log destination the server's handlers and the test
// share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestInternalErrorLogged: an endpoint failing in the index database
// answers gnoerr.Internal ("see the server's log") and the server's log
// has the detail, with the request's method and path.
func TestInternalErrorLogged(t *testing.T) {
	var logs syncBuffer
	v := newEnv(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
	dropTable(t, "contents")
	code, body := v.get(t, "/api/get?ref=gno://notes/tea.md")
	if code != http.StatusInternalServerError || !strings.Contains(body, gnoerr.Internal) {
		t.Fatalf("GET /api/get: %d %s, want 500 with %q", code, body, gnoerr.Internal)
	}
	log := logs.String()
	for _, want := range []string{"request failed", "method=GET", "path=/api/get", "contents"} {
		if !strings.Contains(log, want) {
			t.Errorf("server's log lacks %q:\n%s", want, log)
		}
	}
	// An error the client is shown in full is not logged.
	logs.mu.Lock()
	logs.b.Reset()
	logs.mu.Unlock()
	if code, _ := v.get(t, "/api/nothing-here"); code != http.StatusNotFound {
		t.Fatalf("GET /api/nothing-here: %d, want 404", code)
	}
	if strings.Contains(logs.String(), "request failed") {
		t.Errorf("a client's error was logged: %s", logs.String())
	}
}

// dropTable drops a table of the test's index (SQLite's, or the
// Postgres database of GNO_STORE_URL): what follows fails inside the
// index database, an error the client is not shown.
func dropTable(t *testing.T, table string) {
	t.Helper()
	if u := os.Getenv("GNO_STORE_URL"); u != "" {
		pgtest.Exec(t, u, "DROP TABLE "+table+" CASCADE")
		return
	}
	db, err := sql.Open("sqlite", filepath.Join(os.Getenv("GNO_HOME"), "data", "default", "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DROP TABLE " + table); err != nil {
		t.Fatal(err)
	}
}
