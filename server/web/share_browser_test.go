package web

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/server/auth"
)

// TestBrowserSharing drives headless Chromium through the sharing mode
// over real TLS on 127.0.0.2: the browser trusts exactly the printed
// public-key pin (as a teammate pins it), is sent to the sign-in page,
// signs in with a read token (a write fetch gets 403), signs out, signs
// in with a write token and runs a sync from the status page. No console
// error (a CSP violation included) may occur.
func TestBrowserSharing(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set GNO_CHROMIUM)")
	}
	v := newEnv(t, Options{EnableWrite: true}, nil)
	dir := t.TempDir()
	keep, err := store.OpenBackend(context.Background(), filepath.Join(dir, "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keep.Close() })
	tokens := auth.NewStore(keep, dir)
	read, _, err := tokens.Create(context.Background(), "reader", auth.Read, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	write, _, _ := tokens.Create(context.Background(), "writer", auth.Write, time.Hour)
	hosts := auth.ServedNames("127.0.0.2")
	cert, err := auth.LoadTLS(auth.TLSOptions{Dir: dir + "/tls", Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := auth.New(auth.Options{Store: tokens, Hosts: hosts, Login: true, Stylesheet: "/assets/style.css", Public: []string{"/assets/"}})
	if err != nil {
		t.Fatal(err)
	}
	mcpH, stopMCP := v.srv.MCPHandler(true)
	sctx, stop := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(sctx, "127.0.0.2:0", Options{Backend: v.srv, EnableWrite: true, ListenAny: true, MCP: mcpH, TLS: cert.Config, Guard: guard.Wrap},
			func(a string) { addrc <- a })
	}()
	base := "https://" + <-addrc
	t.Cleanup(func() { stop(); <-done; stopMCP(context.Background()) })

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
		// Trust this key only, the way a teammate pins the fingerprint.
		chromedp.Flag("ignore-certificate-errors-spki-list", strings.TrimPrefix(cert.PublicKeyPin, "sha256//")),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 180*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			// The read-only write below is refused on purpose.
			if ev.Entry.Level == cdplog.EntryLevelError && !strings.Contains(ev.Entry.Text, "403") {
				problems = append(problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return s
	}
	logOn := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})
	signIn := func(token string) {
		t.Helper()
		do("sign in",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=token]`), token),
			chromedp.Click(chromedp.CSS(`form[action="/login"] button`)),
			chromedp.WaitVisible(chromedp.CSS(`input[name=q]`)))
	}

	do("load", logOn, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)))
	if got := eval(`location.pathname`); got != "/login" {
		t.Fatalf("without a session the browser is at %s, want /login", got)
	}
	if got := eval(`document.cookie`); got != "" {
		t.Fatalf("cookies visible to scripts before sign-in: %q", got)
	}
	signIn(read)
	if got := eval(`document.cookie`); got != "" {
		t.Errorf("the session cookie is visible to scripts (not HttpOnly): %q", got)
	}
	do("search", chromedp.Navigate(base+"/?q=dens+hillsides"), chromedp.WaitVisible(chromedp.CSS(`#results`)))
	eval(`window.__st = ""; fetch("/api/sync", {method: "POST", headers: {"Content-Type": "application/json",
		"X-Gno-Csrf": document.querySelector('meta[name=gno-csrf]').content}, body: "{}"}).then(r => { window.__st = String(r.status) }); ""`)
	var st string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if st = eval(`window.__st`); st != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st != "403" {
		t.Errorf("a write from a read session: HTTP %s, want 403", st)
	}
	do("sign out", chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)))
	signIn(write)
	do("status and sync",
		chromedp.Navigate(base+"/status"),
		chromedp.WaitVisible(chromedp.CSS(`table.cols`)),
		chromedp.Click(chromedp.CSS(`button[data-post="/api/sync"]:not([data-collection])`)),
		chromedp.WaitVisible(chromedp.CSS(`#jobs li.job`)))
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}
