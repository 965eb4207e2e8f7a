package web

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
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
	t.Run("hostile", func(t *testing.T) {
		// Titles, tags and a missing link's name carrying HTML: drawn
		// and listed as text, never run.
		env := newEnv(t, Options{Graph: &fixedGraph{in: hostileGraph()}}, nil)
		b := newBrowser(t, 1280, 800, 300*time.Second)
		b.do("load", chromedp.Navigate(env.ts.URL+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)),
			chromedp.Evaluate[chromedp.Void](inst+`.ready`, chromedp.EvalAwaitPromise),
			chromedp.SendKeys(chromedp.CSS(`.gg-find input`), "evil"),
			chromedp.WaitVisible(chromedp.CSS(`.gg-list li`)),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`.gg-card h2`)))
		b.do("ghost", chromedp.Evaluate[chromedp.Void](inst+`.select(4)`))
		b.do("shot", b.shot("hostile"))
		if got := evalAs[string](b, `typeof window.__pwned`); got != "undefined" {
			t.Errorf("a title's script ran: __pwned is %s", got)
		}
		if got := evalAs[string](b, `document.querySelector('.gg-card h2').textContent`); got != hostileGraph().Unresolved[0].Target {
			t.Errorf("ghost card shows %q", got)
		}
		if n := evalAs[int](b, `document.querySelectorAll('.gg img, .gg svg, .gg script').length`); n != 0 {
			t.Errorf("%d elements made from titles", n)
		}
		b.check()
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
			b := newBrowser(t, 1280, 800, 300*time.Second)
			graphScenario(t, b, env.ts.URL, vl.name, in, vl.dir != "")
			b.check()
		})
	}
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

