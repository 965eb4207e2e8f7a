package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/server"
)

// soakStats collects latencies, errors and RSS samples.
type soakStats struct {
	mu      sync.Mutex
	lat     map[string][]time.Duration // by transport
	errs    atomic.Int64
	first   atomic.Value
	rss     map[string][]int64 // KB samples by server
	byTool  map[string]int
	syncs   atomic.Int64
	started time.Time
}

func (s *soakStats) record(transport, toolName string, d time.Duration, err error) {
	s.mu.Lock()
	s.lat[transport] = append(s.lat[transport], d)
	s.byTool[toolName]++
	s.mu.Unlock()
	if err != nil {
		s.errs.Add(1)
		s.first.CompareAndSwap(nil, fmt.Sprintf("%s %s: %v", transport, toolName, err))
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// soakRequest is one mixed MCP request.
type soakRequest struct {
	name string
	run  func(ctx context.Context, c mcpConn) error
}

func toolReq(name string, args func(rng *rand.Rand) map[string]any) func(*rand.Rand) soakRequest {
	return func(rng *rand.Rand) soakRequest {
		a := args(rng)
		return soakRequest{name: name, run: func(ctx context.Context, c mcpConn) error {
			res, err := tool(ctx, c, name, a)
			if err != nil {
				return err
			}
			if res.IsError && !strings.Contains(res.text(), "NOT_FOUND") && !strings.Contains(res.text(), "not found") {
				return fmt.Errorf("%s", res.text())
			}
			return nil
		}}
	}
}

// soakMix is the request mix: mostly searches, then reads and metadata.
func soakMix(embed bool) []func(*rand.Rand) soakRequest {
	q := func(rng *rand.Rand) map[string]any {
		return map[string]any{"query": readerQueries[rng.IntN(len(readerQueries))], "limit": 1 + rng.IntN(10)}
	}
	mix := []func(*rand.Rand) soakRequest{
		toolReq("gno_search", q), toolReq("gno_search", q), toolReq("gno_search", q),
		toolReq("gno_get", func(rng *rand.Rand) map[string]any {
			return map[string]any{"ref": fmt.Sprintf("notes/d%02d/note-%03d.md", rng.IntN(20)%7, rng.IntN(20))}
		}),
		toolReq("gno_multi_get", func(rng *rand.Rand) map[string]any {
			return map[string]any{"pattern": fmt.Sprintf("notes/d%02d/*.md", rng.IntN(7)), "maxBytes": 2048}
		}),
		toolReq("gno_status", func(*rand.Rand) map[string]any { return map[string]any{} }),
		toolReq("gno_list_tags", func(*rand.Rand) map[string]any { return map[string]any{} }),
		toolReq("gno_changes", func(rng *rand.Rand) map[string]any { return map[string]any{"since": rng.IntN(3)} }),
		func(*rand.Rand) soakRequest {
			return soakRequest{name: "tools/list", run: func(ctx context.Context, c mcpConn) error {
				_, err := c.call(ctx, "tools/list", map[string]any{})
				return err
			}}
		},
		func(rng *rand.Rand) soakRequest {
			uri := fmt.Sprintf("gno://notes/d%02d/note-%03d.md", 0, 7*rng.IntN(3))
			return soakRequest{name: "resources/read", run: func(ctx context.Context, c mcpConn) error {
				_, err := c.call(ctx, "resources/read", map[string]any{"uri": uri})
				if e, ok := err.(*rpcError); ok && e.Code == -32002 {
					return nil // removed by a sync
				}
				return err
			}}
		},
	}
	if embed {
		mix = append(mix, toolReq("gno_vsearch", q), toolReq("gno_query", func(rng *rand.Rand) map[string]any {
			a := q(rng)
			a["fast"] = true
			return a
		}))
	}
	return mix
}

// TestSoak sends thousands of mixed MCP requests over stdio and loopback
// HTTP while syncs run, and reports throughput, p50/p99, errors (must be
// 0) and the servers' RSS over time (must not grow).
func TestSoak(t *testing.T) {
	total := pick(400, 20000)
	limit := time.Duration(pick(20, 600)) * time.Second
	embed := haveEmbedder() && full()
	e := newEnv(t, corpus(14, 20))
	e.mustGno("update")
	if embed {
		e.mustGno("embed")
	}
	st := &soakStats{lat: map[string][]time.Duration{}, rss: map[string][]int64{}, byTool: map[string]int{}, started: time.Now()}
	stdio := startStdio(t, e)
	defer stdio.close()
	var proc *exec.Cmd
	var hc *httpConn
	httpName := "http"
	if *tlsFlag {
		proc, hc = startShared(t, e)
		httpName = "https+bearer"
	} else {
		var url string
		proc, url = startHTTP(t, e)
		var err error
		if hc, err = dialHTTP(context.Background(), url, proc); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var sent atomic.Int64
	var wg sync.WaitGroup
	// Syncs of a changing folder, all along.
	wg.Go(func() {
		rng := newRand(77)
		for r := 1; ctx.Err() == nil && sent.Load() < int64(total); r++ {
			mutate(t, rng, e.notes, r)
			if res := e.gno("update", "--no-update-cmd"); res.err != nil {
				st.errs.Add(1)
				st.first.CompareAndSwap(nil, "sync: "+res.String())
			}
			st.syncs.Add(1)
			time.Sleep(200 * time.Millisecond)
		}
	})
	// RSS of both servers, twice a second.
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				st.mu.Lock()
				st.rss["stdio"] = append(st.rss["stdio"], rssKB(stdio.pid()))
				st.rss[httpName] = append(st.rss[httpName], rssKB(proc.Process.Pid))
				st.mu.Unlock()
			}
		}
	})
	mix := soakMix(embed)
	var clients sync.WaitGroup
	for i, c := range []mcpConn{stdio, stdio, stdio, hc, hc, hc} {
		transport := "stdio"
		if c == mcpConn(hc) {
			transport = httpName
		}
		clients.Go(func() {
			rng := newRand(uint64(500 + i))
			for ctx.Err() == nil && sent.Add(1) <= int64(total) {
				r := mix[rng.IntN(len(mix))](rng)
				start := time.Now()
				rctx, rcancel := context.WithTimeout(ctx, time.Minute)
				err := r.run(rctx, c)
				rcancel()
				st.record(transport, r.name, time.Since(start), err)
			}
		})
	}
	clients.Wait()
	close(done)
	cancel()
	wg.Wait()
	elapsed := time.Since(st.started)
	served := 0
	for tr, l := range st.lat {
		served += len(l)
		t.Logf("soak %s: %d requests, p50 %s, p95 %s, p99 %s", tr, len(l), percentile(l, 0.5).Round(time.Microsecond),
			percentile(l, 0.95).Round(time.Microsecond), percentile(l, 0.99).Round(time.Microsecond))
	}
	for srv, s := range st.rss {
		t.Logf("soak %s RSS (MB, every 0.5 s, sampled): %s", srv, rssSeries(s))
		if full() && len(s) >= 20 && grew(s) {
			t.Errorf("%s server RSS grew: %s", srv, rssSeries(s))
		}
	}
	t.Logf("soak: %d requests in %s (%.0f req/s) during %d syncs, %d errors, mix %v", served, elapsed.Round(time.Millisecond),
		float64(served)/elapsed.Seconds(), st.syncs.Load(), st.errs.Load(), st.byTool)
	if v := st.first.Load(); v != nil {
		t.Fatalf("%d errors; first: %s", st.errs.Load(), v)
	}
}

