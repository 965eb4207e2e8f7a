package inproc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/web"
)

// keystrokes are the palette queries typing each SciFact claim makes:
// its prefixes at a few lengths, as a debounced box sends them.
func keystrokes(qs []string) []string {
	var out []string
	for _, q := range qs {
		for _, n := range []int{3, 6, 10, 16, 24, 40} {
			if n < len(q) {
				out = append(out, q[:n])
			}
		}
		out = append(out, q)
	}
	return out
}

// BenchmarkWebPalette is the command palette's request per keystroke,
// GET /api/palette (titles by prefix, BM25 hits in the text), over HTTP
// on SciFact: request to last byte, typed prefixes of every claim.
func BenchmarkWebPalette(b *testing.B) {
	ts, qs := webServer(b)
	timedGets(b, ts, keystrokes(qs), func(q string) string { return "/api/palette?q=" + url.QueryEscape(q) })
}

// BenchmarkWebSaveSearchable is an editor save of a SciFact document
// (POST /api/note/save: hash check, atomic write, re-index) followed by
// the search that finds the new word: save to searchable, over HTTP.
func BenchmarkWebSaveSearchable(b *testing.B) {
	e, ds := indexed(b)
	srv := server.New(server.Options{Open: func(context.Context) (*retrieval.Engine, error) { return e, nil }, EnableWrite: true})
	app, err := web.New(web.Options{Backend: srv, EnableWrite: true})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(app)
	b.Cleanup(ts.Close)
	c := ts.Client()
	call := func(method, path string, body any) map[string]any {
		var rd io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			rd = bytes.NewReader(data)
		}
		req, _ := http.NewRequest(method, ts.URL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(web.CSRFHeader, app.CSRFToken())
		res, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
			b.Fatalf("%s %s: %d %v %v", method, path, res.StatusCode, err, out)
		}
		return out
	}
	list, err := e.List(context.Background(), "scifact", 200, 0)
	if err != nil || len(list) == 0 {
		b.Fatal(err)
	}
	_ = ds
	var lat []time.Duration
	i := 0
	for b.Loop() {
		ref := list[i%len(list)].URI
		note := call("GET", "/api/note?ref="+url.QueryEscape(ref), nil)
		word := fmt.Sprintf("zqxw%dv", i)
		body := note["body"].(string) + "\n" + word + "\n"
		t0 := time.Now()
		call("POST", "/api/note/save", map[string]any{"ref": ref, "baseHash": note["hash"], "body": body})
		found := call("GET", "/api/search?limit=1&q="+word, nil)
		lat = append(lat, time.Since(t0))
		if r, _ := found["results"].([]any); len(r) != 1 || !strings.HasSuffix(ref, r[0].(map[string]any)["source"].(map[string]any)["relPath"].(string)) {
			b.Fatalf("%s not found after the save: %v", word, found)
		}
		i++
	}
	sort.Slice(lat, func(a, c int) bool { return lat[a] < lat[c] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
