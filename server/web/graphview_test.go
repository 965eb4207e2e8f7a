package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/graph/layout/layouttest"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

// fixedGraph is a GraphSource over a fixed input; bump changes its
// version, calls counts GraphInput calls, fail makes them fail.
type fixedGraph struct {
	in      *layout.Input
	version atomic.Int64
	calls   atomic.Int64
	fail    atomic.Bool
}

func (g *fixedGraph) GraphVersion(context.Context) (string, error) {
	return "v" + string(rune('0'+g.version.Load()%10)), nil
}

func (g *fixedGraph) GraphInput(context.Context) (*layout.Input, error) {
	g.calls.Add(1)
	if g.fail.Load() {
		return nil, errors.New("the graph is not readable")
	}
	return g.in, nil
}

// watchLog records what Watch did at each look (GraphHandler.watched).
type watchLog struct {
	mu   sync.Mutex
	seen []string // "state what"
}

func (l *watchLog) hook(state, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, state+" "+what)
}

// count is how many looks from the from'th on were e.
func (l *watchLog) count(from int, e string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.seen[min(from, len(l.seen)):] {
		if s == e {
			n++
		}
	}
	return n
}

// len is the number of looks so far.
func (l *watchLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// waitFor polls cond until it holds, failing after a minute (a bound
// against a hang, not a timing: a loaded machine only makes it slower).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
	}
}

// hostileGraph has titles, tags and a missing link that carry HTML.
func hostileGraph() *layout.Input {
	return &layout.Input{
		Docs: []layout.Doc{
			{ID: "#a1", Title: `<img src=x onerror="window.__pwned=1">Evil`, Collection: "notes", Path: "x/evil.md", Tags: []string{`<script>t</script>`}},
			{ID: "#b2", Title: "Foxes", Collection: "notes", Path: "animals/foxes.md"},
			{ID: "#c3", Title: "Tea\nwith a line break", Collection: "notes", Path: "tea.md"},
			{ID: "#d4", Title: "Lonely", Collection: "notes", Path: "lonely.md"},
		},
		Links:      []layout.Link{{Src: 0, Dst: 1}, {Src: 1, Dst: 2}, {Src: 2, Dst: 1}},
		Unresolved: []layout.Unresolved{{Src: 0, Target: `"><svg onload=alert(1)>`}},
	}
}

