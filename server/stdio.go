package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/server/jsonl"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// gno serves stdio with its own small transport around mcp-go's message
// handler rather than mcp-go's StdioServer, to guarantee what a client
// relies on:
//   - stdout carries whole JSON-RPC lines and nothing else;
//   - progress notifications are written before the result they belong
//     to (mcp-go queues them, so the last one could trail the result);
//   - a request the client cancelled gets no response at all, as the MCP
//     spec asks (mcp-go still sends one);
//   - when stdin closes, requests already read are answered before the
//     server returns (mcp-go may drop queued tool calls);
//   - an oversized line is refused with a parse error, not buffered.

const (
	// maxMessageBytes bounds one JSON-RPC message read from stdin.
	maxMessageBytes = 64 << 20
	// toolWorkers is how many tools/call and resources/read requests run
	// at once; other requests (ping, lists) never wait behind them.
	toolWorkers = 4
	// drainGrace is how long in-flight requests may run after stdin
	// closes before they are cancelled.
	drainGrace = 30 * time.Second
	// defaultLogLevel is the level of log notifications sent before the
	// client sets one with logging/setLevel (mcp-go's own default, error,
	// hides the job and degradation messages agents want).
	defaultLogLevel = mcp.LoggingLevelInfo
)

// lineWriter writes one JSON message per line, atomically, to stdout.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// marshal encodes msg as one line; HTML characters stay readable.
func marshal(msg any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (l *lineWriter) write(msg any) {
	data, err := marshal(msg)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeLocked(data)
}

func (l *lineWriter) writeLocked(data []byte) {
	if l.err != nil {
		return // the client is gone; keep serving until stdin closes
	}
	_, l.err = l.w.Write(append(data, '\n'))
}

// writeResponse writes queued notifications, then resp, so a result never
// overtakes a notification queued before it.
func (l *lineWriter) writeResponse(resp any, queued chan mcp.JSONRPCNotification) {
	data, err := marshal(resp)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		select {
		case n := <-queued:
			if nd, err := marshal(n); err == nil {
				l.writeLocked(nd)
			}
			continue
		default:
		}
		break
	}
	l.writeLocked(data)
}

// stdioSession is the single client of a stdio server.
type stdioSession struct {
	out           *lineWriter
	t             *stdioTransport
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	level         atomic.Value
	client        clientInfo // roots.go
}

var (
	_ mcpsrv.ClientSession      = (*stdioSession)(nil)
	_ mcpsrv.SessionWithLogging = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}
func (s *stdioSession) Initialize() {
	if s.level.Load() == nil {
		s.level.Store(defaultLogLevel)
	}
	s.initialized.Store(true)
}
func (s *stdioSession) Initialized() bool                  { return s.initialized.Load() }
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }
func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return defaultLogLevel
}

// stdioTransport serves one stdin/stdout pair.
type stdioTransport struct {
	s    *Server
	out  *lineWriter
	sess *stdioSession
	ctx  context.Context // requests' context: the session, cancellable
	work chan func()
	wg   sync.WaitGroup

	mu        sync.Mutex
	inflight  map[string]bool
	cancelled map[string]bool
	pings     map[string]chan struct{}
	nextPing  int

	// replies wait for answers to the server's own requests (roots.go).
	replies   sync.Map
	nextReply atomic.Int64
}

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out until
// in reaches EOF (after answering what was read) or ctx ends. Only
// protocol messages are written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	lw := &lineWriter{w: out}
	sess := &stdioSession{out: lw, notifications: make(chan mcp.JSONRPCNotification, 256)}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer s.mcp.UnregisterSession(context.WithoutCancel(ctx), sess.SessionID())
	reqCtx, cancelReqs := context.WithCancel(s.mcp.WithContext(ctx, sess))
	defer cancelReqs()
	t := &stdioTransport{s: s, out: lw, sess: sess, ctx: reqCtx, work: make(chan func(), 1024),
		inflight: map[string]bool{}, cancelled: map[string]bool{}, pings: map[string]chan struct{}{}}
	sess.t = t

	stopPump := make(chan struct{})
	pumpDone := make(chan struct{})
	go func() {
		defer close(pumpDone)
		for {
			select {
			case n := <-sess.notifications:
				lw.write(n)
			case <-stopPump:
				return
			}
		}
	}()
	var workers sync.WaitGroup
	for range toolWorkers {
		workers.Go(func() {
			for f := range t.work {
				f()
			}
		})
	}

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(bufio.NewReaderSize(in, 64<<10), lines, func() {
			lw.write(errorResponse(nil, mcp.PARSE_ERROR, fmt.Sprintf("message larger than %d bytes", maxMessageBytes)))
		})
	}()
	var err error
