package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// notes is the test collection: linked notes, tags, and a hostile
// document whose HTML must never run.
var notes = map[string]string{
	"index.md":         "# Index of notes\n\nStart here. See [Foxes](animals/foxes.md) and [Tea](tea.md).\n\n- a list item about foxes\n- another item\n",
	"animals/foxes.md": "---\ntags: [animals, wild]\n---\n# Foxes\n\nFoxes live in dens dug into hillsides.\nA red fox hunts at dusk and at dawn.\n\nBack to the [index](../index.md).\n",
	"tea.md":           "# Tea\n\nGreen tea is steamed; black tea is oxidised.\n",
	"evil.md": "# Evil fox page\n\n<script>window.__pwned = 1; document.title = 'pwned'</script>\n\n" +
		"<img src=\"x\" onerror=\"window.__pwned = 2\">\n\n[click me](javascript:window.__pwned=3)\n\n" +
		"Inline <b onclick=\"window.__pwned=4\">bold</b> text about a fox.\n",
}

// secret sits next to the collection, outside its root: nothing may
// ever serve it.
const secret = "TOPSECRET-do-not-serve"

type env struct {
	ts    *httptest.Server
	app   *App
	srv   *server.Server
	notes string
}

// newEnv indexes notes into a fresh GNO_HOME and serves the web app on a
// loopback httptest server.
func newEnv(t testing.TB, opt Options, cfg func(*config.Config)) *env {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for rel, body := range notes {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.md"), []byte("# Secret\n\n"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pgtest.Home(t, filepath.Join(dir, "home"))
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		if cfg != nil {
			cfg(c)
		}
		_, err := c.AddCollection(config.Collection{Name: "notes", Path: root})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Open: func(context.Context) (*retrieval.Engine, error) { return e, nil }, EnableWrite: opt.EnableWrite})
	opt.Backend = srv
	app, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	t.Cleanup(func() {
		ts.CloseClientConnections() // a page's event stream would hold Close until the browser quits
		ts.Close()
		srv.Close()
		e.Close()
	})
	return &env{ts: ts, app: app, srv: srv, notes: root}
}

// get fetches path and returns the status and body.
func (v *env) get(t *testing.T, path string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", v.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func (v *env) post(t *testing.T, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", v.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// validate checks body against a tool's output schema, the one MCP
// clients see.
func validate(t *testing.T, srv *server.Server, tool, body string) {
	t.Helper()
	raw := srv.OutputSchema(tool)
	if raw == nil {
		t.Fatalf("no output schema for %s", tool)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "https://gno.invalid/" + tool + ".json"
	if m, ok := doc.(map[string]any); ok {
		delete(m, "$id")
	}
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", tool, err, body)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s: body does not match the MCP output schema: %v\n%s", tool, err, body)
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
