package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/gnosearch/gno/inference/ollama/ollamatest"
	"github.com/gnosearch/gno/retrieval/config"
)

// chromium finds a Chromium binary: $GNO_CHROMIUM, then the Debian
// package's.
func chromium() string {
	if p := os.Getenv("GNO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestBrowser drives headless Chromium through the app: search, open a
// result, follow a link, a hostile document, a streamed answer and its
// citation, the status page and a sync job. Screenshots of each step go
// to a temp dir named in the log; any console error fails the test.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set GNO_CHROMIUM)")
	}
	llm := ollamatest.New(ollamatest.CitingReply)
	defer llm.Close()
	// Backlinks come from the index's own links graph (Options.Links nil).
	v := newEnv(t, Options{EnableWrite: true}, func(c *config.Config) {
		c.Models.Answer = config.Backend{Kind: "ollama", URL: llm.URL, Model: "qwen3:1.7b"}
	})
	// Screenshots outlive the test only when asked for (GNO_WEB_SHOTS=dir).
	shots := os.Getenv("GNO_WEB_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("screenshots in %s", shots)
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
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 850),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 240*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception: %s at %s:%d", msg, d.URL, d.LineNumber))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				problems = append(problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	n := 0
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			n++
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			p := filepath.Join(shots, fmt.Sprintf("%d-%s.png", n, name))
			t.Logf("screenshot %s", p)
			return os.WriteFile(p, buf, 0o644)
		})
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		defer func() { t.Logf("%s: %v", step, time.Since(start).Round(time.Millisecond)) }()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}
	base := v.ts.URL
	logOn := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})

	do("load", logOn, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=q]`)), shot("home"))
	do("search",
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "dens hillsides"),
		chromedp.Click(chromedp.CSS(`form.search button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#results`)),
		shot("results"))
	if eval(`String(document.querySelectorAll("#results mark").length)`) == "0" {
		t.Error("no highlighted terms in the results")
	}
	do("explain",
		chromedp.Navigate(base+"/?q=fox+dens&mode=query&explain=1"),
		chromedp.WaitVisible(chromedp.CSS(`#stages`)),
		shot("explain"))
	do("back to results", chromedp.Navigate(base+"/?q=dens+hillsides"), chromedp.WaitVisible(chromedp.CSS(`#results`)))
	do("open result",
		chromedp.Click(chromedp.CSS(`#results li:first-child a.title`)),
		chromedp.WaitVisible(chromedp.CSS(`.md .blk.hit`)),
		shot("document"))
	if got := text(`article h1`); got != "Foxes" {
		t.Errorf("opened %q, want Foxes", got)
	}
	do("follow backlink",
		chromedp.Click(chromedp.CSS(`#backlinks a.backlink`)),
		chromedp.WaitVisible(chromedp.CSS(`.md .blk.hit`)),
		shot("backlink"))
	if got := text(`article h1`); got != "Index of notes" {
		t.Errorf("followed link to %q", got)
	}
	do("hostile document",
		chromedp.Navigate(base+"/doc?ref=notes/evil.md"),
		chromedp.WaitVisible(chromedp.CSS(`.md`)),
		chromedp.Click(chromedp.CSS(`.md a`), chromedp.NodeVisible),
		chromedp.Sleep(300*time.Millisecond),
		shot("hostile"))
	if got := eval(`typeof window.__pwned`); got != "undefined" {
		t.Errorf("the document's script ran: typeof __pwned is %s", got)
	}
	if got := eval(`document.title`); got == "pwned" {
		t.Error("the document's script set the title")
	}
	do("ask",
		chromedp.Navigate(base+"/ask"),
		chromedp.WaitVisible(chromedp.CSS(`#ask input[name=q]`)),
		chromedp.SendKeys(chromedp.CSS(`#ask input[name=q]`), "where do foxes live"),
		chromedp.Click(chromedp.CSS(`#ask button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.answer a.cite`)),
		shot("answer"))
	do("open citation",
		chromedp.Click(chromedp.CSS(`.answer a.cite`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`.source .ln.hit`)),
		shot("citation"))
	do("status and sync",
		chromedp.Navigate(base+"/status"),
		chromedp.WaitVisible(chromedp.CSS(`table.cols`)),
		chromedp.Click(chromedp.CSS(`button[data-post="/api/sync"]:not([data-collection])`)),
		chromedp.WaitVisible(chromedp.CSS(`#jobs li.job`)),
		shot("status"))
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}
