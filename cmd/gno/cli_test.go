package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// gnoBin is the binary under test, built once for the package.
var gnoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gno-cli")
	if err != nil {
		panic(err)
	}
	gnoBin = filepath.Join(dir, "gno")
	if out, err := exec.Command("go", "build", "-o", dir+"/", ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type cli struct {
	t    *testing.T
	home string
	// store is the index's GNO_STORE_URL: "" (its SQLite file), or a
	// database of its own with GNO_TEST_STORE=postgres (pgtest.Store).
	store string
}

// newCLI runs gno against a fresh GNO_HOME (and store).
func newCLI(t *testing.T) cli {
	return cli{t: t, home: t.TempDir(), store: pgtest.Store(t)}
}

// env is the environment of a gno the test runs: its home and store.
func (c cli) env() []string {
	return append(os.Environ(), pgtest.Env(c.home, c.store)...)
}

func (c cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(gnoBin, args...)
	cmd.Env = append(c.env(), "GNO_MODELS_DIR="+filepath.Join(c.home, "no-models"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func (c cli) ok(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("gno %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func TestCLIEndToEnd(t *testing.T) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a b#1.md"), []byte("---\ntags: [x]\n---\n# Alpha\n\nThe quick brown fox.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.md"), []byte("# Beta\n\nLazy dogs sleep.\n"), 0o644)
	c.ok("init")
	c.ok("collection", "add", root, "--name", "Docs")
	if out := c.ok("collection", "list"); !strings.Contains(out, "docs\t"+root) {
		t.Fatalf("list: %s", out)
	}
	if out := c.ok("update"); !strings.Contains(out, "docs: 2 added") {
		t.Fatalf("update: %s", out)
	}
	var res struct {
		Results []struct {
			DocID  string  `json:"docid"`
			Score  float64 `json:"score"`
			URI    string  `json:"uri"`
			Source struct {
				AbsPath, RelPath, Mime, Ext string
			} `json:"source"`
		} `json:"results"`
		Meta struct {
			Query        string `json:"query"`
			Mode         string `json:"mode"`
			TotalResults int    `json:"totalResults"`
		} `json:"meta"`
	}
	out := c.ok("search", "where is the fox?", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search json: %v\n%s", err, out)
	}
	if len(res.Results) != 1 || res.Results[0].URI != "gno://docs/a%20b%231.md" || res.Meta.Mode != "bm25" || res.Meta.TotalResults != 1 {
		t.Fatalf("search: %+v", res)
	}
	if strings.ContainsAny(out, "\x01\x02") {
		t.Fatal("match markers leaked into JSON")
	}
	for _, ref := range []string{res.Results[0].URI, res.Results[0].DocID, "docs/a b#1.md"} {
		if out := c.ok("get", ref, "--line-numbers", "--from", "4", "-l", "1"); out != "4: # Alpha\n" {
			t.Fatalf("get %s: %q", ref, out)
		}
	}
	if out := c.ok("query", "lazy dogs", "--json"); !strings.Contains(out, `"mode": "bm25_only"`) {
		t.Fatalf("query without vectors: %s", out)
	}
	if out := c.ok("tags", "--json"); !strings.Contains(out, `"tag": "x"`) {
		t.Fatalf("tags: %s", out)
	}
	c.ok("tag", "add", "docs/b.md", "Later")
	if out := c.ok("search", "dogs", "--tags-all", "later", "--format", "files"); !strings.Contains(out, filepath.Join(root, "b.md")) {
		t.Fatalf("tag filter: %s", out)
	}
	// Errors: clear message, code, exit status.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"search", "   "}, 2, "empty query"},
		{[]string{"search", "x", "-c", "nope"}, 3, "not found"},
		{[]string{"get", "docs/../../etc/passwd"}, 2, "escapes"},
		{[]string{"get", "#00000000"}, 3, "not found"},
		{[]string{"collection", "add", "/etc"}, 2, "INVALID_PATH"},
		{[]string{"collection", "add", root}, 1, "DUPLICATE"},
		{[]string{"collection", "add", filepath.Join(root, "missing")}, 3, "PATH_NOT_FOUND"},
		{[]string{"vsearch", "fox"}, 1, "gno index"},
	} {
		_, errOut, code := c.run(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("gno %s: exit %d, stderr %q; want exit %d with %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.msg)
		}
	}
	out, _, _ = c.run("get", "#00000000", "--json")
	if !strings.Contains(out, `"code":"NOT_FOUND"`) {
		t.Errorf("json error: %q", out)
	}
	// Removing the file and re-syncing drops it; status reports it.
	os.Remove(filepath.Join(root, "b.md"))
	if out := c.ok("update"); !strings.Contains(out, "1 removed") {
		t.Fatalf("update after delete: %s", out)
	}
	if out := c.ok("changes", "--since", "1"); !strings.Contains(out, "D #") {
		t.Fatalf("changes: %s", out)
	}
	if out := c.ok("status"); !strings.Contains(out, "Documents: 1") {
		t.Fatalf("status: %s", out)
	}
}

func TestCLIBrokenConfig(t *testing.T) {
	c := newCLI(t)
	cfg := filepath.Join(c.home, "bad.yml")
	os.WriteFile(cfg, []byte("collections:\n  - name: [unclosed\n"), 0o644)
	_, errOut, code := c.run("--config", cfg, "status")
	if code == 0 || !strings.Contains(errOut, cfg) || !strings.Contains(errOut, "line") {
		t.Fatalf("broken config: exit %d %q", code, errOut)
	}
}

func TestCLIWatch(t *testing.T) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nalpha\n"), 0o644)
	c.ok("collection", "add", root, "--name", "w")
	cmd := exec.Command(gnoBin, "watch", "--debounce", "100ms")
	cmd.Env = c.env()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	// The watches are up once the first sync has said so: a folder made
	// after that line is one the watcher must pick up as it comes.
	var mu sync.Mutex
	var log strings.Builder
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !once && strings.HasPrefix(sc.Text(), "watching ") {
				once = true
				close(ready)
			}
		}
	}()
	logged := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	select {
	case <-ready:
	case <-time.After(2 * time.Minute):
		t.Fatalf("gno watch did not start watching within 2 minutes:\n%s", logged())
	}
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "b.md"), []byte("# B\n\nplatypus\n"), 0o644)
	waitFor := func(q, file, what string) {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if out, _, code := c.run("search", q, "--format", "files"); code == 0 && strings.Contains(out, file) {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("watch did not index %s within 2 minutes:\n%s", what, logged())
	}
	waitFor("platypus", "b.md", "a new file in a new folder")
	// A collection added meanwhile (the config changes) is followed: its
	// file is indexed whether it lands before the watcher's rescan (the
	// new collection syncs whole) or after (its event).
	root2 := t.TempDir()
	c.ok("collection", "add", root2, "--name", "w2")
	os.WriteFile(filepath.Join(root2, "c.md"), []byte("# C\n\nwombat\n"), 0o644)
	waitFor("wombat", "c.md", "a file of a collection added while it ran")
}

