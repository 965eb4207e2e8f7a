package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/server/auth"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// team is a team server as gno runs one: mcp-go's streamable HTTP behind
// the real auth.Guard, over real TLS with a self-signed certificate, on
// loopback. Its tools exercise every direction the bridge relays.
type team struct {
	t       testing.TB
	dir     string
	addr    string
	url     string
	pin     Pin
	token   string
	hs      *http.Server
	stop    func(context.Context) error
	waitCh  chan struct{} // closed by the wait tool when its request is cancelled
	waiting chan struct{} // closed by the wait tool when it starts
	deletes atomic.Int32  // session DELETEs that passed the guard
}

func newTeam(t testing.TB) *team {
	tm := &team{t: t, dir: t.TempDir(), addr: "127.0.0.1:0"}
	tok, _, err := tokensOf(t, tm.dir).Create(context.Background(), "alice", auth.Read, 0)
	if err != nil {
		t.Fatal(err)
	}
	tm.token = tok
	tm.start()
	t.Cleanup(tm.close)
	return tm
}

// start serves (again, on the same port after close: a restarted server
// that has forgotten every session).
func (tm *team) start() {
	t := tm.t
	cert, err := auth.LoadTLS(auth.TLSOptions{Dir: tm.dir + "/tls", Hosts: auth.ServedNames("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	if tm.pin, err = ParsePin(cert.Fingerprint); err != nil {
		t.Fatal(err)
	}
	s := mcpsrv.NewMCPServer("team", "1", mcpsrv.WithToolCapabilities(false), mcpsrv.WithLogging())
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text"), mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A server notification during the call: it comes down the
		// POST's SSE stream.
		s.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "echoing"})
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
		if err != nil {
			return mcp.NewToolResultError("roots/list: " + err.Error()), nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return mcp.NewToolResultText(strings.Join(uris, " ")), nil
	})
	tm.waitCh, tm.waiting = make(chan struct{}), make(chan struct{})
	waitCh, waiting := tm.waitCh, tm.waiting
	s.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(waiting)
		<-ctx.Done()
		close(waitCh)
		return mcp.NewToolResultText("cancelled"), nil
	})
	sh := mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithEndpointPath("/mcp"), mcpsrv.WithStateful(true))
	guard, err := auth.New(auth.Options{Store: tokensOf(tm.t, tm.dir), Logger: slog.New(slog.DiscardHandler), Hosts: auth.ServedNames("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			tm.deletes.Add(1)
		}
		sh.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", tm.addr)
	if err != nil {
		t.Fatal(err)
	}
	tm.addr = ln.Addr().String()
	tm.url = "https://" + tm.addr + "/mcp"
	tm.hs = &http.Server{Handler: guard.Wrap(mux), ErrorLog: log.New(io.Discard, "", 0)}
	tm.stop = sh.Shutdown
	go tm.hs.Serve(tls.NewListener(ln, cert.Config))
}

func (tm *team) close() {
	if tm.hs != nil {
		tm.hs.Close()
		tm.stop(context.Background())
		tm.hs = nil
	}
}

// session is a real mcp-go client talking to a bridge over pipes, as a
// client talks to `gno mcp --remote` over its stdin and stdout.
type session struct {
	c     *client.Client
	done  chan error
	log   *lockedBuffer
	notes chan string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type rootsHandler struct{}

func (rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/project", Name: "project"}}}, nil
}

func bridgeTo(t testing.TB, o Options) *session {
	t.Helper()
	clientIn, bridgeOut := io.Pipe()
	bridgeIn, clientOut := io.Pipe()
	s := &session{done: make(chan error, 1), log: &lockedBuffer{}, notes: make(chan string, 16)}
	o.Log = slog.New(slog.NewTextHandler(s.log, nil))
	if o.Retry == nil {
		o.Retry = []time.Duration{time.Millisecond, time.Millisecond}
	}
	go func() {
		s.done <- Run(context.Background(), bridgeIn, bridgeOut, o)
		bridgeOut.Close()
	}()
	s.c = client.NewClient(transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))), client.WithRootsHandler(rootsHandler{}))
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		select {
		case s.notes <- n.Method:
		default:
		}
	})
	if err := s.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.c.Close() })
	return s
}

func (s *session) initialize(ctx context.Context) error {
	_, err := s.c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "bridge-test", Version: "1"}}})
	return err
}

