// Package remote is `gno mcp --remote`: a bridge from MCP over stdio, all
// that Claude Desktop and other stdio-only clients speak, to a team
// server's streamable HTTP endpoint (`gno serve --listen-any`, `gno mcp
// --http --listen-any`), adding what such clients cannot: the access token
// as an Authorization header, and trust in a self-signed certificate by
// its pinned fingerprint.
//
// The HTTP side is mcp-go's client transport (sessions, protocol version
// header, SSE responses and their resumption, the GET stream of server
// notifications, DELETE at the end); this package only relays messages
// as they are: client requests and notifications go up, responses,
// server notifications and server requests (roots/list) come down, and
// the client's answers to those go up again. It adds what a long-lived
// bridge needs: a server that cannot be reached is retried for a few
// seconds and then answered as a JSON-RPC error naming the cause, the
// bridge staying up for the next request; a session the server forgot
// (it restarted) is started again from the client's own initialize; the
// server's refusals (token, Host, rate limit) come back in its words.
// stdout carries only JSON-RPC; diagnostics go to the logger (stderr).
package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/jsonl"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options configure a bridge.
type Options struct {
	// URL is the team server's MCP endpoint (Endpoint's result).
	URL string
	// Pin, if not nil, is the one certificate to trust (a self-signed
	// one), and the bridge connects directly, ignoring HTTPS_PROXY; nil
	// trusts the system's certificate authorities.
	Pin *Pin
	// Token is the access token, sent as Authorization: Bearer.
	Token string
	// Log receives what goes wrong (never the token). nil discards.
	Log *slog.Logger
	// TransportLog receives mcp-go's own log lines (verbose). nil discards.
	TransportLog *slog.Logger
	// Retry are the waits between attempts to reach a server that does
	// not answer; nil is DefaultRetry.
	Retry []time.Duration
}

// DefaultRetry rides out a server restart: about 8 seconds in all.
var DefaultRetry = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// maxLine bounds one message from the client (the server's own request
// limit is 32 MiB; a gno_capture carries a whole document).
const maxLine = 64 << 20

// Error codes of the bridge's own JSON-RPC errors (the implementation-
// defined range of JSON-RPC 2.0).
const (
	// CodeUnreachable: the server could not be reached, or the connection
	// was lost.
	CodeUnreachable = -32000
	// CodeRefused: the server refused the request (token, Host, rate
	// limit) or its certificate was not trusted.
	CodeRefused = -32001
	// CodeConfig: the bridge is misconfigured (no token, bad URL or pin)
	// and answers every request with why.
	CodeConfig = -32002
)

// Endpoint checks a team server's address and returns its MCP endpoint:
// https only (a team server speaks nothing else), no credentials in it,
// /mcp when no path is given.
func Endpoint(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		// The value is not repeated: a mistyped one may hold a token
		// (https//user:TOKEN@host), and this goes to stderr and the client.
		return "", gnoerr.New(gnoerr.InvalidInput, "--remote is not a URL: want https://HOST:PORT (the address gno serve --listen-any printed)")
	}
	if u.Scheme != "https" {
		return "", gnoerr.New(gnoerr.InvalidInput, "--remote must be https://HOST:PORT: a team server speaks HTTPS only (got %s://)", u.Scheme)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", gnoerr.New(gnoerr.InvalidInput, "--remote takes no user, query or fragment: the token goes in GNO_TOKEN or --token-file, never in a URL")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	return u.String(), nil
}

// bridge relays one stdio session to the server.
type bridge struct {
	o   Options
	tr  *transport.StreamableHTTP
	log *slog.Logger

	outMu sync.Mutex
	out   io.Writer

	mu          sync.Mutex
	initParams  json.RawMessage // the client's initialize, replayed for a new session
	initialized bool            // the client sent notifications/initialized
	reinits     int
	pending     map[string]chan *transport.JSONRPCResponse // server requests awaiting the client, by id
	inflight    map[string]context.CancelFunc              // client requests, by id

	readOnly map[string]bool // tools the server marked readOnlyHint, from tools/list

	reinitMu sync.Mutex
	wg       sync.WaitGroup
}

