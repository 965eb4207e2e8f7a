package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC %d: %s", e.Code, e.Message) }

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r *toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// mcpConn is one MCP session, over stdio or HTTP, that may carry many
// requests at once.
type mcpConn interface {
	call(ctx context.Context, method string, params any) (json.RawMessage, error)
	notify(method string, params any) error
	close() error
	pid() int
}

// tool calls a tool; a JSON-RPC error is returned as err, a tool error as
// a result with IsError.
func tool(ctx context.Context, c mcpConn, name string, args map[string]any) (*toolResult, error) {
	raw, err := c.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: bad result %.200s: %w", name, raw, err)
	}
	return &r, nil
}

func initialize(ctx context.Context, c mcpConn) error {
	_, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "gno-reliability", "version": "1"}})
	if err != nil {
		return err
	}
	return c.notify("notifications/initialized", nil)
}

// stdioConn drives `gno mcp` over its stdin and stdout.
type stdioConn struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	wmu     sync.Mutex
	next    atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan message
	stderr  *bytes.Buffer
	done    chan struct{}
	bad     atomic.Value // a non-protocol line seen on stdout
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Result json.RawMessage  `json:"result"`
	Error  *rpcError        `json:"error"`
}

// startStdio launches `gno mcp` in e's GNO_HOME and initialises a session.
func startStdio(t testing.TB, e *env, extra ...string) *stdioConn {
	t.Helper()
	cmd := exec.Command(gnoBin(), append([]string{"mcp"}, extra...)...)
	cmd.Env = e.vars
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	c := &stdioConn{cmd: cmd, in: in, waiting: map[int64]chan message{}, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = &lockedWriter{w: c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(out)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := initialize(ctx, c); err != nil {
		c.close()
		t.Fatalf("initialize: %v", err)
	}
	return c
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *stdioConn) read(out io.Reader) {
	defer close(c.done)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if json.Unmarshal(line, &m) != nil || !bytes.Contains(line, []byte(`"jsonrpc":"2.0"`)) {
				c.bad.Store(fmt.Sprintf("%.200q", line))
			} else if m.ID != nil && m.Method == "" {
				var id int64
				json.Unmarshal(*m.ID, &id)
				c.mu.Lock()
				ch := c.waiting[id]
				delete(c.waiting, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioConn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// errCancelled is returned by call when ctx ends first; the request is
// cancelled with notifications/cancelled, as MCP clients do.
var errCancelled = errors.New("request cancelled by the client")

func (c *stdioConn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.next.Add(1)
	ch := make(chan message, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: write: %w (stderr %s)", method, err, c.stderr.String())
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "test"})
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
		return nil, errCancelled
	case <-c.done:
		return nil, fmt.Errorf("%s: server closed stdout (stderr %.2000s)", method, c.stderr.String())
	}
}

func (c *stdioConn) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return c.write(m)
}

func (c *stdioConn) pid() int { return c.cmd.Process.Pid }

// close ends the session the MCP way (EOF on stdin) and reports a
// non-protocol line seen on stdout.
func (c *stdioConn) close() error {
	c.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-exited
	}
	if b := c.bad.Load(); b != nil {
		return fmt.Errorf("stdout carried a non-protocol line: %s", b)
	}
	return nil
}

// kill ends the server with SIGKILL.
func (c *stdioConn) kill() {
	c.cmd.Process.Kill()
	c.in.Close()
	c.cmd.Wait()
}

// httpConn is one streamable-HTTP session.
type httpConn struct {
	url     string
	session string
	client  *http.Client
	next    atomic.Int64
	proc    *exec.Cmd
	bearer  string // an access token (the sharing mode, share_test.go)
}

var servingRE = regexp.MustCompile(`serving (http://[^ \n]+)`)

// startHTTP launches `gno mcp --http 127.0.0.1:0` and returns its URL.
func startHTTP(t testing.TB, e *env, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(gnoBin(), append([]string{"mcp", "--http", "127.0.0.1:0"}, extra...)...)
	cmd.Env = e.vars
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		r := bufio.NewReader(pr)
		sent := false
		for {
			line, err := r.ReadString('\n')
			if m := servingRE.FindStringSubmatch(line); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case u := <-urlc:
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); pw.Close() })
		return cmd, u
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("gno mcp --http did not report its address")
	}
	return nil, ""
}

func dialHTTP(ctx context.Context, url string, proc *exec.Cmd) (*httpConn, error) {
	c := &httpConn{url: url, client: &http.Client{Timeout: 2 * time.Minute}, proc: proc}
	if err := initialize(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *httpConn) post(ctx context.Context, body any) (*http.Response, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	return c.client.Do(req)
}

func (c *httpConn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.next.Add(1)
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.session == "" {
		c.session = s
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, b)
	}
	var payloads [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				payloads = append(payloads, []byte(strings.TrimSpace(d)))
			}
		}
	} else {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		payloads = append(payloads, b)
	}
	for _, p := range payloads {
		var m message
		if json.Unmarshal(p, &m) != nil || m.ID == nil || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	}
	return nil, fmt.Errorf("%s: no response in %d payloads", method, len(payloads))
}

func (c *httpConn) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	resp, err := c.post(context.Background(), m)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil
}

func (c *httpConn) close() error { return nil }
func (c *httpConn) pid() int     { return c.proc.Process.Pid }
