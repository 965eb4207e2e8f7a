// Package mcpclient is a minimal MCP client over stdio (newline-delimited
// JSON-RPC 2.0), just enough to time tool calls against a warm `gno mcp`
// server the way an agent host drives it. It is written against the wire
// protocol rather than a client library so the benchmark measures the
// server and nothing else.
//
// It must not be imported by gno itself (bench is a tool).
package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/bench/proc"
)

// ProtocolVersion is the MCP revision the client announces.
const ProtocolVersion = "2025-03-26"

// Client talks to one server process.
type Client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	nextID int64
	mu     sync.Mutex
}

// Start launches the server and completes the initialize handshake.
func Start(ctx context.Context, path string, args, env []string) (*Client, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start mcp server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start mcp server: %w", err)
	}
	tail := &tailBuffer{max: 4096}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mcp server %s: %w", path, err)
	}
	c := &Client{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: tail}
	var res json.RawMessage
	err = c.call(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "gnobench", "version": "1"},
	}, &res)
	if err == nil {
		err = c.notify("notifications/initialized")
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("mcp initialize: %w", err)
	}
	return c, nil
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (c *Client) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = c.stdin.Write(b)
	return err
}

func (c *Client) notify(method string) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method})
}

// call sends one request and waits for its response, skipping the
// server's notifications. Cancelling ctx kills the server, since a
// half-read stdio stream cannot be resynchronised.
func (c *Client) call(ctx context.Context, method string, params any, result any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("%s: write: %w (server stderr: %s)", method, err, c.stderr.String())
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = c.cmd.Process.Kill()
		case <-done:
		}
	}()
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", method, ctx.Err())
			}
			return fmt.Errorf("%s: read: %w (server stderr: %s)", method, err, c.stderr.String())
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("%s: server wrote a non-JSON line on stdout: %.120q", method, line)
		}
		if m.ID == nil || *m.ID != id || m.Method != "" {
			continue // notification or server-initiated request
		}
		if m.Error != nil {
			return fmt.Errorf("%s: JSON-RPC error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	}
}

// ToolResult is a tools/call result.
type ToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// CallTool calls one tool and returns its result and round-trip time.
// A tool-level failure (isError) is returned as an error quoting its text.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (*ToolResult, time.Duration, error) {
	var res ToolResult
	start := time.Now()
	err := c.call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res)
	rtt := time.Since(start)
	if err != nil {
		return nil, rtt, err
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			texts = append(texts, c.Text)
		}
		return &res, rtt, fmt.Errorf("%s: tool error: %.200s", name, strings.Join(texts, " "))
	}
	return &res, rtt, nil
}

// ListTools returns the names of the server's tools.
func (c *Client) ListTools(ctx context.Context) ([]string, error) {
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := c.call(ctx, "tools/list", map[string]any{}, &res); err != nil {
		return nil, err
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

// Close ends the server: stdin is closed (the MCP way to say goodbye),
// then the process is killed if it has not exited within two seconds.
func (c *Client) Close() error {
	_ = c.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // a server may exit non-zero on EOF; nothing to report
		}
		return err
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
		<-exited
		return nil
	}
}

// MaxRSS is the server's peak resident memory in bytes, known after Close.
func (c *Client) MaxRSS() int64 {
	if c.cmd.ProcessState == nil {
		return 0
	}
	return proc.MaxRSS(c.cmd.ProcessState)
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return "empty"
	}
	return s
}