loop:
	for {
		select {
		case line := <-lines:
			t.handleLine(line)
		case err = <-readErr:
			break loop
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		err = nil
	}
	// Answer what was read; give up on requests that run too long.
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainGrace):
		cancelReqs()
		<-done
	}
	close(t.work)
	workers.Wait()
	cancelReqs()
	close(stopPump)
	<-pumpDone
	for {
		select {
		case n := <-sess.notifications:
			lw.write(n)
			continue
		default:
		}
		break
	}
	return err
}

// readLines sends each line of r to out until EOF or a read error. A line
// over maxMessageBytes is skipped and reported with tooBig.
func readLines(r *bufio.Reader, out chan<- []byte, tooBig func()) error {
	return jsonl.ReadLines(r, maxMessageBytes, func(line []byte) { out <- line }, tooBig)
}

// envelope is what the transport reads of a message to route it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (t *stdioTransport) handleLine(line []byte) {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		t.out.write(errorResponse(nil, mcp.INVALID_REQUEST, "batch requests are not supported"))
		return
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		t.out.write(errorResponse(nil, mcp.PARSE_ERROR, "parse error: "+err.Error()))
		return
	}
	isNull := len(env.ID) == 0 || string(env.ID) == "null"
	if env.Method == "" {
		if isNull {
			t.out.write(errorResponse(nil, mcp.INVALID_REQUEST, "invalid request: no method"))
			return
		}
		if t.reply(env.ID, line) {
			return
		}
		t.mu.Lock()
		if ch := t.pings[idKey(env.ID)]; ch != nil {
			close(ch)
			delete(t.pings, idKey(env.ID))
		}
		t.mu.Unlock()
		return // a response to a server request: a ping's
	}
	if isNull {
		if env.Method == string(mcp.MethodNotificationCancelled) {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(env.Params, &p) == nil && len(p.RequestID) > 0 {
				t.markCancelled(idKey(p.RequestID))
			}
		}
		t.dispatch(line, nil) // notifications get no response
		return
	}
	key := idKey(env.ID)
	var id any
	_ = json.Unmarshal(env.ID, &id)
	t.mu.Lock()
	t.inflight[key] = true
	t.mu.Unlock()
	t.wg.Add(1)
	run := func() {
		defer t.wg.Done()
		resp := t.dispatch(line, id)
		t.mu.Lock()
		dropped := t.cancelled[key]
		delete(t.cancelled, key)
		delete(t.inflight, key)
		t.mu.Unlock()
		if resp != nil && !dropped {
			t.out.writeResponse(resp, t.sess.notifications)
		}
	}
	switch mcp.MCPMethod(env.Method) {
	case mcp.MethodToolsCall, mcp.MethodResourcesRead:
		t.work <- run
	default:
		go run()
	}
}

// pingTimeout bounds how long a ping to the client is awaited.
const pingTimeout = 2 * time.Second

// roundTrip pings the client and waits for its answer. A client handles
// messages in order, so once it answers, it has seen every notification
// written before the ping. The TypeScript SDK, for one, handles a
// notification a tick after reading it: a progress notification read in
// the same chunk as the result would reach a request already finished.
func (t *stdioTransport) roundTrip(ctx context.Context) {
	t.mu.Lock()
	t.nextPing++
	id := fmt.Sprintf("gno-ping-%d", t.nextPing)
	ch := make(chan struct{})
	t.pings[idKey(json.RawMessage(strconv.Quote(id)))] = ch
	t.mu.Unlock()
	t.out.write(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Request: mcp.Request{Method: string(mcp.MethodPing)}})
	select {
	case <-ch:
	case <-ctx.Done():
	case <-time.After(pingTimeout):
	}
	t.mu.Lock()
	delete(t.pings, idKey(json.RawMessage(strconv.Quote(id))))
	t.mu.Unlock()
}

func (t *stdioTransport) markCancelled(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inflight[key] {
		t.cancelled[key] = true
	}
}

// dispatch runs one message through mcp-go; a panic becomes an internal
// error response rather than a dead server.
func (t *stdioTransport) dispatch(line []byte, id any) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			t.s.log.Error("panic handling message", "panic", r, "stack", string(debug.Stack()))
			resp = nil
			if id != nil {
				resp = errorResponse(id, mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", r))
			}
		}
	}()
	ctx, slot := withRPCSlot(t.ctx)
	return slot.fix(t.s.mcp.HandleMessage(ctx, json.RawMessage(line)))
}

// idKey normalises a JSON-RPC id so 7, 7.0 and "7" compare as the spec
// means (numbers equal numbers, strings equal strings).
func idKey(raw json.RawMessage) string { return jsonl.IDKey(raw) }

func errorResponse(id any, code int, msg string) mcp.JSONRPCMessage {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, msg, nil)}
}
