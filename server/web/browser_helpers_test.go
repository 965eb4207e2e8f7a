package web

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/gnosearch/gno/retrieval/config"
)

// browser is headless Chromium driven over CDP for a test: steps,
// screenshots, and every console error or exception collected.
type browser struct {
	t        *testing.T
	ctx      context.Context
	shots    string
	n        int
	mu       sync.Mutex
	problems []string
}

// newBrowser starts Chromium at w×h, skipping the test without one or in
// -short mode. Screenshots go to $GNO_WEB_SHOTS when set.
func newBrowser(t *testing.T, w, h int, timeout time.Duration) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set GNO_CHROMIUM)")
	}
	b := &browser{t: t, shots: os.Getenv("GNO_WEB_SHOTS")}
	if b.shots == "" {
		b.shots = t.TempDir()
	} else if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("screenshots in %s", b.shots)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(w, h),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	b.ctx = ctx
	if err := chromedp.Listen(ctx, b.listen); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatalf("enable the log: %v", err)
	}
	return b
}

func (b *browser) listen(ev any) {
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
		if ev.Entry.Level == cdplog.EntryLevelError && !b.expected(ev.Entry.Text+" "+ev.Entry.URL) {
			b.problems = append(b.problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// expected are errors a step causes on purpose: the refused save of a
// conflict and a refused rename answer 409 and 400, which the browser
// logs as failed loads.
func (b *browser) expected(s string) bool {
	return strings.Contains(s, "status of 409") && strings.Contains(s, "/api/note/save") ||
		strings.Contains(s, "status of 400") && strings.Contains(s, "/api/note/rename-plan")
}

// check fails the test on any console error or exception seen so far.
func (b *browser) check() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("browser: %s", p)
	}
	b.problems = nil
}

func (b *browser) shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		b.n++
		// The header is sticky: a shot of a scrolled page would draw it
		// mid-page.
		if _, err := chromedp.Evaluate[chromedp.Void]("window.scrollTo(0, 0)")(ctx, tg); err != nil {
			return err
		}
		buf, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		p := filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, name))
		b.t.Logf("screenshot %s", p)
		return os.WriteFile(p, buf, 0o644)
	})
}

// do runs a step's actions, failing the test with the step's name.
func (b *browser) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	start := time.Now()
	defer func() { b.t.Logf("%s: %v", step, time.Since(start).Round(time.Millisecond)) }()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
}

// eval evaluates a JavaScript expression to a string.
func (b *browser) eval(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return s
}

// await evaluates a JavaScript expression that gives a promise of a
// string.
func (b *browser) await(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return s
}

// evalAs evaluates a JavaScript expression, awaiting a promise, into a
// value of type T.
func evalAs[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// colorScheme emulates the system's light or dark preference.
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

// key sends a keydown event to the focused element from the page (CDP's
// key events also type the key's text, which a real browser does not
// after the page cancels the keydown).
func (b *browser) key(k string) {
	b.t.Helper()
	b.eval(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: ` + js(k) + `, bubbles: true, cancelable: true})), ""`)
}

// wait evaluates a JavaScript expression until it is truthy, through
// navigations (an evaluation cut by one is retried).
func (b *browser) wait(step, js string) {
	b.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+js+")"))
		if err == nil && ok {
			return
		}
		last = err
		if b.ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("%s: waiting for %s: %v", step, js, last)
}

// text is the visible text of the first node matching sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// axeVersion is the axe-core the accessibility checks run.
const axeVersion = "4.10.3"

// axeScript returns axe-core's source: $GNO_AXE (a path to axe.min.js),
// else a copy cached outside the repository, else the npm package fetched
// with npm into that cache. It is injected into pages by the test only.
func axeScript(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("GNO_AXE"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("GNO_AXE: %v", err)
		}
		return string(b)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "gno-test", "axe-core-"+axeVersion)
	file := filepath.Join(dir, "axe.min.js")
	if b, err := os.ReadFile(file); err == nil {
		return string(b)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("axe-core %s is needed for the accessibility checks: install npm, or set GNO_AXE to an axe.min.js", axeVersion)
	}
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "pack", "axe-core@"+axeVersion, "--pack-destination", tmp, "--silent").CombinedOutput()
	if err != nil {
		t.Fatalf("npm pack axe-core@%s: %v\n%s (or set GNO_AXE to an axe.min.js)", axeVersion, err, out)
	}
	src, err := untarFile(filepath.Join(tmp, "axe-core-"+axeVersion+".tgz"), "package/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := config.WriteFileAtomic(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// untarFile reads one file out of a .tgz.
func untarFile(tgz, name string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("%s in %s: %w", name, tgz, err)
		}
		if h.Name == name {
			return io.ReadAll(io.LimitReader(tr, 8<<20))
		}
	}
}

// axeViolation is one failed axe rule on a page.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// axe runs axe-core (WCAG 2.1 A and AA rules and best practices) on the
// page and returns its violations.
func (b *browser) axe(src string) []axeViolation {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		b.t.Fatalf("inject axe: %v", err)
	}
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}, resultTypes: ["violations"]})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, targets: v.nodes.slice(0, 4).map(n => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("run axe: %v", err)
	}
	return v
}

// weight is what a page loads, in bytes on the wire (bodies as sent,
// gzipped where the server gzips): its HTML, CSS and JavaScript, the
// graph view's share of those (its modules and style sheet, counted in
// CSS and JS too) and the graph's scene.
type weight struct {
	HTML  int `json:"html"`
	CSS   int `json:"css"`
	JS    int `json:"js"`
	Graph int `json:"graph"`
	Scene int `json:"scene"`
}

// pageWeight reads the page's resources from the Performance API
// (encodedBodySize: the body as it came over the wire).
func (b *browser) pageWeight() weight {
	b.t.Helper()
	w, err := chromedp.Run(b.ctx, chromedp.Evaluate[weight](`(() => {
		const n = performance.getEntriesByType("navigation")[0], r = {html: n.encodedBodySize, css: 0, js: 0, graph: 0, scene: 0};
		for (const e of performance.getEntriesByType("resource")) {
			const size = e.encodedBodySize, u = new URL(e.name);
			if (u.pathname === "/api/graph/scene") { r.scene += size; continue; }
			if (/\.css$/.test(u.pathname)) r.css += size; else if (/\.js$/.test(u.pathname)) r.js += size;
			if (/^\/assets\/graph[./]/.test(u.pathname)) r.graph += size;
		}
		return r;
	})()`))
	if err != nil {
		b.t.Fatalf("page weight: %v", err)
	}
	return w
}
