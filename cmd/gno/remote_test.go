package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/server/auth"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestRemoteBridge: a real team server (gno serve --listen-any: TLS, a
// self-signed certificate, tokens), `gno mcp install --remote` writing a
// client's config, and that config's command run as the client runs it,
// driven by a real MCP client session over stdio.
func TestRemoteBridge(t *testing.T) {
	c := shareIndex(t)
	read, _ := newToken(t, c, "--read", "--name", "alice")
	s := startShare(t, c, "serve", "--listen-any", "--addr", "127.0.0.2:0", "--enable-write")

	// Install for VS Code (project scope) with the token in the installing
	// shell's environment: the config names the variable, never the value.
	home, proj := t.TempDir(), t.TempDir()
	inst := exec.Command(gnoBin, "mcp", "install", "-t", "vscode", "-s", "project", "--remote", s.base, "--fingerprint", s.fingerprint)
	inst.Dir = proj
	inst.Env = append(c.env(), "HOME="+home, "GNO_TOKEN="+read)
	out, err := inst.CombinedOutput()
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(proj, ".vscode", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), read[4:]) || strings.Contains(string(out), read[4:]) {
		t.Fatalf("the token reached the config or the output:\n%s", data)
	}
	if !strings.Contains(string(data), `"GNO_TOKEN": "${env:GNO_TOKEN}"`) {
		t.Fatalf("the config does not name GNO_TOKEN:\n%s", data)
	}
	var cfg struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	entry := cfg.Servers["gno"]
	if strings.Contains(strings.Join(entry.Args, " "), read[4:]) {
		t.Fatal("the token is in the bridge's arguments")
	}

	// Run the entry as VS Code would, with GNO_TOKEN expanded into its
	// environment and an empty GNO_HOME: the bridge opens no index.
	var stderr lockedBuf
	mc, err := client.NewStdioMCPClientWithOptions(entry.Command, []string{"GNO_TOKEN=" + read, "GNO_HOME=" + t.TempDir()}, entry.Args,
		transport.WithCommandStderrWriter(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := mc.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "remote-test", Version: "1"}}}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	tools, err := mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	if !names["gno_search"] || names["gno_capture"] {
		t.Fatalf("a read token's tools: %v", names)
	}
	res, err := mc.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "gno_search", Arguments: map[string]any{"query": "elephants"}}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("gno_search: %+v %v", res, err)
	}
	if tc, ok := res.Content[0].(mcp.TextContent); !ok || !strings.Contains(tc.Text, "elephants") {
		t.Fatalf("gno_search: %+v", res.Content)
	}
	// A write tool with a read token: the server's refusal, relayed.
	_, err = mc.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "gno_capture", Arguments: map[string]any{"collection": "notes", "content": "x"}}})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("gno_capture with a read token: %v", err)
	}
	mc.Close()

	// The token from a file (Claude Desktop's way), none in the environment.
	file := filepath.Join(t.TempDir(), "team.token")
	if err := os.WriteFile(file, []byte(read+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out2, errOut, code := bridgeOnce(t, []string{"GNO_TOKEN=", "GNO_HOME=" + t.TempDir()}, "--remote", s.base, "--fingerprint", s.fingerprint, "--token-file", file)
	if code != 0 || !strings.Contains(out2, `"serverInfo"`) {
		t.Fatalf("--token-file: exit %d\n%s\n%s", code, out2, errOut)
	}
	// The server said how to reach it (right after its URL; the test's
	// copy of its stderr may still be on the way).
	if hint := "gno mcp install -t CLIENT --remote " + s.base + " --fingerprint " + s.fingerprint; !strings.Contains(s.log.waitFor(hint), hint) {
		t.Errorf("no %q in:\n%s", hint, s.log.String())
	}
	for _, log := range []string{stderr.String(), s.log.String(), errOut} {
		if strings.Contains(log, read[4:]) {
			t.Fatalf("the token reached a log:\n%s", log)
		}
	}
}

// bridgeOnce runs gno mcp --remote with args and env, sends initialize,
// closes stdin and returns what came out.
func bridgeOnce(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gnoBin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestRemoteRefusals: each misconfiguration is one JSON-RPC error on
// stdout (nothing else there) saying what to do, and the same on stderr.
func TestRemoteRefusals(t *testing.T) {
	c := shareIndex(t)
	read, _ := newToken(t, c, "--read")
	s := startShare(t, c, "serve", "--listen-any", "--addr", "127.0.0.2:0")
	other := strings.Replace(s.fingerprint, s.fingerprint[:2], "00", 1)
	if other == s.fingerprint {
		other = strings.Replace(s.fingerprint, s.fingerprint[:2], "11", 1)
	}
	unknown, _ := auth.NewSecret()
	home := "GNO_HOME=" + t.TempDir()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
		code int
	}{
		{"wrong fingerprint", []string{"GNO_TOKEN=" + read, home}, []string{"--remote", s.base, "--fingerprint", other}, "is not the pinned one", 0},
		{"no fingerprint", []string{"GNO_TOKEN=" + read, home}, []string{"--remote", s.base}, "pass --fingerprint", 0},
		{"no token", []string{"GNO_TOKEN=", home}, []string{"--remote", s.base, "--fingerprint", s.fingerprint}, "no access token: set GNO_TOKEN", 2},
		{"unexpanded", []string{"GNO_TOKEN=${env:GNO_TOKEN}", home}, []string{"--remote", s.base, "--fingerprint", s.fingerprint}, "was not set where the client started", 2},
		{"unknown token", []string{"GNO_TOKEN=" + unknown, home}, []string{"--remote", s.base, "--fingerprint", s.fingerprint}, "refused the access token", 0},
		{"plain http", []string{"GNO_TOKEN=" + read, home}, []string{"--remote", strings.Replace(s.base, "https", "http", 1)}, "HTTPS only", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := bridgeOnce(t, tc.env, tc.args...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 || code != tc.code {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			var m struct {
				JSONRPC string
				ID      int
				Error   struct{ Message string }
			}
			if err := json.Unmarshal([]byte(lines[0]), &m); err != nil || m.JSONRPC != "2.0" || m.ID != 1 || !strings.Contains(m.Error.Message, tc.want) {
				t.Fatalf("stdout %s, want an error with %q", out, tc.want)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr does not say it:\n%s", errOut)
			}
			for _, secret := range []string{read[4:], unknown[4:]} {
				if strings.Contains(out+errOut, secret) {
					t.Fatal("a token in the output")
				}
			}
		})
	}
	if _, errOut, code := bridgeOnce(t, nil, "--remote", s.base, "--token-env", read); code != 2 || !strings.Contains(errOut, "that is an access token") {
		t.Fatalf("a token as --token-env: exit %d %s", code, errOut)
	}
}

// TestRemoteNoOAuth: a token-only server advertises no OAuth: its
// well-known metadata paths are 404 to everyone, and its 401 names no
// resource metadata (a client that found either would start an OAuth flow
// and drop the configured header).
func TestRemoteNoOAuth(t *testing.T) {
	c := shareIndex(t)
	read, _ := newToken(t, c, "--read")
	s := startShare(t, c, "serve", "--listen-any", "--addr", "127.0.0.2:0")
	cl := s.client("127.0.0.12")
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp", "/.well-known/openid-configuration"} {
		for _, tok := range []string{"", read} {
			r := s.do(cl, "GET", p, "", "Bearer", tok)
			if r.status != 404 || strings.Contains(r.body, "authorization_endpoint") || strings.Contains(r.body, "issuer") ||
				!strings.Contains(r.body, "not OAuth") {
				t.Errorf("GET %s (token %v): %d %s", p, tok != "", r.status, r.body)
			}
		}
	}
	for _, tok := range []string{"", "gno_" + strings.Repeat("a", 58)} {
		r := s.do(cl, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Bearer", tok, "Content-Type", "application/json")
		wa := r.resp.Header.Get("WWW-Authenticate")
		if r.status != 401 || !strings.HasPrefix(wa, "Bearer ") || strings.Contains(wa, "resource_metadata") {
			t.Errorf("POST /mcp (token %v): %d, WWW-Authenticate %q", tok != "", r.status, wa)
		}
	}
}
