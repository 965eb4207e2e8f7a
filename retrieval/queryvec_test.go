package retrieval

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
)

// queryBothWays runs req with the query's embedding started beside BM25
// and then with it embedded in the vector stage, as before the prefetch,
// and returns both answers as JSON (results and meta) with their errors.
func queryBothWays(t *testing.T, e *Engine, req QueryRequest) (pre, seq string, preErr, seqErr error) {
	t.Helper()
	run := func(on bool) (string, error) {
		prefetchQueryVector = on
		defer func() { prefetchQueryVector = true }()
		res, err := e.Query(context.Background(), req)
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(res)
		return string(b), nil
	}
	pre, preErr = run(true)
	seq, seqErr = run(false)
	return
}

var prefetchCorpus = map[string]string{
	"wal.md":    "# Write-ahead logging\n\nSQLite appends changes to a log so readers never block writers.\n",
	"bread.md":  "# Sourdough\n\nFeed the starter flour and water every day, then bake the loaf hot.\n",
	"bike.md":   "# Flat tyre\n\nPatch the inner tube and pump it up before riding the bicycle.\n",
	"coffee.md": "# Espresso\n\nHot water is forced through finely ground coffee beans.\n",
	"whale.md":  "# Whales\n\nThe blue whale eats krill; it is the largest animal on earth.\n",
	"zh.md":     "# 数据库\n\n全文检索使用倒排索引。\n",
}

// prefetchEngine is an engine over prefetchCorpus with the installed
// models, synced and not yet embedded.
func prefetchEngine(t *testing.T) *Engine {
	t.Helper()
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, prefetchCorpus)
	e.Paths.ModelsDir = dir
	update(t, e)
	return e
}

func TestQueryVectorPrefetchSameResults(t *testing.T) {
	e := prefetchEngine(t)
	ctx := context.Background()
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	// Budgets lifted: a loaded test machine must not cut one run and not
	// the other.
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Search.Budgets = map[string]config.Duration{"fast": config.Duration(time.Minute), "default": config.Duration(time.Minute)}
		return nil
	})
	for _, q := range []string{"bicycle repair", "readers block writers", "how do I bake bread", "数据库索引", "-coffee whale", "zzqx"} {
		for _, fast := range []bool{true, false} {
			req := QueryRequest{SearchRequest: SearchRequest{Query: q, Limit: 5, Explain: true}, Fast: fast}
			pre, seq, perr, serr := queryBothWays(t, e, req)
			if perr != nil || serr != nil {
				t.Fatalf("%q fast=%v: %v / %v", q, fast, perr, serr)
			}
			if stripTimings(t, pre) != stripTimings(t, seq) {
				t.Errorf("%q fast=%v: prefetched and sequential differ:\n%s\n%s", q, fast, pre, seq)
			}
		}
	}
	// The prefetched vector is the one the vector stage would make, bit
	// for bit.
	q := "fixing a flat bicycle tyre"
	qv := e.startQueryVector(ctx, q)
	if qv == nil {
		t.Fatal("no prefetch with an embedder and vectors")
	}
	emb, _ := e.models.Embedder(ctx)
	got, ok, err := qv.vector(ctx, emb)
	if !ok || err != nil {
		t.Fatalf("prefetched vector: ok=%v %v", ok, err)
	}
	want, err := embedQuery(ctx, emb, q)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("prefetched vector differs from a fresh embedding (%v)", err)
	}
	// A vector made before the budget ended is used after it: the work is
	// done, and only the graph search remains.
	bctx, bcancel := context.WithCancel(ctx)
	qv = e.startQueryVector(bctx, q)
	qv.wait()
	bcancel()
	if v, ok, err := qv.vector(bctx, emb); !ok || err != nil || !slices.Equal(v, want) {
		t.Fatalf("vector made in time not used after the budget: ok=%v %v", ok, err)
	}
	// A context that ends while the stage waits ends the wait with its
	// error, or with the vector if the pass began first and is done.
	cctx, cancel := context.WithCancel(ctx)
	qv = e.startQueryVector(cctx, q)
	cancel()
	if v, ok, err := qv.vector(cctx, emb); !ok || (err == nil && !slices.Equal(v, want)) {
		t.Fatalf("ended context: ok=%v %v", ok, err)
	}
	qv.wait()
	// Another model's vector is not used: the stage embeds then.
	qv = e.startQueryVector(ctx, q)
	qv.model = "another-model"
	if _, ok, _ := qv.vector(ctx, emb); ok {
		t.Fatal("another model's vector used")
	}
	qv.wait()
}

