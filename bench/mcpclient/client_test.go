package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestMain lets the test binary act as a real MCP server (mcp-go over
// stdio) when re-executed with GNOBENCH_MCP_SERVER=1, so the client is
// tested against a real implementation of the protocol.
func TestMain(m *testing.M) {
	if os.Getenv("GNOBENCH_MCP_SERVER") == "1" {
		s := server.NewMCPServer("echo", "1", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("echo", mcp.WithString("query", mcp.Required())),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				q := req.GetString("query", "")
				if q == "" {
					return mcp.NewToolResultError("empty query"), nil
				}
				return mcp.NewToolResultStructured(map[string]any{"echo": q}, "echo "+q), nil
			})
		if err := server.ServeStdio(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(ctx, exe, []string{"-test.run=^$"}, append(os.Environ(), "GNOBENCH_MCP_SERVER=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 1 || tools[0] != "echo" {
		t.Fatalf("tools = %v, %v", tools, err)
	}
	res, rtt, err := c.CallTool(ctx, "echo", map[string]any{"query": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if rtt <= 0 {
		t.Fatal("round trip time not measured")
	}
	var got struct{ Echo string }
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil || got.Echo != "hello" {
		t.Fatalf("structuredContent = %s (%v)", res.StructuredContent, err)
	}
	if _, _, err := c.CallTool(ctx, "echo", map[string]any{"query": ""}); err == nil || !strings.Contains(err.Error(), "empty query") {
		t.Fatalf("tool error = %v, want one quoting the tool's text", err)
	}
	if _, _, err := c.CallTool(ctx, "nope", map[string]any{}); err == nil {
		t.Fatal("want an error for an unknown tool")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.MaxRSS() <= 0 {
		t.Fatal("peak RSS not read after Close")
	}
}

func TestStartFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Start(ctx, "/bin/false", nil, nil); err == nil {
		t.Fatal("want an error from a server that exits at once")
	}
}