// grew reports whether the mean RSS of the last quarter of the run is more
// than 25% above that of the second quarter (after warm-up).
func grew(s []int64) bool {
	q := len(s) / 4
	mean := func(x []int64) float64 {
		var t int64
		for _, v := range x {
			t += v
		}
		return float64(t) / float64(len(x))
	}
	return mean(s[3*q:]) > 1.25*mean(s[q:2*q])
}

func rssSeries(s []int64) string {
	step := max(1, len(s)/12)
	var parts []string
	for i := 0; i < len(s); i += step {
		parts = append(parts, fmt.Sprintf("%.0f", float64(s[i])/1024))
	}
	return strings.Join(parts, " ")
}

// TestNoGoroutineLeak runs the MCP server in process: requests cancelled
// with notifications/cancelled over stdio, and HTTP clients that hang up
// in the middle of a response, must leave no goroutine behind.
func TestNoGoroutineLeak(t *testing.T) {
	e := newEnv(t, corpus(15, 20))
	e.mustGno("update")
	pgtest.Use(t, e.home, e.store)
	t.Setenv("GNO_MODELS_DIR", modelsDir())
	eng, err := retrieval.Open(context.Background(), retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	srv := server.New(server.Options{Open: func(context.Context) (*retrieval.Engine, error) { return eng, nil }, Version: "test"})
	defer srv.Close()
	// Warm the engine so its lazily started parts are not counted.
	if _, err := eng.Search(context.Background(), retrieval.SearchRequest{Query: "sqlite", Limit: 3}); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan string, 1)
	go srv.ServeHTTP(ctx, "127.0.0.1:0", server.HTTPOptions{Ready: func(a string) { addrc <- a }})
	addr := <-addrc
	url := "http://" + addr + server.EndpointPath
	hc, err := dialHTTP(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool(context.Background(), hc, "gno_search", map[string]any{"query": "warm"}); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	hc.client.CloseIdleConnections()
	settle()
	base := runtime.NumGoroutine()

	// HTTP clients that send a request and hang up before (or while)
	// reading the answer.
	n := pick(50, 1000)
	for i := range n {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
			"params": map[string]any{"name": "gno_multi_get", "arguments": map[string]any{"pattern": "notes/**", "maxBytes": 100000}}})
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
			server.EndpointPath, addr, hc.session, len(body), body)
		if i%2 == 1 {
			br := bufio.NewReader(conn)
			io.ReadFull(br, make([]byte, 64)) // part of the response, then hang up
		}
		conn.Close()
	}

	// Stdio requests cancelled at once, then the session closed.
	for range pick(3, 20) {
		in, inW := io.Pipe()
		outR, out := io.Pipe()
		sctx, scancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.ServeStdio(sctx, in, out) }()
		go io.Copy(io.Discard, outR)
		w := func(v any) {
			b, _ := json.Marshal(v)
			inW.Write(append(b, '\n'))
		}
		w(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
		w(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		for id := 2; id < 40; id++ {
			w(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": "gno_multi_get", "arguments": map[string]any{"pattern": "notes/**"}}})
			w(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "test"}})
		}
		inW.Close()
		<-served
		scancel()
		out.Close()
	}

	var now int
	deadline := time.Now().Add(time.Minute)
	for {
		settle()
		now = runtime.NumGoroutine()
		if now <= base+2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if now > base+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after %d abandoned HTTP requests and cancelled stdio requests\n%s", base, now, n, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("goroutines: %d before, %d after %d abandoned HTTP requests and cancelled stdio requests", base, now, n)
}

func settle() {
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
}
