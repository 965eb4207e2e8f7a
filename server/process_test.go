package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// TestMain lets the test binary run as a stdio MCP server in a child
// process (GNO_TEST_MCP_SERVER=1), the way `gno mcp` runs.
func TestMain(m *testing.M) {
	if os.Getenv("GNO_TEST_MCP_SERVER") == "1" {
		out, err := ProtectStdout()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("stray print that must not reach the protocol stream")
		s := New(Options{Open: func(ctx context.Context) (*retrieval.Engine, error) { return retrieval.Open(ctx, retrieval.Options{}) },
			Version: "test", EnableWrite: true})
		err = s.ServeStdio(context.Background(), os.Stdin, out)
		s.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func TestStdioSubprocess(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GNO_TEST_MCP_SERVER=1", "GNO_HOME="+f.home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	recv := func() map[string]any {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v (stderr: %s)", err, stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carried a non-protocol line: %q", line)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["result"].(map[string]any)["serverInfo"].(map[string]any)["name"] != "gno" {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"fox"}}}`)
	if m := recv(); m["id"] != 2.0 || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("search: %v", m)
	}
	// A writer in another process (this test) holds the lock.
	e, err := retrieval.Open(context.Background(), retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lock, err := e.Writer(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gno_capture","arguments":{"collection":"notes","content":"x"}}}`)
	m := recv()
	if sc := m["result"].(map[string]any)["structuredContent"].(map[string]any); sc["error"].(map[string]any)["code"] != string(gnoerr.Locked) {
		t.Fatalf("capture under a foreign lock: %v", m)
	}
	lock.Close()
	// A sync with a progress token answers when the job is done.
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"gno_sync","arguments":{},"_meta":{"progressToken":7}}}`)
	for {
		m := recv()
		if m["method"] == "ping" {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{}}`, m["id"]))
		}
		if m["id"] == 4.0 {
			break
		}
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"fox"}}}`)
	stdin.Close() // EOF right after a request: it is still answered
	if m := recv(); m["id"] != 5.0 {
		t.Fatalf("request before EOF: %v", m)
	}
	if rest, _ := io.ReadAll(r); len(bytes.TrimSpace(rest)) > 0 {
		t.Fatalf("unexpected output after EOF: %q", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v (stderr: %s)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stray print") {
		t.Errorf("stray stdout print was not redirected to stderr: %q", stderr.String())
	}
}

func TestHTTP(t *testing.T) {
	f := newFixture(t)
	s := newTestServer(t, f, false)
	if err := s.ServeHTTP(context.Background(), "0.0.0.0:0", HTTPOptions{}); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Fatalf("non-loopback without --listen-any: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, "127.0.0.1:0", HTTPOptions{Ready: func(a string) { addrc <- a }}) }()
	addr := <-addrc
	url := "http://" + addr + EndpointPath
	post := func(body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := post(init, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	resp = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"fox"}}}`,
		map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "gno://notes/") {
		t.Fatalf("search over HTTP: %d %s", resp.StatusCode, body)
	}
	for _, h := range []map[string]string{{"Host": "evil.example.com"}, {"Origin": "http://evil.example.com"}} {
		resp := post(init, h)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%v: status %d, want 403", h, resp.StatusCode)
		}
	}
	resp = post(init, map[string]string{"Origin": "http://localhost:3000"})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("loopback origin refused: %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeHTTP did not stop within a minute")
	}
}