// stripTimings drops meta.timings, the one part of an answer that differs
// between two runs of the same query.
func stripTimings(t *testing.T, js string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	if meta, ok := m["meta"].(map[string]any); ok {
		delete(meta, "timings")
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestQueryVectorPrefetchDegradesAsBefore(t *testing.T) {
	e := prefetchEngine(t)
	ctx := context.Background()
	// Budgets lifted except where a test cuts one: a loaded test machine
	// must not cut one run and not the other.
	lift := func(c *config.Config) error {
		c.Search.Budgets = map[string]config.Duration{"fast": config.Duration(time.Minute)}
		return nil
	}
	e.UpdateConfig(ctx, lift)

	// Embedder installed but no vectors yet: no embedding is started, and
	// the answer says vectors are unavailable, as before.
	e.models.warm(ctx, false)
	if qv := e.startQueryVector(ctx, "bicycle repair"); qv != nil {
		qv.wait()
		t.Fatal("query embedded for an index without vectors")
	}
	req := QueryRequest{SearchRequest: SearchRequest{Query: "bicycle repair", Limit: 5}, Fast: true}
	pre, seq, perr, serr := queryBothWays(t, e, req)
	if perr != nil || serr != nil || pre != seq {
		t.Fatalf("no vectors: prefetched %s (%v), sequential %s (%v)", pre, perr, seq, serr)
	}
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}

	// A budget that ends before the embedding can begin cuts the stage,
	// with the same note.
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Search.Budgets = map[string]config.Duration{"fast": 1}
		return nil
	})
	pre, seq, perr, serr = queryBothWays(t, e, req)
	if perr != nil || serr != nil || pre != seq {
		t.Fatalf("1ns budget: prefetched %s (%v), sequential %s (%v)", pre, perr, seq, serr)
	}
	var res SearchResults
	json.Unmarshal([]byte(pre), &res)
	if res.Meta.VectorsUsed || !slices.Contains(res.Meta.Notes, "vector search cut: budget exceeded") {
		t.Fatalf("1ns budget: %+v", res.Meta)
	}

	// An embedder that fails (its session closed under it) fails the
	// query with the same error both ways.
	e.UpdateConfig(ctx, lift)
	emb, err := e.models.Embedder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := emb.(io.Closer)
	if !ok {
		t.Skipf("%T cannot be closed", emb)
	}
	e.models.warm(ctx, false) // the graph is loaded before the session goes
	c.Close()
	_, seq, perr, serr = queryBothWays(t, e, req)
	if perr == nil || serr == nil || perr.Error() != serr.Error() {
		t.Fatalf("failed embedder: prefetched %v, sequential %v %s", perr, serr, seq)
	}
}

// TestPrefetchedVectorOutlivesBudget: a prefetched pass that began within
// the budget is searched after the budget ends (BM25 may run past it),
// whereas an embedding the stage would start then is refused.
func TestPrefetchedVectorOutlivesBudget(t *testing.T) {
	e := prefetchEngine(t)
	ctx := context.Background()
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	e.models.warm(ctx, false)
	budget, cancel := context.WithTimeout(ctx, time.Minute)
	qv := e.startQueryVector(budget, "bicycle repair")
	if qv == nil {
		t.Fatal("no embedding started")
	}
	qv.wait()
	cancel() // the budget ends, as when BM25 runs past it
	hits, err := e.vectorHitsFor(budget, ctx, "bicycle repair", qv, store.Filter{}, 3)
	if err != nil || len(hits) == 0 || hits[0].DocID == 0 {
		t.Fatalf("prefetched vector after the budget: %v, %v", hits, err)
	}
	want, err := e.vectorHits(ctx, "bicycle repair", store.Filter{}, 3)
	if err != nil || !slices.EqualFunc(hits, want, func(a, b hit) bool { return a.DocID == b.DocID && a.Score == b.Score }) {
		t.Fatalf("prefetched %v, embedded now %v (%v)", hits, want, err)
	}
	if _, err := e.vectorHitsFor(budget, ctx, "bicycle repair", nil, store.Filter{}, 3); err == nil {
		t.Fatal("an embedding begun after the budget was not refused")
	}
}

// wait returns once the embedding has finished (tests only).
//
// Query does not wait: when the vector stage did not take the vector (a
// budget cut, an error before it), the pass finishes on its own, and the
// model's close waits for it. The query's cancel, on its return, stops a
// pass that has not begun.
func (qv *queryVector) wait() {
	if qv != nil {
		<-qv.done
	}
}