// Run bridges in (the client's messages, one per line) and out (ours) to
// the server until in ends (nil) or ctx is cancelled; then it cancels what
// is in flight and ends the session.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.TransportLog == nil {
		o.TransportLog = slog.New(slog.DiscardHandler)
	}
	if o.Retry == nil {
		o.Retry = DefaultRetry
	}
	tr, err := transport.NewStreamableHTTP(o.URL,
		// The client's transport sets the token on every request, the
		// DELETE at Close included (WithHTTPHeaders misses that one).
		transport.WithHTTPBasicClient(httpClient(o.Pin, o.Token)),
		// The GET stream carries the server's notifications outside a
		// request on the protocol versions clients speak today; on
		// 2026-07-28 and later the transport skips it, and the client's
		// own subscriptions/listen request goes through like any other.
		//lint:ignore SA1019 the bridge relays whichever version the client negotiates
		transport.WithContinuousListening(),
		transport.WithHTTPLogger(o.TransportLog))
	if err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "--remote")
	}
	b := &bridge{o: o, tr: tr, log: o.Log, out: out,
		pending: map[string]chan *transport.JSONRPCResponse{}, inflight: map[string]context.CancelFunc{}, readOnly: map[string]bool{}}
	tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { b.write(n) })
	tr.SetRequestHandler(b.serverRequest)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		return err
	}
	// Reading stdin blocks beyond ctx's reach: a cancelled ctx (SIGTERM)
	// ends the bridge without waiting for it.
	read := make(chan error, 1)
	go func() {
		read <- readLines(in, func(line []byte) { b.handle(ctx, line) }, func() {
			b.writeError(nil, mcp.INVALID_REQUEST, fmt.Sprintf("message over %d MiB refused", maxLine>>20))
		})
	}()
	select {
	case err = <-read:
		cancel()
		b.wg.Wait() // the reader, which starts requests, has ended
	case <-ctx.Done():
		err = ctx.Err() // requests end with ctx; the process is ending
	}
	tr.Close() // DELETE the session
	return err
}

// Refuse answers every request on in with reason (a configuration error:
// no token, a malformed pin) until in ends, and returns reason. A client
// shows an initialize error to its user, where a bridge that just exited
// leaves only "server disconnected".
func Refuse(in io.Reader, out io.Writer, reason error) error {
	b := &bridge{out: out, log: slog.New(slog.DiscardHandler)}
	err := readLines(in, func(line []byte) {
		if m, ok := b.parse(line); ok && m.isRequest() {
			b.writeError(m.ID, CodeConfig, "gno mcp --remote: "+reason.Error())
		}
	}, func() {})
	if err != nil {
		return err
	}
	return reason
}

// readLines calls handle with each non-blank line of r until EOF (nil)
// or a read error; a line over maxLine is skipped and reported with
// tooBig.
func readLines(r io.Reader, handle func([]byte), tooBig func()) error {
	err := jsonl.ReadLines(bufio.NewReaderSize(r, 64<<10), maxLine, handle, tooBig)
	if err == io.EOF {
		return nil
	}
	return fmt.Errorf("read stdin: %w", err)
}

// message is what the bridge reads of a client message to route it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *message) hasID() bool     { return len(m.ID) > 0 && string(m.ID) != "null" }
func (m *message) isRequest() bool { return m.Method != "" && m.hasID() }

// parse reads a line, answering the client itself when it is not a
// message the bridge can relay.
func (b *bridge) parse(line []byte) (*message, bool) {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		b.writeError(nil, mcp.INVALID_REQUEST, "batch requests are not supported")
		return nil, false
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		b.writeError(nil, mcp.PARSE_ERROR, "parse error: "+err.Error())
		return nil, false
	}
	if m.Method == "" && !m.hasID() {
		b.writeError(nil, mcp.INVALID_REQUEST, "invalid request: no method")
		return nil, false
	}
	return &m, true
}

// handle routes one client message. initialize and notifications go out
// in order (the session must exist before anything else uses it); other
// requests run concurrently, as the client may have several in flight.
func (b *bridge) handle(ctx context.Context, line []byte) {
	m, ok := b.parse(line)
	if !ok {
		return
	}
	switch {
	case m.Method == "":
		b.clientResponse(m)
	case !m.hasID():
		b.notify(ctx, m)
	case m.Method == string(mcp.MethodInitialize):
		b.request(ctx, m)
	default:
		key := idKey(m.ID)
		rctx, cancel := context.WithCancel(ctx)
		b.mu.Lock()
		b.inflight[key] = cancel
		b.mu.Unlock()
		b.wg.Go(func() {
			defer func() {
				b.mu.Lock()
				delete(b.inflight, key)
				b.mu.Unlock()
				cancel()
			}()
			b.request(rctx, m)
		})
	}
}