func (s *session) call(ctx context.Context, name string, args map[string]any) (string, error) {
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

func (tm *team) options() Options {
	p := tm.pin
	return Options{URL: tm.url, Pin: &p, Token: tm.token}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestBridgeRelays(t *testing.T) {
	tm := newTeam(t)
	s := bridgeTo(t, tm.options())
	ctx := testCtx(t)
	if err := s.initialize(ctx); err != nil {
		t.Fatal(err)
	}
	tools, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	got, err := s.call(ctx, "echo", map[string]any{"text": "hello"})
	if err != nil || got != "echo: hello" {
		t.Fatalf("echo: %q %v", got, err)
	}
	select {
	case m := <-s.notes:
		if m != "notifications/message" {
			t.Fatalf("notification %q", m)
		}
	case <-ctx.Done():
		t.Fatal("the server's notification never reached the client")
	}
	// roots/list: the server asks, the bridge relays, the client answers.
	if got, err := s.call(ctx, "roots", nil); err != nil || got != "file:///work/project" {
		t.Fatalf("roots: %q %v", got, err)
	}
	// A cancelled call is cancelled on the server too.
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { _, err := s.call(cctx, "wait", nil); errc <- err }()
	select {
	case <-tm.waiting:
	case <-ctx.Done():
		t.Fatal("the wait call never reached the server")
	}
	cancel()
	select {
	case <-tm.waitCh:
	case <-ctx.Done():
		t.Fatal("the server never saw the cancellation")
	}
	<-errc
	s.c.Close()
	if err := <-s.done; err != nil {
		t.Fatalf("bridge ended with %v", err)
	}
	// The session ends with the bridge: its DELETE carries the token.
	if n := tm.deletes.Load(); n != 1 {
		t.Fatalf("%d authenticated session DELETEs at exit, want 1", n)
	}
	if strings.Contains(s.log.String(), tm.token) {
		t.Fatal("the token reached the log")
	}
}

func TestBridgeSurvivesRestart(t *testing.T) {
	tm := newTeam(t)
	s := bridgeTo(t, tm.options())
	ctx := testCtx(t)
	if err := s.initialize(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.call(ctx, "echo", map[string]any{"text": "1"}); err != nil {
		t.Fatal(err)
	}
	tm.close()
	_, err := s.call(ctx, "echo", map[string]any{"text": "2"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the team server at "+tm.url) {
		t.Fatalf("with the server down: %v", err)
	}
	tm.start() // same port, same certificate; every session forgotten
	got, err := s.call(ctx, "echo", map[string]any{"text": "3"})
	if err != nil || got != "echo: 3" {
		t.Fatalf("after the restart: %q %v\n%s", got, err, s.log.String())
	}
	if !strings.Contains(s.log.String(), "started a new one") {
		t.Errorf("the new session is not logged:\n%s", s.log.String())
	}
}

func TestBridgeRefusals(t *testing.T) {
	tm := newTeam(t)
	ctx := testCtx(t)
	wrong, _ := auth.NewSecret()
	other, _ := ParsePin(strings.Repeat("AB", 32))
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"unknown token", func(o *Options) { o.Token = wrong }, "refused the access token (access refused: unknown or revoked token)"},
		{"wrong pin", func(o *Options) { o.Pin = &other }, "is not the pinned one"},
		{"no pin", func(o *Options) { o.Pin = nil }, "pass --fingerprint"},
		{"not MCP", func(o *Options) { o.URL = strings.TrimSuffix(o.URL, "/mcp") + "/nothing" }, "is not an MCP endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := tm.options()
			c.edit(&o)
			s := bridgeTo(t, o)
			err := s.initialize(ctx)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), tm.token) {
				t.Fatal("a token in the error")
			}
		})
	}
}

// TestBridgeStdout: every line the bridge writes is a JSON-RPC message,
// for input that is not one too.
func TestBridgeStdout(t *testing.T) {
	in := strings.NewReader("not json\n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n{\"jsonrpc\":\"2.0\"}\n\n" +
		`{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\n")
	var out lockedBuffer
	err := Refuse(in, &out, errors.New("no access token"))
	if err == nil || err.Error() != "no access token" {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0",`) || !strings.Contains(l, `"error"`) {
			t.Errorf("not a JSON-RPC error: %s", l)
		}
	}
	if !strings.Contains(lines[3], `"id":"x"`) || !strings.Contains(lines[3], "no access token") {
		t.Errorf("the request's answer: %s", lines[3])
	}
}

// BenchmarkCall is one read-only tool call through the bridge (pipes,
// JSON relay, HTTPS to the server), and the same call from an HTTP client
// straight to the server: the difference is the bridge's cost.
func BenchmarkCall(b *testing.B) {
	tm := newTeam(b)
	ctx := context.Background()
	b.Run("bridge", func(b *testing.B) {
		s := bridgeTo(b, tm.options())
		if err := s.initialize(ctx); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.call(ctx, "echo", map[string]any{"text": "x"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		p := tm.pin
		c, err := client.NewStreamableHttpClient(tm.url, transport.WithHTTPBasicClient(httpClient(&p, tm.token)))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		s := &session{c: c}
		if err := s.initialize(ctx); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.call(ctx, "echo", map[string]any{"text": "x"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// tokensOf is the access tokens of a SQLite index in dir, on a handle of
// its own (as `gno token` and a server each open the index).
func tokensOf(t testing.TB, dir string) *auth.Store {
	t.Helper()
	b, err := store.OpenBackend(context.Background(), filepath.Join(dir, "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return auth.NewStore(b, dir)
}