func graphScenario(t *testing.T, b *browser, base, name string, in *layout.Input, indexed bool) {
	ready := func(step string) float64 {
		t.Helper()
		b.do(step, chromedp.Navigate(base+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)))
		ms := evalAs[float64](b, inst+`.ready.then(g => g.stats.firstFrameMs)`)
		b.do("complete", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
		st := evalAs[map[string]any](b, `(() => { const s = `+inst+`.stats; const r = performance.getEntriesByType('resource').find(e => e.name.includes('/api/graph/scene'));
			return {fetch: s.fetchMs, decode: s.decodeMs, layer: s.layerMs, bytes: s.bytes, transfer: r ? r.transferSize : 0, complete: s.completeMs,
			  server: r && r.serverTiming && r.serverTiming.length ? r.serverTiming[0].duration : -1}; })()`)
		t.Logf("%s %s: first interactive frame at %.0f ms after navigation (%v)", name, step, ms, st)
		return ms
	}
	ready("cold load")
	ready("warm load")
	n := evalAs[int](b, inst+`.scene.n`)
	if want := len(in.Docs); n < want {
		t.Fatalf("scene has %d nodes, want at least %d", n, want)
	}
	b.do("shot", b.shot(name+"-desktop-light"))

	// Frame rate: drag across the canvas, then wheel in and out.
	b.do("idle", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	evalAs[bool](b, `window.__stop = `+inst+`.record(), true`)
	x, y := 640.0, 420.0
	pressed := func(p *input.DispatchMouseEventParams) { p.Button = input.MouseButtonLeft; p.Buttons = 1 }
	b.do("press", chromedp.MouseEvent(chromedp.MousePressed, x, y, pressed))
	for i := 0; i < 90; i++ {
		dx := 4.0
		if i >= 45 {
			dx = -4
		}
		x += dx
		y += dx / 2
		b.do("drag", chromedp.MouseEvent(chromedp.MouseMoved, x, y, pressed))
	}
	b.do("release", chromedp.MouseEvent(chromedp.MouseReleased, x, y, pressed))
	pan := evalAs[frameStats](b, `window.__stop()`)
	evalAs[bool](b, `window.__stop = `+inst+`.record(), true`)
	for i := 0; i < 60; i++ {
		d := -60.0
		if i >= 30 {
			d = 60
		}
		b.do("wheel", chromedp.MouseEvent(chromedp.MouseWheel, 500, 380, func(p *input.DispatchMouseEventParams) { p.DeltaY = d; p.DeltaX = 0.001 }))
	}
	zoom := evalAs[frameStats](b, `window.__stop()`)
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
	top := evalAs[int](b, inst+`.scene.byRank[0]`)
	title := evalAs[string](b, inst+`.scene.title[`+fmt.Sprint(top)+`]`)
	b.do("find",
		chromedp.SendKeys(chromedp.CSS(`.gg-find input`), title),
		chromedp.WaitVisible(chromedp.CSS(`.gg-list li`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`.gg-card .gg-acts`)))
	b.do("settle", chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	if sel := evalAs[int](b, inst+`.selected`); sel < 0 || evalAs[string](b, inst+`.scene.title[`+inst+`.selected]`) != title {
		t.Errorf("find %q selected node %d", title, sel)
	}
	b.do("shot", b.shot(name+"-find"))

	// Local graph of the found note, depth 2.
	b.do("local", chromedp.Click(chromedp.CSS(`.gg-card .gg-acts button`)),
		chromedp.SetValue(chromedp.CSS(`.gg-bar select`), "2"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.gg-bar select').dispatchEvent(new Event('change'))`),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	local := evalAs[map[string]any](b, `({n: `+inst+`.layer.n, local: !!`+inst+`.local, depth: `+inst+`.local && `+inst+`.local.depth})`)
	if local["local"] != true || local["depth"] != float64(2) {
		t.Errorf("local graph: %v", local)
	}
	t.Logf("%s local graph depth 2 of %q: %v nodes", name, title, local["n"])
	b.do("shot", b.shot(name+"-local"))
	b.do("global", chromedp.Click(chromedp.CSS(`.gg-local input`)), chromedp.Evaluate[chromedp.Void](inst+`.select(-1)`))

	// Filter by text: dims the rest.
	b.do("filter",
		chromedp.Click(chromedp.CSS(`.gg-more summary`)),
		chromedp.SendKeys(chromedp.CSS(`.gg-opts input[type=search]`), strings.Fields(title)[0]),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	m := evalAs[int](b, inst+`.matches`)
	if m <= 0 || m >= n {
		t.Errorf("filter %q matched %d of %d", strings.Fields(title)[0], m, n)
	}
	b.do("shot", b.shot(name+"-filter"))
	b.do("clear filter", chromedp.Evaluate[chromedp.Void](inst+`.setFilter({text: ''})`))
	// Filter by tag, the first the menu offers, hiding the rest.
	if evalAs[int](b, `document.querySelectorAll('.gg-opts select')[1].options.length`) > 1 {
		b.do("tag filter", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelectorAll('.gg-opts select');
			s[1].selectedIndex = 1; s[1].dispatchEvent(new Event('change')); s[2].value = 'hide'; s[2].dispatchEvent(new Event('change')); })()`),
			chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
		m := evalAs[int](b, inst+`.matches`)
		hidden := evalAs[int](b, inst+`.vis.filter(v => v === 0).length`)
		if m <= 0 || m >= n || hidden != n-m {
			t.Errorf("tag filter: %d match, %d hidden of %d", m, hidden, n)
		}
		b.do("shot", b.shot(name+"-tag"))
		b.do("clear tag", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelectorAll('.gg-opts select');
			s[1].selectedIndex = 0; s[1].dispatchEvent(new Event('change')); s[2].value = 'dim'; s[2].dispatchEvent(new Event('change')); })()`))
	}
	b.do("close filters", chromedp.Evaluate[chromedp.Void](`document.querySelector('.gg-more').open = false`))

	// Keyboard: focus the graph, zoom in with +, pan with an arrow.
	before := evalAs[map[string]float64](b, inst+`.view`)
	b.do("keys", chromedp.Focus(chromedp.CSS(`.gg-stage canvas`)), chromedp.KeyEvent("+"), chromedp.KeyEvent(kb.ArrowLeft))
	after := evalAs[map[string]float64](b, inst+`.view`)
	if !(after["k"] > before["k"]) || after["x"] >= before["x"] {
		t.Errorf("keys: view %v, then %v", before, after)
	}

	// Themes and a phone.
	b.do("dark", colorScheme(true), chromedp.Evaluate[chromedp.Void](inst+`.select(-1); `+inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))
	b.do("shot", b.shot(name+"-desktop-dark"))
	b.do("phone", chromedp.EmulateViewport(375, 740, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))
	if w := evalAs[int](b, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide at a 375 px viewport", w)
	}
	b.do("shot", b.shot(name+"-phone-dark"))
	b.do("phone light", colorScheme(false), chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	b.do("shot", b.shot(name+"-phone-light"))
	b.do("desktop", chromedp.EmulateViewport(1280, 800), chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.fit(); `+inst+`.idle()`, chromedp.EvalAwaitPromise))

	// Click a note: zoom to it, then click where it is drawn.
	b.do("fly", chromedp.Evaluate[chromedp.Void](inst+`.flyTo(`+fmt.Sprint(top)+`)`),
		chromedp.Sleep(600*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	pt := evalAs[map[string]float64](b, inst+`.screenOf(`+fmt.Sprint(top)+`)`)
	b.do("hover note", chromedp.MouseEvent(chromedp.MouseMoved, pt["x"], pt["y"]), chromedp.WaitVisible(chromedp.CSS(`.gg-tip`)))
	if tip := evalAs[string](b, `document.querySelector('.gg-tip').textContent`); tip != title {
		t.Errorf("hover shows %q, want %q", tip, title)
	}
	b.do("shot", b.shot(name+"-hover"))
	if !indexed {
		return // the generated notes are not in the index: nothing to open
	}
	b.do("click note", chromedp.MouseClickXY(pt["x"], pt["y"]), chromedp.WaitVisible(chromedp.CSS(`article h1`)))
	if loc := evalAs[string](b, `decodeURIComponent(location.pathname + location.search)`); loc != "/doc?ref="+in.Docs[top].ID {
		t.Errorf("click on %q went to %q", title, loc)
	}
}
