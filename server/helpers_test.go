package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// fixture is a real index over a temp folder of Markdown files.
type fixture struct {
	home, notes string
	// store is the index's GNO_STORE_URL ("" for its SQLite file).
	store string
	opens atomic.Int32
}

var fixtureDocs = map[string]string{
	"alpha.md":        "# Alpha note\n\nThe quick brown fox jumps over the lazy dog.\nSecond line about foxes.\nThird line.\n",
	"sub/beta.md":     "---\ntags: [project/api, work]\n---\n# Beta\n\nFoxes are clever animals that live in dens.\n",
	"sub/gamma.md":    "# Gamma\n\nRabbits and hares are not the same animal.\n",
	"big.md":          "# Big\n\n" + strings.Repeat("filler words about foxes and hounds\n", 800),
	"my notes/x y.md": "# Spaced\n\nA file whose path has spaces: fox.\n",
}

// newFixture indexes fixtureDocs into a fresh GNO_HOME.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{home: filepath.Join(dir, "home"), notes: filepath.Join(dir, "notes")}
	for rel, body := range fixtureDocs {
		p := filepath.Join(f.notes, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.store = pgtest.Home(t, f.home)
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "notes", Path: f.notes})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) open(ctx context.Context) (*retrieval.Engine, error) {
	f.opens.Add(1)
	return retrieval.Open(ctx, retrieval.Options{})
}

// client drives ServeStdio over pipes the way a real MCP client does.
type client struct {
	t      testing.TB
	in     *io.PipeWriter
	msgs   chan map[string]any
	nextID int
	done   chan error
	srv    *Server
	// roots, when set, answers the server's roots/list requests.
	roots atomic.Pointer[[]string]
	// rootsAsked counts them.
	rootsAsked atomic.Int32
}

// startClient serves srv over pipes and completes initialize.
func startClient(t testing.TB, srv *Server) *client {
	t.Helper()
	c := rawClient(t, srv)
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	if res["error"] != nil {
		t.Fatalf("initialize: %v", res["error"])
	}
	c.notify("notifications/initialized", nil)
	return c
}

// rawClient serves srv over pipes without initializing.
func rawClient(t testing.TB, srv *Server) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, msgs: make(chan map[string]any, 1000), done: make(chan error, 1), srv: srv}
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a non-JSON line: %q", sc.Text())
				continue
			}
			if m["method"] == "ping" && m["id"] != nil { // the server checks the client has seen its progress
				c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{}})
			}
			if m["method"] == "roots/list" && m["id"] != nil {
				c.rootsAsked.Add(1)
				var roots []map[string]any
				if r := c.roots.Load(); r != nil {
					for _, u := range *r {
						roots = append(roots, map[string]any{"uri": u})
					}
				}
				c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"roots": roots}})
				continue
			}
			c.msgs <- m
		}
		close(c.msgs)
	}()
	t.Cleanup(func() { c.close() })
	return c
}

func (c *client) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(string(data))
}

func (c *client) sendRaw(line string) {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write to server: %v", err)
	}
}

func (c *client) notify(method string, params any) {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
}

// request sends a request and returns its id.
func (c *client) request(method string, params any) int {
	c.nextID++
	m := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
	return c.nextID
}

// wait returns the response with id, and the messages that came before
// it (notifications, other responses).
func (c *client) wait(id any) (map[string]any, []map[string]any) {
	c.t.Helper()
	want, _ := json.Marshal(id)
	var before []map[string]any
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("server closed stdout before answering %s", want)
			}
			got, _ := json.Marshal(m["id"])
			if m["method"] == nil && string(got) == string(want) {
				return m, before
			}
			before = append(before, m)
		case <-timeout:
			c.t.Fatalf("no response to %s within 2 minutes", want)
		}
	}
}

func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	res, _ := c.wait(c.request(method, params))
	return res
}

// tool calls a tool and returns its result object (failing on a
// protocol error).
func (c *client) tool(name string, args any) map[string]any {
	c.t.Helper()
	res := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if res["error"] != nil {
		c.t.Fatalf("%s: protocol error %v", name, res["error"])
	}
	return res["result"].(map[string]any)
}

// toolOK calls a tool that must succeed and returns its structuredContent.
func (c *client) toolOK(name string, args any) map[string]any {
	c.t.Helper()
	r := c.tool(name, args)
	if r["isError"] == true {
		c.t.Fatalf("%s(%v) failed: %v", name, args, text(r))
	}
	sc, ok := r["structuredContent"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: no structuredContent in %v", name, r)
	}
	return sc
}

// toolErr calls a tool that must fail with code.
func (c *client) toolErr(name string, args any, code string) string {
	c.t.Helper()
	r := c.tool(name, args)
	if r["isError"] != true {
		c.t.Fatalf("%s(%v): want error %s, got %v", name, args, code, r)
	}
	sc := r["structuredContent"].(map[string]any)["error"].(map[string]any)
	if sc["code"] != code {
		c.t.Fatalf("%s(%v): want code %s, got %v (%v)", name, args, code, sc["code"], sc["message"])
	}
	if !strings.Contains(text(r), code) {
		c.t.Fatalf("%s: code %s missing from text %q", name, code, text(r))
	}
	return sc["message"].(string)
}

func (c *client) close() {
	c.in.Close()
}

// drain closes stdin and returns everything the server still writes.
func (c *client) drain() []map[string]any {
	c.t.Helper()
	c.in.Close()
	var out []map[string]any
	for m := range c.msgs {
		out = append(out, m)
	}
	if err := <-c.done; err != nil {
		c.t.Fatalf("ServeStdio: %v", err)
	}
	return out
}

func text(r map[string]any) string {
	var b strings.Builder
	for _, c := range r["content"].([]any) {
		fmt.Fprint(&b, c.(map[string]any)["text"])
	}
	return b.String()
}

func errCode(res map[string]any) float64 {
	e, ok := res["error"].(map[string]any)
	if !ok {
		return 0
	}
	return e["code"].(float64)
}