func TestGraphHandler(t *testing.T) {
	src := &fixedGraph{in: hostileGraph()}
	h := NewGraphHandler(src, layout.Options{}, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	get := func(hdr ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// Concurrent first requests share one layout.
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := get()
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}()
	}
	wg.Wait()
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d layouts for one version, want 1", n)
	}
	res := get()
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != layout.MediaType {
		t.Fatalf("status %d, type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var s layout.Scene
	if err := s.UnmarshalBinary(body); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if s.Len() != 5 || len(s.Edges) != 2*3 {
		t.Errorf("%d nodes, %d edges; want 4 documents and a ghost, 3 edges", s.Len(), len(s.Edges)/2)
	}
	if s.Flags[3] != layout.Orphan || s.Flags[4] != layout.Ghost || s.Title[2] != "Tea with a line break" {
		t.Errorf("flags %v, title %q", s.Flags, s.Title[2])
	}
	etag := res.Header.Get("ETag")
	if res := get("If-None-Match", etag); res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d", res.StatusCode)
	}
	res = get("Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("no gzip")
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	res.Body.Close()
	if !bytes.Equal(unz, body) {
		t.Error("gzipped scene differs")
	}
	// A new version is laid out again, with a new ETag.
	src.version.Add(1)
	res = get("If-None-Match", etag)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("ETag") == etag || src.calls.Load() != 2 {
		t.Errorf("after a new version: status %d, etag %q (was %q), %d layouts", res.StatusCode, res.Header.Get("ETag"), etag, src.calls.Load())
	}
}

// TestGraphPage checks the page with and without a source, and that the
// scene endpoint keeps the app's safety rules.
func TestGraphPage(t *testing.T) {
	v := newEnv(t, Options{Graph: &fixedGraph{in: hostileGraph()}}, nil)
	code, body := v.get(t, "/graph?focus=%23b2&depth=9")
	if code != 200 || !strings.Contains(body, `data-src="/api/graph/scene"`) || !strings.Contains(body, `data-depth="3"`) ||
		!strings.Contains(body, `<script type="module" src="/assets/graph/main.js">`) || !strings.Contains(body, `<link rel="modulepreload" href="/assets/graph/draw.js">`) {
		t.Fatalf("graph page: %d\n%s", code, body)
	}
	t.Logf("graph page: %d bytes of HTML", len(body))
	if code, _ := v.get(t, "/api/graph/scene", "Sec-Fetch-Site", "cross-site"); code != http.StatusForbidden {
		t.Errorf("cross-site scene request: %d", code)
	}
	if code, _ := v.get(t, "/api/graph/scene", "Host", "evil.example:80"); code != http.StatusForbidden {
		t.Errorf("foreign Host: %d", code)
	}
	// Without a source: the index's own graph.
	own := newEnv(t, Options{}, nil)
	code, body = own.get(t, "/api/graph/scene")
	var s layout.Scene
	if err := s.UnmarshalBinary([]byte(body)); code != 200 || err != nil {
		t.Fatalf("the index's scene: %d %v", code, err)
	}
	ids := map[string]bool{}
	for _, id := range s.ID {
		ids[id] = true
	}
	if s.Len() != len(notes) || !ids["notes/animals/foxes.md"] || len(s.Edges) != 2*2 {
		t.Errorf("the index's scene: %d nodes %v, %d edges", s.Len(), s.ID, len(s.Edges)/2)
	}
	// A local graph: the focus and its neighbours.
	code, body = own.get(t, "/api/graph/scene?focus=notes/tea.md&depth=1")
	if err := s.UnmarshalBinary([]byte(body)); code != 200 || err != nil || s.Len() != 2 || s.ID[0] != "notes/tea.md" {
		t.Errorf("local graph of tea.md: %d %v %v", code, err, s.ID)
	}
	if code, _ := own.get(t, "/api/graph/scene?focus=notes/nothing.md"); code != http.StatusNotFound {
		t.Errorf("local graph of a missing note: %d", code)
	}
}

// bigVault is the generated 20,000-note / 100,000-link vault's input.
func bigVault(t testing.TB) *layout.Input {
	v, err := vaultgen.Clustered("", vaultgen.Options{Notes: 20000, Links: 100000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return layouttest.FromVault(v, "gen")
}

// BenchmarkSearchDuringLayout measures /api/search while the scene of the
// 20,000-note vault is laid out (each round bumps the graph's version,
// so the layout runs again) and, for comparison, with nothing else
// running: p50, p95 and max in ms, and the layout's time. "foreground"
// is a layout a request waits for (the graph page's first visit);
// "background" is Warm (what Watch runs after a sync), which gives way
// to the searches.
func BenchmarkSearchDuringLayout(b *testing.B) {
	src := &fixedGraph{in: bigVault(b)}
	v := newEnv(b, Options{Graph: src}, nil)
	search := func() time.Duration {
		start := time.Now()
		res, err := http.Get(v.ts.URL + "/api/search?q=fox+dens")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("search: %d", res.StatusCode)
		}
		return time.Since(start)
	}
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	report := func(b *testing.B, prefix string, d []time.Duration) {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(ms(d[len(d)/2]), prefix+"-p50-ms")
		b.ReportMetric(ms(d[len(d)*95/100]), prefix+"-p95-ms")
		b.ReportMetric(ms(d[len(d)-1]), prefix+"-max-ms")
	}
	var idle []time.Duration
	for i := 0; i < 50; i++ {
		idle = append(idle, search())
	}
	for _, mode := range []string{"foreground", "background"} {
		b.Run(mode, func(b *testing.B) {
			var during, layouts []time.Duration
			for i := 0; i < b.N; i++ {
				src.version.Add(1)
				done := make(chan struct{})
				start := time.Now()
				go func() {
					defer close(done)
					if mode == "background" {
						if err := v.app.graph.Warm(context.Background()); err != nil {
							b.Error(err)
						}
						return
					}
					res, err := http.Get(v.ts.URL + "/api/graph/scene")
					if err == nil {
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
					}
				}()
			loop:
				for {
					select {
					case <-done:
						break loop
					default:
						during = append(during, search())
						time.Sleep(5 * time.Millisecond)
					}
				}
				layouts = append(layouts, time.Since(start))
			}
			b.StopTimer()
			report(b, "idle", idle)
			report(b, "during", during)
			sort.Slice(layouts, func(i, j int) bool { return layouts[i] < layouts[j] })
			b.ReportMetric(ms(layouts[len(layouts)/2]), "layout-p50-ms")
		})
	}
}

// TestAssets: every embedded asset is served gzipped when accepted, as
// is, byte for byte, when not; with an ETag that answers 304.
func TestAssets(t *testing.T) {
	v := newEnv(t, Options{}, nil)
	var names []string
	if err := fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "assets/"))
		}
		return err
	}); err != nil || len(names) < 10 {
		t.Fatalf("assets: %v %v", names, err)
	}
	for _, name := range names {
		req, _ := http.NewRequest("GET", v.ts.URL+"/assets/"+name, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(zr)
		res.Body.Close()
		want, _ := files.ReadFile("assets/" + name)
		if res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, want) || res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: encoding %q, %d bytes, want %d", name, res.Header.Get("Content-Encoding"), len(body), len(want))
		}
		if code, plain := v.get(t, "/assets/"+name); code != 200 || plain != string(want) {
			t.Errorf("%s without gzip: %d", name, code)
		}
		if res.Header.Get("Vary") != "Accept-Encoding" || res.Header.Get("Cache-Control") != "public, max-age=3600" {
			t.Errorf("%s: Vary %q, Cache-Control %q", name, res.Header.Get("Vary"), res.Header.Get("Cache-Control"))
		}
		if code, _ := v.get(t, "/assets/"+name, "If-None-Match", res.Header.Get("ETag")); code != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d", name, code)
		}
	}
}

