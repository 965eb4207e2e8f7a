package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/graph/layout/layouttest"
)

// TestGraphBrowser drives the graph view in headless Chromium on the real
// vault (when the evaluation data is there) and on the generated
// 20,000-note / 100,000-link vault: time to the first interactive frame
// (cold: the server lays the graph out; warm: cached), frame rate while
// dragging and wheel-zooming, find, filter, local graph, a click that
// opens a note, screenshots at 1280×800 and 375 px wide in light and dark,
// and no console error. GNO_WEB_SHOTS=dir keeps the screenshots.
func TestGraphBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set GNO_CHROMIUM)")
	}
	type vault struct {
		name string
		in   func() *layout.Input
		// dir, when set, is indexed as collection "docs" too, so a click
		// opens a real note.
		dir string
	}
	var vaults []vault
	if p := layouttest.RealVault(); p != "" {
		vaults = append(vaults, vault{"real", func() *layout.Input {
			in, err := layouttest.ScanVault(p, "docs")
			if err != nil {
				t.Fatal(err)
			}
			return in
		}, p})
	}
	vaults = append(vaults, vault{"gen20k", func() *layout.Input { return bigVault(t) }, ""})
	if only := os.Getenv("GNO_GRAPH_VAULT"); only != "" {
		var keep []vault
		for _, v := range vaults {
			if v.name == only {
				keep = append(keep, v)
			}
		}
		vaults = keep
	}
	shots := os.Getenv("GNO_WEB_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("hostile", func(t *testing.T) {
		// Titles, tags and a missing link's name carrying HTML: drawn
		// and listed as text, never run.
		env := newEnv(t, Options{Graph: &fixedGraph{in: hostileGraph()}}, nil)
		b := newBrowser(t, bin)
		b.do(t, "load", chromedp.Navigate(env.ts.URL+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)),
			chromedp.Evaluate[chromedp.Void](inst+`.ready`, chromedp.EvalAwaitPromise),
			chromedp.SendKeys(chromedp.CSS(`.gg-find input`), "evil"),
			chromedp.WaitVisible(chromedp.CSS(`.gg-list li`)),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`.gg-card h2`)))
		b.do(t, "ghost", chromedp.Evaluate[chromedp.Void](inst+`.select(4)`))
		b.shot(t, shots, "hostile")
		if got := eval[string](t, b, `typeof window.__pwned`); got != "undefined" {
			t.Errorf("a title's script ran: __pwned is %s", got)
		}
		if got := eval[string](t, b, `document.querySelector('.gg-card h2').textContent`); got != hostileGraph().Unresolved[0].Target {
			t.Errorf("ghost card shows %q", got)
		}
		if n := eval[int](t, b, `document.querySelectorAll('.gg img, .gg svg, .gg script').length`); n != 0 {
			t.Errorf("%d elements made from titles", n)
		}
		b.check(t)
	})
	for _, vl := range vaults {
		t.Run(vl.name, func(t *testing.T) {
			in := vl.in()
			var cfg func(*config.Config)
			if vl.dir != "" {
				cfg = func(c *config.Config) {
					if _, err := c.AddCollection(config.Collection{Name: "docs", Path: vl.dir}); err != nil {
						t.Fatal(err)
					}
				}
			}
			start := time.Now()
			env := newEnv(t, Options{Graph: &fixedGraph{in: in}}, cfg)
			t.Logf("index: %v", time.Since(start).Round(time.Millisecond))
			b := newBrowser(t, bin)
			graphScenario(t, b, env.ts.URL, vl.name, in, shots, vl.dir != "")
			b.check(t)
		})
	}
}

