package inproc

import (
	"context"
	"io"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/answer"
	"github.com/gnosearch/gno/inference/ollama"
	"github.com/gnosearch/gno/inference/ollama/ollamatest"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/web"
)

// webServer serves the web app over a warm SciFact engine on loopback.
func webServer(b *testing.B) (*httptest.Server, []string) {
	e, ds := indexed(b)
	srv := server.New(server.Options{Open: func(context.Context) (*retrieval.Engine, error) { return e, nil }})
	app, err := web.New(web.Options{Backend: srv})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(app)
	b.Cleanup(ts.Close)
	var qs []string
	for _, q := range ds.Queries {
		qs = append(qs, q.Text)
	}
	return ts, qs
}

// timedGets fetches path(q) for each iteration and reports p50/p95 of
// the whole round trip (request to last byte).
func timedGets(b *testing.B, ts *httptest.Server, qs []string, path func(q string) string) {
	c := ts.Client()
	get := func(u string) {
		res, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("%s: %d", u, res.StatusCode)
		}
	}
	get(ts.URL + path(qs[0])) // warm
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		get(ts.URL + path(qs[i%len(qs)]))
		lat = append(lat, time.Since(t0))
		i++
	}
	sort.Slice(lat, func(a, c int) bool { return lat[a] < lat[c] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkWebAPISearch is GET /api/search (top 10) over HTTP on SciFact.
func BenchmarkWebAPISearch(b *testing.B) {
	ts, qs := webServer(b)
	timedGets(b, ts, qs, func(q string) string { return "/api/search?limit=10&q=" + url.QueryEscape(q) })
}

// BenchmarkWebResultsPage is the server-rendered results page (20 hits,
// BM25): the time to the last byte of HTML is the time to first paint of
// results, as the page needs nothing else to show them (CSS is cached).
func BenchmarkWebResultsPage(b *testing.B) {
	ts, qs := webServer(b)
	timedGets(b, ts, qs, func(q string) string { return "/?q=" + url.QueryEscape(q) })
}

// BenchmarkWebPageWeight reports the bytes of a results page with its
// script and style sheet.
func BenchmarkWebPageWeight(b *testing.B) {
	ts, qs := webServer(b)
	var total int
	for b.Loop() {
		total = 0
		for _, p := range []string{"/?q=" + url.QueryEscape(qs[0]), "/assets/app.js", "/assets/style.css"} {
			res, err := ts.Client().Get(ts.URL + p)
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			total += int(n)
		}
	}
	b.ReportMetric(float64(total)/1024, "KiB")
}

// BenchmarkAskFirstToken is `gno ask` time to first token with the
// stand-in Ollama server: retrieval, passage reads, prompt, and the
// stand-in's first streamed message (no model time).
func BenchmarkAskFirstToken(b *testing.B) {
	e, ds := indexed(b)
	llm := ollamatest.New(ollamatest.CitingReply)
	b.Cleanup(llm.Close)
	ch, err := ollama.NewChatter(ollama.ChatConfig{URL: llm.URL, Model: "stand-in"})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"fast", "default"} {
		b.Run(mode, func(b *testing.B) {
			var ttft []time.Duration
			i := 0
			for b.Loop() {
				q := ds.Queries[i%len(ds.Queries)].Text
				i++
				t0 := time.Now()
				var first time.Duration
				a, err := answer.Ask(context.Background(), e, answer.Request{Question: q, Mode: mode, Chatter: ch}, func(string) {
					if first == 0 {
						first = time.Since(t0)
					}
				})
				if err != nil || !a.Meta.Answered || !strings.Contains(a.Answer, "[#") {
					b.Fatalf("ask %q: %v %+v", q, err, a.Meta)
				}
				ttft = append(ttft, first)
			}
			sort.Slice(ttft, func(x, y int) bool { return ttft[x] < ttft[y] })
			b.ReportMetric(float64(ttft[len(ttft)/2].Microseconds())/1000, "ttft-p50-ms")
		})
	}
}
