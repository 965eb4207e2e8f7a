package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
)

// TestGraphWorkspace drives the graph view of the workspace in Chromium
// on a copy of the real vault, drawn from the index itself: open it
// from the nav, find a note, filter by tag and text, hide unresolved
// links and orphans, walk it with the keyboard through the linked
// notes' list, open a note by clicking it; a note's local graph at
// depths 1 to 3 on its page and from the editor; and an edit that adds
// a [[link]], after which the graph (a new version, laid out again)
// has the new edge. No console error.
func TestGraphWorkspace(t *testing.T) {
	b := newBrowser(t, 1280, 800, 6*time.Minute)
	v, dir := vaultEnv(t)
	base := v.ts.URL
	// A second collection, for the collection filter.
	extra := filepath.Join(dir, "extra")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"Okapi.md": "# Okapi\n\nSee [[Zebra]].\n", "Zebra.md": "# Zebra\n\nSee [[Okapi]].\n"} {
		if err := os.WriteFile(filepath.Join(extra, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e, err := v.srv.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "extra", Path: extra})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(ctx, retrieval.UpdateOptions{Collection: "extra"}); err != nil {
		t.Fatal(err)
	}
	do, shot, eval, wait := b.do, b.shot, b.eval, b.wait
	ready := `GnoGraph.instances.length && GnoGraph.instances[0].scene && !GnoGraph.instances[0].job`

	// From the nav: the whole index, ready.
	do("home", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`form.search`)))
	start := time.Now()
	do("graph tab", chromedp.Click(chromedp.CSS(`#nav a[href="/graph"]`)), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)))
	wait("graph ready", ready)
	first := evalAs[float64](b, inst+`.stats.firstFrameMs`)
	t.Logf("graph of the real vault: first interactive frame %.0f ms after navigation (cold: the layout included), %v from the click", first, time.Since(start).Round(time.Millisecond))
	if got := eval(`document.querySelector('#nav a[aria-current="page"]').textContent`); got != "Graph" {
		t.Errorf("current nav entry %q", got)
	}
	counts := evalAs[map[string]int](b, `(() => { const s = `+inst+`.scene; let g = 0, o = 0; for (let i = 0; i < s.n; i++) { if (s.flags[i] & 2) g++; if (s.flags[i] & 1) o++; } return {n: s.n, e: s.e, ghosts: g, orphans: o}; })()`)
	t.Logf("scene: %v", counts)
	if counts["n"] < 1300 || counts["e"] < 2500 || counts["ghosts"] == 0 || counts["orphans"] == 0 {
		t.Errorf("scene of the real vault: %v", counts)
	}
	if id := eval(inst + `.scene.id[0]`); !strings.HasPrefix(id, "vault/") {
		t.Errorf("node IDs are not collection/path references: %q", id)
	}
	do("graph shot", shot("graph"))

	// Unresolved links and orphans: shown, and hidden by their toggles.
	do("filters", chromedp.Click(chromedp.CSS(`.gg-more summary`)))
	eval(`(() => { const [g, o] = document.querySelectorAll('.gg-opts input[type=checkbox]'); g.click(); o.click(); return "" })()`)
	if hidden := evalAs[int](b, inst+`.vis.filter(v => v === 0).length`); hidden != counts["ghosts"]+counts["orphans"] {
		t.Errorf("hiding unresolved links and orphans hid %d nodes, want %d", hidden, counts["ghosts"]+counts["orphans"])
	}
	eval(`(() => { const [g, o] = document.querySelectorAll('.gg-opts input[type=checkbox]'); g.click(); o.click(); return "" })()`)

	// Filter by collection, tag (the test's tagged note) and text.
	eval(`(() => { const s = document.querySelectorAll('.gg-opts select')[0]; s.value = [...s.options].find(o => o.textContent === 'extra').value; s.dispatchEvent(new Event('change')); return "" })()`)
	if m := evalAs[int](b, inst+`.matches`); m != 2 {
		t.Errorf("collection extra matches %d notes, want 2", m)
	}
	eval(`(() => { const s = document.querySelectorAll('.gg-opts select')[0]; s.value = ''; s.dispatchEvent(new Event('change')); return "" })()`)
	eval(`(() => { const s = document.querySelectorAll('.gg-opts select')[1]; s.value = [...s.options].find(o => o.textContent.startsWith('#proj/alpha')).value; s.dispatchEvent(new Event('change')); return "" })()`)
	if m := evalAs[int](b, inst+`.matches`); m != 2 { // Tagged note and the hostile one
		t.Errorf("tag #proj/alpha matches %d notes, want 2", m)
	}
	do("tag filter shot", shot("graph-tag"))
	eval(`(() => { const s = document.querySelectorAll('.gg-opts select')[1]; s.value = ''; s.dispatchEvent(new Event('change')); return "" })()`)
	do("text filter", chromedp.SendKeys(chromedp.CSS(`.gg-opts input[type=search]`), "theme"))
	if m := evalAs[int](b, inst+`.matches`); m < 10 || m >= counts["n"] {
		t.Errorf("text filter 'theme' matches %d notes", m)
	}
	do("text filter shot", shot("graph-filter"))
	eval(inst + `.setFilter({text: ''}), document.querySelector('.gg-more').open = false, ""`)

	// Find a note, then walk its links from the keyboard.
	do("find", chromedp.SendKeys(chromedp.CSS(`.gg-find input`), "Manage your plug"), chromedp.WaitVisible(chromedp.CSS(`.gg-list li`)),
		chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`.gg-card .gg-nb`)))
	if got := eval(`document.querySelector('.gg-card h2').textContent`); got != "Manage your plugin or theme" {
		t.Errorf("find selected %q", got)
	}
	nb := evalAs[int](b, `document.querySelectorAll('.gg-card .gg-nb button').length`)
	if nb == 0 {
		t.Error("the card lists no linked notes")
	}
	do("find shot", shot("graph-find"))
	eval(`document.querySelector('.gg-card .gg-nb button').focus(), ""`)
	next := eval(`document.activeElement.textContent`)
	do("walk", chromedp.KeyEvent(kb.Enter))
	wait("walked", `document.querySelector('.gg-card h2') && document.querySelector('.gg-card h2').textContent === `+js(next))
	do("escape", chromedp.Focus(chromedp.CSS(`.gg-stage canvas`)), chromedp.KeyEvent(kb.Escape))
	wait("deselected", inst+`.selected === -1`)
	do("keyboard select", chromedp.KeyEvent(kb.Enter))
	wait("selected by Enter", inst+`.selected >= 0 && !document.querySelector('.gg-card').hidden`)
	if got := eval(`getComputedStyle(document.querySelector('.gg-stage canvas')).outlineStyle`); got == "none" {
		t.Error("the focused graph shows no focus outline")
	}
	do("keyboard shot", shot("graph-keyboard"))

	// Click a node: its note opens.
	target := evalAs[int](b, inst+`.selected`)
	title := eval(inst + `.scene.title[` + fmt.Sprint(target) + `]`)
	id := eval(inst + `.scene.id[` + fmt.Sprint(target) + `]`)
	do("fly", chromedp.Evaluate[chromedp.Void](inst+`.select(-1); `+inst+`.flyTo(`+fmt.Sprint(target)+`)`), chromedp.Sleep(600*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](inst+`.idle()`, chromedp.EvalAwaitPromise))
	pt := evalAs[map[string]float64](b, inst+`.screenOf(`+fmt.Sprint(target)+`)`)
	do("click node", chromedp.MouseClickXY(pt["x"], pt["y"]), chromedp.WaitVisible(chromedp.CSS(`#doc-title`)))
	if got := b.text(`#doc-title`); got != title {
		t.Errorf("clicking %q (%s) opened %q", title, id, got)
	}

	// The note's local graph, depth 1 to 3.
	wait("local graph", `GnoGraph.instances.length && GnoGraph.instances[0].local && !GnoGraph.instances[0].job`)
	sizes := []int{}
	for d := 1; d <= 3; d++ {
		eval(`(() => { const s = document.querySelector('#local-graph select'); s.value = "` + fmt.Sprint(d) + `"; s.dispatchEvent(new Event('change')); return "" })()`)
		wait("depth", inst+`.local.depth === `+fmt.Sprint(d))
		sizes = append(sizes, evalAs[int](b, inst+`.layer.n`))
		do("local shot", shot(fmt.Sprintf("local-depth%d", d)))
	}
	t.Logf("local graph of %q: %v notes at depth 1, 2, 3", title, sizes)
	links := evalAs[int](b, `new Set([...document.querySelectorAll('#outgoing a, #backlinks a')].map(a => new URL(a.href).searchParams.get('ref'))).size`)
	if sizes[0] < 2 || sizes[0] < links || !(sizes[0] <= sizes[1] && sizes[1] <= sizes[2]) || sizes[2] <= sizes[0] {
		t.Errorf("local graph sizes %v (the page lists %d linked notes)", sizes, links)
	}
	if href := eval(`decodeURIComponent(document.querySelector('#local-graph .gg-bar a').getAttribute('href'))`); href != "/graph?focus="+id+"&depth=3" {
		t.Errorf("local graph's link to the graph view: %q", href)
	}

	// The editor links to the note's graph.
	do("editor", chromedp.Navigate(base+"/edit?ref="+url.QueryEscape(id)), chromedp.WaitVisible(chromedp.CSS(`#ed-body`)),
		chromedp.Click(chromedp.CSS(`.ed-actions a[href^="/graph?focus="]`)), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)))
	wait("graph of the edited note", inst+` && `+inst+`.local && `+inst+`.scene.id[`+inst+`.local.focus] === `+js(id))

	// An edit adds a link: the graph has the new edge once saved.
	etag := func() string {
		return b.await(`fetch("/api/graph/scene").then(r => r.headers.get("ETag"))`)
	}
	before := etag()
	tagged := "vault/Tagged note.md"
	edge := `(() => { const s = ` + inst + `.scene, a = s.id.indexOf(` + js(tagged) + `), b = s.id.indexOf("vault/Home.md");
		for (let i = 0; i < s.e; i++) { const x = s.edges[2*i], y = s.edges[2*i+1]; if ((x === a && y === b) || (x === b && y === a)) return true; } return false; })()`
	if evalAs[bool](b, edge) {
		t.Fatal("Tagged note already links Home")
	}
	do("edit", chromedp.Navigate(base+"/edit?ref="+url.QueryEscape(tagged)), chromedp.WaitVisible(chromedp.CSS(`#ed-body`)))
	wait("editor ready", `document.documentElement.hasAttribute("data-ready")`)
	eval(`(() => { const t = document.getElementById("ed-body"); t.focus(); t.setSelectionRange(t.value.length, t.value.length); return "" })()`)
	do("type a link", chromedp.KeyEvent("See [[Home]]."))
	saveStart := time.Now()
	wait("saved", `document.getElementById("save-state").dataset.state === "saved" && document.getElementById("ed-body").value.includes("[[Home]]")`)
	if disk, _ := os.ReadFile(filepath.Join(v.notes, "Tagged note.md")); !strings.Contains(string(disk), "See [[Home]].") {
		t.Fatalf("the note on disk: %q", disk)
	}
	do("graph after the edit", chromedp.Navigate(base+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.gg-stage canvas`)))
	wait("new scene", ready)
	t.Logf("save to a graph with the new edge: %v", time.Since(saveStart).Round(time.Millisecond))
	if after := etag(); after == before {
		t.Errorf("the scene's ETag is still %s after a new link", before)
	}
	if !evalAs[bool](b, edge) {
		t.Error("the graph lacks the new edge Tagged note – Home")
	}
	b.check()
}