// request relays one client request and writes the server's answer, or
// the bridge's error when there is none. A request the client cancelled
// gets no answer (the spec's rule for cancelled requests).
func (b *bridge) request(ctx context.Context, m *message) {
	var id mcp.RequestId
	if err := json.Unmarshal(m.ID, &id); err != nil {
		b.writeError(nil, mcp.INVALID_REQUEST, "invalid request id")
		return
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: m.Method}
	if len(m.Params) > 0 {
		req.Params = m.Params
	}
	if m.Method == string(mcp.MethodInitialize) {
		b.mu.Lock()
		b.initParams = m.Params
		b.mu.Unlock()
	}
	resp, err := b.send(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		code, msg := CodeUnreachable, err.Error()
		var be *bridgeError
		if errors.As(err, &be) {
			code = be.code
		}
		b.log.Error("gno mcp --remote: "+msg, "method", m.Method)
		b.writeError(m.ID, code, msg)
		return
	}
	if m.Method == string(mcp.MethodInitialize) && resp.Error == nil {
		b.setProtocol(resp.Result)
	}
	if m.Method == string(mcp.MethodToolsList) && resp.Error == nil {
		b.learnTools(resp.Result)
	}
	b.write(resp)
}

// setProtocol hands the negotiated version to the transport, which sends
// it as MCP-Protocol-Version on every later request.
func (b *bridge) setProtocol(result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil && r.ProtocolVersion != "" {
		b.tr.SetProtocolVersion(r.ProtocolVersion)
	}
}

// send sends req, retrying while the server cannot be reached and
// starting a new session once when the server has forgotten this one.
func (b *bridge) send(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	renewed := false
	for attempt := 0; ; attempt++ {
		session := b.tr.GetSessionId()
		f := &failure{}
		resp, err := b.tr.SendRequest(withFailure(ctx, f), req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, transport.ErrSessionTerminated) && req.Method != string(mcp.MethodInitialize) && !renewed {
			renewed = true
			if err := b.renew(ctx, session); err != nil {
				return nil, err
			}
			attempt--
			continue
		}
		be := explain(b.o.URL, err, f)
		if be.lost && b.replayable(req) {
			// Most often a kept-alive connection the server closed as it
			// stopped; the request is one that may run twice.
			be.retry = true
		}
		if !be.retry || attempt >= len(b.o.Retry) {
			if be.retry {
				be.msg += fmt.Sprintf(" (tried %d times over %s)", attempt+1, total(b.o.Retry))
			}
			return nil, be
		}
		if attempt == 0 {
			b.log.Warn("gno mcp --remote: " + be.msg + fmt.Sprintf("; retrying for up to %s", total(b.o.Retry)))
		}
		select {
		case <-time.After(b.o.Retry[attempt]):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func total(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// write sends one message to the client, whole, on one line.
func (b *bridge) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		b.log.Error("gno mcp --remote: cannot encode a message", "err", err)
		return
	}
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if _, err := b.out.Write(append(data, '\n')); err != nil {
		b.log.Error("gno mcp --remote: write stdout", "err", err)
	}
}

func (b *bridge) writeError(rawID json.RawMessage, code int, msg string) {
	var id any
	if len(rawID) > 0 {
		json.Unmarshal(rawID, &id)
	}
	b.write(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, msg, nil)})
}

// idKey normalises a JSON-RPC id so 7 and 7.0 compare equal.
func idKey(raw json.RawMessage) string { return jsonl.IDKey(raw) }

// httpClient trusts the pinned certificate alone, connecting directly,
// or the system's CAs through the environment's proxy; it sends token on
// every request.
func httpClient(pin *Pin, token string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	if pin != nil {
		tr.TLSClientConfig.InsecureSkipVerify = true // the pin replaces chain and name checks
		tr.TLSClientConfig.VerifyConnection = pin.verify
		// Connect directly: through an https proxy (HTTPS_PROXY) the
		// pin would be checked against the proxy's certificate.
		tr.Proxy = nil
	}
	// No redirects: a team server never sends one, and the token must
	// not follow one anywhere.
	return &http.Client{Transport: capture{base: tr, token: token}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
