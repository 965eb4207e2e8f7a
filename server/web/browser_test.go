package web

import (
	"os"
	"os/exec"
	"testing"
	"time"

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
	b := newBrowser(t, 1200, 850, 240*time.Second)
	llm := ollamatest.New(ollamatest.CitingReply)
	defer llm.Close()
	// Backlinks come from the index's own links graph (Options.Links nil).
	v := newEnv(t, Options{EnableWrite: true}, func(c *config.Config) {
		c.Models.Answer = config.Backend{Kind: "ollama", URL: llm.URL, Model: "qwen3:1.7b"}
	})
	do, shot, text, eval := b.do, b.shot, b.text, b.eval
	base := v.ts.URL

	do("load", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=q]`)), shot("home"))
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
	b.check()
}
