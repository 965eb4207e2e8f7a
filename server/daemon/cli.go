package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/server/daemon/wire"
)

// accept serves the socket's connections, one request each.
func (d *daemon) accept(ctx context.Context, ln net.Listener, wg *sync.WaitGroup) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Go(func() { d.serve(ctx, c) })
	}
}

func (d *daemon) serve(ctx context.Context, c net.Conn) {
	defer c.Close()
	if !peerOK(c) {
		d.log.Warn("refused a socket connection from another user")
		return
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	req, err := wire.ReadRequest(c)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	if strings.HasPrefix(req.Build, "proto:") {
		wire.WriteFrame(c, wire.FrameRefuse, []byte("another protocol ("+strings.TrimPrefix(req.Build, "proto:")+"; this daemon speaks "+wire.Version+")"))
		return
	}
	switch req.Kind {
	case wire.KindStatus:
		b, _ := json.Marshal(d.status(ctx))
		wire.WriteFrame(c, wire.FrameReply, b)
	case wire.KindStop:
		d.log.Info("stop requested over the socket")
		wire.WriteFrame(c, wire.FrameReply, []byte(`{"stopping":true}`))
		d.cancel()
	case wire.KindCLI:
		d.cli(ctx, c, req)
	}
}

// cli answers one command line, or refuses it so the client runs it.
func (d *daemon) cli(ctx context.Context, c net.Conn, req *wire.Request) {
	refuse := func(why string) {
		d.log.Debug("fast path refused", "why", why, "args", req.Args)
		wire.WriteFrame(c, wire.FrameRefuse, []byte(why))
	}
	if why := d.refusal(req); why != "" {
		refuse(why)
		return
	}
	if n := d.inflight.Add(1); n > maxInflight {
		d.inflight.Add(-1)
		refuse("busy: too many commands at once")
		return
	}
	defer d.inflight.Add(-1)
	if !d.configFresh() {
		// Another process changed the config: load it before answering,
		// as the client would, or let the client answer.
		if err := d.reloadConfig(ctx, 0); err != nil {
			refuse("busy: the config changed while a write holds the index")
			return
		}
		d.watcher.Rescan()
		d.work.rewarm()
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The client sends nothing more: a read returning means it went
	// (Ctrl-C, a closed pipe), and the command stops.
	go func() {
		var b [1]byte
		c.Read(b[:])
		cancel()
	}()
	start := time.Now()
	out := newOutput(c, req.StdoutTTY || req.StderrTTY)
	out.d = d
	code := d.opt.CLI(cctx, req, out)
	if out.state.Load() != refused {
		d.served.Add(1)
	}
	out.finish(code)
	d.log.Debug("cli", "args", req.Args, "exit", code, "took", time.Since(start))
}

// refusal says why the daemon must not answer req ("" if it may).
func (d *daemon) refusal(req *wire.Request) string {
	p := d.e.Paths
	switch {
	case d.stopping.Load():
		return "the daemon is stopping"
	case req.Build != d.build:
		return "another gno build (restart the daemon after installing gno: gno daemon stop; gno daemon --detach)"
	case req.IndexDir != p.IndexDir:
		return "another index"
	case req.ConfigFile != p.ConfigFile:
		return "another config file (the daemon reads " + p.ConfigFile + ")"
	case req.ModelsDir != p.ModelsDir:
		return "another model folder"
	case req.Env != d.envSig:
		return "the environment differs from the daemon's: " + strings.Join(envDiff(req.Env, d.envSig), ", ")
	}
	return ""
}

// envDiff names the variables two wire.EnvSig signatures disagree on.
func envDiff(a, b string) []string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		for _, kv := range strings.Split(s, ";") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	ma, mb := parse(a), parse(b)
	var out []string
	for k, v := range ma {
		if mb[k] != v {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Output is where a command run for a client writes: its stdout and
// stderr become frames in the order written.
type Output struct {
	d         *daemon
	mu        sync.Mutex
	c         net.Conn
	bw        *bufio.Writer
	flushEach bool
	state     atomic.Int32 // 0 undecided, 1 accepted, 2 refused
	refusal   string
	stdout    stream
	stderr    stream
}

const (
	undecided int32 = iota
	accepted
	refused
)

type stream struct {
	o   *Output
	typ byte
}

func (s stream) Write(p []byte) (int, error) { return s.o.write(s.typ, p) }

// errRefused is what a write after Refuse returns.
var errRefused = errors.New("the command was handed back to the client")

func newOutput(c net.Conn, flushEach bool) *Output {
	o := &Output{c: c, bw: bufio.NewWriterSize(c, 32<<10), flushEach: flushEach}
	o.stdout, o.stderr = stream{o, wire.FrameStdout}, stream{o, wire.FrameStderr}
	return o
}

// Stdout is the client's stdout.
func (o *Output) Stdout() io.Writer { return o.stdout }

// Stderr is the client's stderr.
func (o *Output) Stderr() io.Writer { return o.stderr }

// Accept commits the daemon to answering: from here the client waits for
// the command however long it runs. Writing accepts too.
func (o *Output) Accept() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.acceptLocked()
}

func (o *Output) acceptLocked() {
	if o.state.Load() != undecided {
		return
	}
	o.state.Store(accepted)
	wire.WriteFrame(o.bw, wire.FrameAccept, nil)
	o.bw.Flush()
}

// Refuse hands the command back to the client, which runs it itself;
// it fails once anything was written.
func (o *Output) Refuse(reason string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state.Load() == accepted {
		return false
	}
	o.state.Store(refused)
	o.refusal = reason
	return true
}

func (o *Output) write(typ byte, p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state.Load() == refused {
		return 0, errRefused
	}
	o.acceptLocked()
	n := len(p)
	for len(p) > 0 {
		chunk := p[:min(len(p), wire.MaxFrame)]
		if err := wire.WriteFrame(o.bw, typ, chunk); err != nil {
			return n - len(p), err
		}
		p = p[len(chunk):]
	}
	if o.flushEach {
		if err := o.bw.Flush(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// finish sends the exit code (or the refusal) and flushes.
func (o *Output) finish(code int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state.Load() == refused {
		wire.WriteFrame(o.bw, wire.FrameRefuse, []byte(o.refusal))
	} else {
		o.acceptLocked()
		wire.WriteFrame(o.bw, wire.FrameExit, wire.ExitPayload(code))
	}
	o.bw.Flush()
}