// TestGraphWatchFailed: a layout that failed is not tried again at
// every look (each try reads the whole graph and logs a warning), only
// once the state changes.
func TestGraphWatchFailed(t *testing.T) {
	src := &fixedGraph{in: hostileGraph()}
	src.fail.Store(true)
	h := NewGraphHandler(src, layout.Options{}, nil)
	var looks watchLog
	h.watched = looks.hook
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Watch(ctx, 5*time.Millisecond)
	waitFor(t, "Watch to pass over the failed state", func() bool {
		if n := looks.count(0, "v0 warming"); n > 1 {
			t.Fatalf("the layout of v0 tried %d times", n)
		}
		return looks.count(0, "v0 failed") >= 3
	})
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d reads of a graph whose layout failed", n)
	}
	// A change is tried again, and laid out.
	src.fail.Store(false)
	src.version.Add(1)
	waitFor(t, "the layout of the change", func() bool { return looks.count(0, "v1 warmed") >= 1 })
	if n := src.calls.Load(); n != 2 {
		t.Errorf("%d reads of the graph after a change", n)
	}
}

// TestGraphWatch: Watch lays out the graph once it has settled, not
// again without a change, nor after one until a request has asked for
// the scene, then again after each change; a background layout waits
// while requests are in flight, unless a request waits for it.
func TestGraphWatch(t *testing.T) {
	v, err := vaultgen.Clustered("", vaultgen.Options{Notes: 300, Links: 900, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	src := &fixedGraph{in: layouttest.FromVault(v, "gen")}
	h := NewGraphHandler(src, layout.Options{}, nil)
	var busy atomic.Bool
	h.SetBusy(busy.Load)
	var looks watchLog
	h.watched = looks.hook
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Watch(ctx, 20*time.Millisecond)
	done := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.done != nil && h.done.version == "v"+string(rune('0'+src.version.Load()%10))
	}
	waitFor(t, "the first layout", done)
	// Two more looks at the state laid out: Watch leaves it.
	from := looks.len()
	waitFor(t, "Watch to look at the laid out graph", func() bool { return looks.count(from, "v0 warmed") >= 2 })
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d layouts of an unchanged graph", n)
	}
	// Nobody asked for the scene: a change is not laid out. Watch has
	// decided once it looked at the settled change.
	from = looks.len()
	src.version.Add(1)
	waitFor(t, "Watch to look at the change", func() bool {
		if looks.count(from, "v1 warming") != 0 {
			t.Fatal("a change no request asked for was laid out")
		}
		return looks.count(from, "v1 unasked") >= 1
	})
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d layouts after a change no request asked for", n)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	res, err := http.Get(ts.URL)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a request for the scene: %v %v", err, res)
	}
	res.Body.Close()
	if n := src.calls.Load(); n != 2 {
		t.Errorf("%d layouts after the first request", n)
	}
	// Once asked, each change is laid out in the background.
	src.version.Add(1)
	waitFor(t, "the layout of a change", done)
	if n := src.calls.Load(); n != 3 {
		t.Errorf("%d layouts after one more change", n)
	}

	// Busy: a background layout waits; a request makes it go on.
	busy.Store(true)
	src.version.Add(1)
	warmed := make(chan error, 1)
	go func() { warmed <- h.Warm(ctx) }()
	select {
	case err := <-warmed:
		t.Fatalf("a background layout ran while requests were in flight (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	res, err = http.Get(ts.URL)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a request for the scene while busy: %v %v", err, res)
	}
	res.Body.Close()
	if err := <-warmed; err != nil {
		t.Fatal(err)
	}
	busy.Store(false)
}