// browser is one headless Chromium tab and the problems it reported.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T, bin string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 300*time.Second)
	t.Cleanup(cancel)
	b := &browser{ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.problems = append(b.problems, fmt.Sprintf("exception: %s at %s:%d", msg, d.URL, d.LineNumber))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				b.problems = append(b.problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) check(t *testing.T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

func (b *browser) do(t *testing.T, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// eval runs js (awaiting a promise) and returns its value.
func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (b *browser) shot(t *testing.T, dir, name string) {
	t.Helper()
	buf, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}

func colorScheme(dark bool) chromedp.Action[chromedp.Void] {
	v := "light"
	if dark {
		v = "dark"
	}
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	})
}

// frameStats is what GnoGraph's record() returns.
type frameStats struct {
	Frames      int     `json:"frames"`
	Ms          float64 `json:"ms"`
	FPS         float64 `json:"fps"`
	P95Interval float64 `json:"p95Interval"`
	MaxInterval float64 `json:"maxInterval"`
	Drawn       int     `json:"drawn"`
	P95Work     float64 `json:"p95Work"`
	P95Job      float64 `json:"p95Job"`
	P95Blit     float64 `json:"p95Blit"`
	P95Overlay  float64 `json:"p95Overlay"`
}

const inst = `GnoGraph.instances[0]`

func graphScenario(t *testing.T, b *browser, base, name string, in *layout.Input, shots string, indexed bool) {
	ready := func(step string) float64 {
		t.Helper()
		b.do(t, step, chromedp.Navigate(base+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)))
		ms := eval[float64](t, b, inst+`.ready.then(g => g.stats.firstFrameMs)`)
		b.do(t, "complete", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
		st := eval[map[string]any](t, b, `(() => { const s = `+inst+`.stats; const r = performance.getEntriesByType('resource').find(e => e.name.includes('/api/graph/scene'));
			return {fetch: s.fetchMs, decode: s.decodeMs, layer: s.layerMs, bytes: s.bytes, transfer: r ? r.transferSize : 0, complete: s.completeMs,
			  server: r && r.serverTiming && r.serverTiming.length ? r.serverTiming[0].duration : -1}; })()`)
		t.Logf("%s %s: first interactive frame at %.0f ms after navigation (%v)", name, step, ms, st)
		return ms
	}
	ready("cold load")
	ready("warm load")
	n := eval[int](t, b, inst+`.scene.n`)
	if want := len(in.Docs); n < want {
		t.Fatalf("scene has %d nodes, want at least %d", n, want)
	}
	b.shot(t, shots, name+"-desktop-light")

	// Frame rate: drag across the canvas, then wheel in and out.
	b.do(t, "idle", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	eval[bool](t, b, `window.__stop = `+inst+`.record(), true`)
	x, y := 640.0, 420.0
	pressed := func(p *input.DispatchMouseEventParams) { p.Button = input.MouseButtonLeft; p.Buttons = 1 }
	b.do(t, "press", chromedp.MouseEvent(chromedp.MousePressed, x, y, pressed))
	for i := 0; i < 90; i++ {
		dx := 4.0
		if i >= 45 {
			dx = -4
		}
		x += dx
		y += dx / 2
		b.do(t, "drag", chromedp.MouseEvent(chromedp.MouseMoved, x, y, pressed))
	}
	b.do(t, "release", chromedp.MouseEvent(chromedp.MouseReleased, x, y, pressed))
	pan := eval[frameStats](t, b, `window.__stop()`)
	eval[bool](t, b, `window.__stop = `+inst+`.record(), true`)
	for i := 0; i < 60; i++ {
		d := -60.0
		if i >= 30 {
			d = 60
		}
		b.do(t, "wheel", chromedp.MouseEvent(chromedp.MouseWheel, 500, 380, func(p *input.DispatchMouseEventParams) { p.DeltaY = d; p.DeltaX = 0.001 }))
	}
	zoom := eval[frameStats](t, b, `window.__stop()`)
	for _, f := range []struct {
		what string
		s    frameStats
	}{{"pan", pan}, {"zoom", zoom}} {
		t.Logf("%s %s: %.1f fps over %.0f ms (p95 interval %.1f ms, max %.1f; frame work p95 %.1f ms: job %.1f, bitmap %.1f, overlay %.1f; %d frames drawn)",
			name, f.what, f.s.FPS, f.s.Ms, f.s.P95Interval, f.s.MaxInterval, f.s.P95Work, f.s.P95Job, f.s.P95Blit, f.s.P95Overlay, f.s.Drawn)
	}
	if pan.Drawn < 10 || zoom.Drawn < 10 {
		t.Errorf("the view hardly moved: %d and %d frames drawn", pan.Drawn, zoom.Drawn)
	}

	// Find: the most linked note, by typing part of its title.
	top := eval[int](t, b, inst+`.scene.byRank[0]`)
	title := eval[string](t, b, inst+`.scene.title[`+fmt.Sprint(top)+`]`)
	b.do(t, "find",
		chromedp.SendKeys(chromedp.CSS(`.gg-find input`), title),
		chromedp.WaitVisible(chromedp.CSS(`.gg-list li`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`.gg-card .gg-acts`)))
	b.do(t, "settle", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	if sel := eval[int](t, b, inst+`.selected`); sel < 0 || eval[string](t, b, inst+`.scene.title[`+inst+`.selected]`) != title {
		t.Errorf("find %q selected node %d", title, sel)
	}
	b.shot(t, shots, name+"-find")

	// Local graph of the found note, depth 2.
	b.do(t, "local", chromedp.Click(chromedp.CSS(`.gg-card .gg-acts button`)),
		chromedp.SetValue(chromedp.CSS(`.gg-bar select`), "2"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.gg-bar select').dispatchEvent(new Event('change'))`),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	local := eval[map[string]any](t, b, `({n: `+inst+`.layer.n, local: !!`+inst+`.local, depth: `+inst+`.local && `+inst+`.local.depth})`)
	if local["local"] != true || local["depth"] != float64(2) {
		t.Errorf("local graph: %v", local)
	}
	t.Logf("%s local graph depth 2 of %q: %v nodes", name, title, local["n"])
	b.shot(t, shots, name+"-local")
	b.do(t, "global", chromedp.Click(chromedp.CSS(`.gg-local input`)), chromedp.Evaluate[chromedp.Void](inst+`.select(-1)`))

	// Filter by text: dims the rest.
	b.do(t, "filter",
		chromedp.Click(chromedp.CSS(`.gg-more summary`)),
		chromedp.SendKeys(chromedp.CSS(`.gg-opts input[type=search]`), strings.Fields(title)[0]),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	m := eval[int](t, b, inst+`.matches`)
	if m <= 0 || m >= n {
		t.Errorf("filter %q matched %d of %d", strings.Fields(title)[0], m, n)
	}
	b.shot(t, shots, name+"-filter")
	b.do(t, "clear filter", chromedp.Evaluate[chromedp.Void](inst+`.setFilter({text: ''})`))
	// Filter by tag, the first the menu offers, hiding the rest.
	if eval[int](t, b, `document.querySelectorAll('.gg-opts select')[1].options.length`) > 1 {
		b.do(t, "tag filter", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelectorAll('.gg-opts select');
			s[1].selectedIndex = 1; s[1].dispatchEvent(new Event('change')); s[2].value = 'hide'; s[2].dispatchEvent(new Event('change')); })()`),
			chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
		m := eval[int](t, b, inst+`.matches`)
		hidden := eval[int](t, b, inst+`.vis.filter(v => v === 0).length`)
		if m <= 0 || m >= n || hidden != n-m {
			t.Errorf("tag filter: %d match, %d hidden of %d", m, hidden, n)
		}
		b.shot(t, shots, name+"-tag")
		b.do(t, "clear tag", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelectorAll('.gg-opts select');
			s[1].selectedIndex = 0; s[1].dispatchEvent(new Event('change')); s[2].value = 'dim'; s[2].dispatchEvent(new Event('change')); })()`))
	}
	b.do(t, "close filters", chromedp.Evaluate[chromedp.Void](`document.querySelector('.gg-more').open = false`))

	// Keyboard: focus the graph, zoom in with +, pan with an arrow.
	before := eval[map[string]float64](t, b, inst+`.view`)
	b.do(t, "keys", chromedp.Focus(chromedp.CSS(`.gg-stage canvas`)), chromedp.KeyEvent("+"), chromedp.KeyEvent(kb.ArrowLeft))
	after := eval[map[string]float64](t, b, inst+`.view`)
	if !(after["k"] > before["k"]) || after["x"] >= before["x"] {
		t.Errorf("keys: view %v, then %v", before, after)
	}

	// Themes and a phone.
	b.do(t, "dark", colorScheme(true), chromedp.Evaluate[chromedp.Void](inst+`.select(-1); `+inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))
	b.shot(t, shots, name+"-desktop-dark")
	b.do(t, "phone", chromedp.EmulateViewport(375, 740, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide at a 375 px viewport", w)
	}
	b.shot(t, shots, name+"-phone-dark")
	b.do(t, "phone light", colorScheme(false), chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	b.shot(t, shots, name+"-phone-light")
	b.do(t, "desktop", chromedp.EmulateViewport(1280, 800), chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))

	// Click a note: zoom to it, then click where it is drawn.
	b.do(t, "fly", chromedp.Evaluate[chromedp.Void](inst+`.flyTo(`+fmt.Sprint(top)+`)`),
		chromedp.Sleep(600*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	pt := eval[map[string]float64](t, b, inst+`.screenOf(`+fmt.Sprint(top)+`)`)
	b.do(t, "hover note", chromedp.MouseEvent(chromedp.MouseMoved, pt["x"], pt["y"]), chromedp.WaitVisible(chromedp.CSS(`.gg-tip`)))
	if tip := eval[string](t, b, `document.querySelector('.gg-tip').textContent`); tip != title {
		t.Errorf("hover shows %q, want %q", tip, title)
	}
	b.shot(t, shots, name+"-hover")
	if !indexed {
		return // the generated notes are not in the index: nothing to open
	}
	b.do(t, "click note", chromedp.MouseClickXY(pt["x"], pt["y"]), chromedp.WaitVisible(chromedp.CSS(`article h1`)))
	if loc := eval[string](t, b, `decodeURIComponent(location.pathname + location.search)`); loc != "/doc?ref="+in.Docs[top].ID {
		t.Errorf("click on %q went to %q", title, loc)
	}
}