// TestCLIMCP checks that `gno mcp` reaches the server binary with the
// global flags and that stdout carries JSON-RPC only.
func TestCLIMCP(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(gnoBin, "--index", "other", "mcp")
	cmd.Env = append(os.Environ(), "GNO_HOME="+home)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("gno mcp: %v: %s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout has %d lines: %q", len(lines), out.String())
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil || resp.ID != 1 || resp.Result.ServerInfo.Name != "gno" {
		t.Fatalf("initialize: %q %v", lines[0], err)
	}
}

// TestCLIMCPReconcileErrors: over the real binary's stdin and stdout, the
// reconcile tools fail with reconcile-cache-mcp.md's JSON-RPC codes,
// gno's own code in data.
func TestCLIMCPReconcileErrors(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(gnoBin, "mcp")
	cmd.Env = append(os.Environ(), "GNO_HOME="+home)
	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args) + "\n"
	}
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		call(2, "gno_diff", `{"since":0}`) +
		call(3, "gno_clear_reconciled", `{"cursor":"../x"}`) +
		call(4, "gno_mark_reconciled", `{"files":["/etc/passwd"]}`))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("gno mcp: %v: %s", err, errOut.String())
	}
	got := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var resp struct {
			ID    int `json:"id"`
			Error *struct {
				Code int `json:"code"`
				Data struct {
					Code string `json:"code"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &resp); err != nil {
			t.Fatalf("stdout line %q: %v", l, err)
		}
		if resp.Error != nil {
			got[resp.ID] = fmt.Sprintf("%d %s", resp.Error.Code, resp.Error.Data.Code)
		}
	}
	want := map[int]string{2: "-32602 INVALID_INPUT", 3: "-32602 INVALID_INPUT", 4: "-32602 INVALID_PATH"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors %v, want %v\nstdout: %s", got, want, out.String())
	}
}
