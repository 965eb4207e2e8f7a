package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

var beginRE = regexp.MustCompile(`(?m)^BEGIN-(\d+)$`)

// whole reports whether a note's text is complete: its BEGIN marker near
// the top and the matching END marker. Notes are written by rename, so a
// partial one can only come from the index.
func whole(content string) bool {
	m := beginRE.FindStringSubmatch(content)
	if m == nil {
		return false
	}
	return strings.Contains(content, "END-"+m[1]+"\n")
}

// readerStats counts what the readers did.
type readerStats struct {
	ops, errs, partial atomic.Int64
	firstErr           atomic.Value
}

func (s *readerStats) fail(format string, args ...any) {
	s.errs.Add(1)
	s.firstErr.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

var readerQueries = []string{"sqlite checkpoint", "vector graph", "crash recovery atomic rename", "goroutine channel",
	"front matter yaml", "全文检索", "lock writer reader", "latency throughput"}

// TestConcurrency runs readers of every search mode (CLI processes, an
// MCP stdio server, an MCP HTTP server) while syncs, embeds and note
// writes run: no reader may see an error or a partial document. Run it
// with -race to check the in-process half (TestConcurrencyInProcess).
func TestConcurrency(t *testing.T) {
	embed := haveEmbedder()
	docs := corpus(11, pick(8, 60))
	// Short runs embed once: with eight notes, a few rounds of edits and
	// deletions can leave no vector at all, and vsearch then rightly says
	// so. Notes under keepDir keep some vectors for the whole run.
	for i := range 2 {
		docs[fmt.Sprintf("%s/note-%03d.md", keepDir, 900+i)] = note(newRand(uint64(90+i)), 900+i, 0)
	}
	e := newEnv(t, docs)
	e.mustGno("update")
	modes := []string{"search"}
	if embed {
		e.mustGno("embed")
		modes = append(modes, "vsearch", "query")
	} else {
		t.Logf("vector modes skipped: model %s or ONNX Runtime not in %s", embedModel, modelsDir())
	}
	dur := time.Duration(pick(4, 60)) * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var st readerStats
	var wg sync.WaitGroup

	// Writers: syncs of a changing folder, embeds, captures over MCP.
	var syncs, embeds, captures atomic.Int64
	wg.Go(func() {
		rng := newRand(5)
		for r := 1; ctx.Err() == nil; r++ {
			mutate(t, rng, e.notes, r)
			if res := e.gno("update", "--no-update-cmd"); res.err != nil {
				st.fail("writer: update: %s", res)
			}
			syncs.Add(1)
		}
	})
	if embed && full() { // short runs embed once, above: a model load is seconds on a busy box
		wg.Go(func() {
			for ctx.Err() == nil {
				if res := e.gno("embed"); res.err != nil {
					st.fail("writer: embed: %s", res)
				}
				embeds.Add(1)
			}
		})
	}
	w := startStdio(t, e, "--enable-write")
	defer w.close()
	wg.Go(func() {
		rng := newRand(6)
		for i := 0; ctx.Err() == nil; i++ {
			body := note(rng, 50000+i, 0)
			res, err := tool(context.Background(), w, "gno_capture", map[string]any{"collection": "notes", "path": fmt.Sprintf("captured/c%d.md", i), "content": body})
			switch {
			case err != nil:
				st.fail("writer: capture: %v", err)
			case res.IsError && !strings.Contains(res.text(), "LOCKED"):
				st.fail("writer: capture: %s", res.text())
			}
			captures.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	})

	// Readers.
	for i := range 2 {
		wg.Go(func() {
			rng := newRand(uint64(100 + i))
			for ctx.Err() == nil {
				mode := modes[rng.IntN(len(modes))]
				q := readerQueries[rng.IntN(len(readerQueries))]
				res := e.gno(mode, q, "--json", "-n", "5")
				st.ops.Add(1)
				if res.err != nil {
					st.fail("reader: gno %s %q: %s", mode, q, res)
					continue
				}
				var out retrieval.SearchResults
				if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
					st.fail("reader: gno %s: bad JSON: %v", mode, err)
					continue
				}
				if len(out.Results) > 0 {
					g := e.gno("get", out.Results[0].URI, "--json")
					st.ops.Add(1)
					checkGet(&st, g)
				}
			}
		})
	}
	r := startStdio(t, e)
	defer r.close()
	_, url := startHTTP(t, e)
	hc, err := dialHTTP(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []mcpConn{r, r, hc, hc} {
		wg.Go(func() { mcpReader(ctx, &st, c, modes, uint64(200+i)) })
	}
	wg.Wait()
	if v := st.firstErr.Load(); v != nil {
		t.Errorf("first error: %s", v)
	}
	if st.errs.Load() > 0 || st.partial.Load() > 0 {
		t.Fatalf("%d reader/writer errors and %d partial documents in %d reads", st.errs.Load(), st.partial.Load(), st.ops.Load())
	}
	checkWhole(t, e)
	t.Logf("concurrency: %d reads (modes %v) during %d syncs, %d embeds, %d captures: 0 errors, 0 partial documents", st.ops.Load(), modes, syncs.Load(), embeds.Load(), captures.Load())
}

func checkGet(st *readerStats, g result) {
	if g.err != nil {
		if g.code == 3 { // removed by a sync between the search and the get
			return
		}
		st.fail("reader: get: %s", g)
		return
	}
	var d retrieval.Document
	if err := json.Unmarshal([]byte(g.stdout), &d); err != nil {
		st.fail("reader: get: bad JSON: %v", err)
		return
	}
	if !whole(d.Content) {
		st.partial.Add(1)
		st.fail("reader: partial document %s (%d bytes)", d.URI, len(d.Content))
	}
}

// mcpReader searches in every mode over one MCP session and reads the top
// document of each answer.
func mcpReader(ctx context.Context, st *readerStats, c mcpConn, modes []string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for ctx.Err() == nil {
		mode := "gno_" + modes[rng.IntN(len(modes))]
		q := readerQueries[rng.IntN(len(readerQueries))]
		res, err := tool(context.Background(), c, mode, map[string]any{"query": q, "limit": 5})
		st.ops.Add(1)
		if err != nil || res.IsError {
			st.fail("reader: %s %q: %v %v", mode, q, err, res)
			continue
		}
		var out retrieval.SearchResults
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			st.fail("reader: %s: bad structured content: %v", mode, err)
			continue
		}
		if len(out.Results) == 0 {
			continue
		}
		g, err := tool(context.Background(), c, "gno_get", map[string]any{"ref": out.Results[0].URI, "lineNumbers": false})
		st.ops.Add(1)
		if err != nil {
			st.fail("reader: gno_get: %v", err)
			continue
		}
		if g.IsError {
			if !strings.Contains(g.text(), "NOT_FOUND") && !strings.Contains(g.text(), "not found") {
				st.fail("reader: gno_get: %s", g.text())
			}
			continue
		}
		var d retrieval.Document
		if err := json.Unmarshal(g.StructuredContent, &d); err != nil {
			st.fail("reader: gno_get: %v", err)
			continue
		}
		if !whole(d.Content) {
			st.partial.Add(1)
			st.fail("reader: partial document %s over MCP", d.URI)
		}
	}
}

// TestWritersSerialise starts pairs of writers at once: with --wait 0
// each either succeeds or gets LOCKED (exit 4), with a wait both succeed;
// the index stays whole.
func TestWritersSerialise(t *testing.T) {
	e := newEnv(t, corpus(12, 30))
	rng := newRand(9)
	locked, ok := 0, 0
	for i := range pick(4, 30) {
		mutate(t, rng, e.notes, i+1)
		wait := "0s"
		if i%2 == 1 {
			wait = "60s"
		}
		var wg sync.WaitGroup
		var res [2]result
		for j := range res {
			wg.Go(func() { res[j] = e.gno("update", "--no-update-cmd", "--wait", wait) })
		}
		wg.Wait()
		for _, r := range res {
			switch {
			case r.err == nil:
				ok++
			case r.code == 4 && strings.Contains(r.stderr, string(gnoerr.Locked)) && wait == "0s":
				locked++
			default:
				t.Fatalf("writer with --wait %s: %s", wait, r)
			}
		}
		checkWhole(t, e)
	}
	if e.store != "" {
		// The snapshot reads the SQLite file; the lock and checkWhole
		// above apply to Postgres alike.
		t.Logf("writers: %d succeeded, %d got LOCKED, index whole (on Postgres: no snapshot compared)", ok, locked)
		return
	}
	if got, want := takeSnapshot(t, e.dbFile()), cleanBuild(t, e.notes, false); got != want {
		t.Fatalf("after racing writers: %v, clean build %v", got, want)
	}
	t.Logf("writers: %d succeeded, %d got LOCKED, index whole", ok, locked)
}

// TestConcurrencyInProcess shares one Engine between a sync loop, an
// embed loop and readers of every mode, so `go test -race` sees the
// vector graph being swapped under readers, never mutated.
func TestConcurrencyInProcess(t *testing.T) {
	e := newEnv(t, corpus(13, pick(6, 40)))
	pgtest.Use(t, e.home, e.store)
	t.Setenv("GNO_MODELS_DIR", modelsDir())
	ctx := context.Background()
	eng, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	embed := haveEmbedder()
	if embed {
		if _, err := eng.Embed(ctx, retrieval.EmbedOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dur := time.Duration(pick(3, 30)) * time.Second
	rctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var st readerStats
	var wg sync.WaitGroup
	wg.Go(func() {
		rng := newRand(21)
		for r := 1; rctx.Err() == nil; r++ {
			mutate(t, rng, e.notes, r)
			t0 := time.Now()
			if _, err := eng.Update(ctx, retrieval.UpdateOptions{LockWait: time.Minute}); err != nil {
				st.fail("update: %v", err)
			}
			t1 := time.Now()
			if embed {
				if res, err := eng.Embed(ctx, retrieval.EmbedOptions{}); err != nil {
					st.fail("embed: %v", err)
				} else if res.Embedded > 0 {
					t.Logf("round %d: update %s, embed %d chunks %s", r, t1.Sub(t0).Round(time.Millisecond), res.Embedded, time.Since(t1).Round(time.Millisecond))
				}
			}
		}
	})
	for i := range 3 {
		wg.Go(func() {
			rng := newRand(uint64(300 + i))
			for rctx.Err() == nil {
				q := readerQueries[rng.IntN(len(readerQueries))]
				req := retrieval.SearchRequest{Query: q, Limit: 5}
				var res *retrieval.SearchResults
				var err error
				switch m := rng.IntN(3); {
				case m == 1 && embed:
					res, err = eng.VSearch(ctx, req)
				case m == 2 && embed:
					res, err = eng.Query(ctx, retrieval.QueryRequest{SearchRequest: req})
				default:
					res, err = eng.Search(ctx, req)
				}
				st.ops.Add(1)
				if err != nil {
					st.fail("%q: %v", q, err)
					continue
				}
				for _, r := range res.Results {
					d, err := eng.Get(ctx, retrieval.GetRequest{Ref: r.URI})
					if err != nil {
						if gnoerr.Is(err, gnoerr.NotFound) {
							continue
						}
						st.fail("get %s: %v", r.URI, err)
						continue
					}
					if !whole(d.Content) {
						st.partial.Add(1)
						st.fail("partial document %s", r.URI)
					}
				}
			}
		})
	}
	wg.Wait()
	if v := st.firstErr.Load(); v != nil {
		t.Fatalf("%d errors, %d partial documents in %d reads; first: %s", st.errs.Load(), st.partial.Load(), st.ops.Load(), v)
	}
	t.Logf("in-process: %d reads during syncs and embeds: 0 errors (race detector on: %v)", st.ops.Load(), raceEnabled)
}
