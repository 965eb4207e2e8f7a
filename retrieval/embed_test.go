package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// countingEmbedder stands in for the model where the test is about the
// order and the bookkeeping of a run, not the vectors: it records the
// texts it was given and returns a fixed unit vector.
type countingEmbedder struct {
	texts []string
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string, _ inference.TextKind) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.texts = append(c.texts, texts...)
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0, 0}
	}
	return out, nil
}
func (c *countingEmbedder) Dim() int        { return 4 }
func (c *countingEmbedder) ModelID() string { return "test-counting" }
func (c *countingEmbedder) Close() error    { return nil }

func TestOrderQueue(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	day := int64(24 * time.Hour)
	old := now.UnixNano() - 30*day
	q := []store.Queued{
		{ID: 1 << 16, Collection: "a", MtimeNS: old},
		{ID: 1<<16 | 1, Collection: "a", MtimeNS: old},
		{ID: 2 << 16, Collection: "b", MtimeNS: old - day},
		{ID: 3 << 16, Collection: "b", MtimeNS: old},
		{ID: 4 << 16, Collection: "a", MtimeNS: now.UnixNano() - day},   // edited yesterday
		{ID: 5 << 16, Collection: "c", MtimeNS: now.UnixNano() - 2*day}, // edited two days ago
		{ID: 5<<16 | 1, Collection: "c", MtimeNS: now.UnixNano() - 2*day},
		{ID: 6 << 16, Collection: "c", MtimeNS: old + day},
	}
	orderQueue(q, map[string]int64{"b": 10, "a": 3}, now)
	var got []int64
	for _, c := range q {
		got = append(got, c.ID)
	}
	// Recent edits first (newest first, a document's chunks together),
	// then collection b (queried most), a, c; newest first within each.
	want := []int64{4 << 16, 5 << 16, 5<<16 | 1, 3 << 16, 2 << 16, 1 << 16, 1<<16 | 1, 6 << 16}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order\n got %x\nwant %x", got, want)
	}
}

// TestEmbedOrderProgressAndStatus: a run embeds the collection searched
// most first, reports its progress after every batch (an ETA once two
// batches are timed), publishes it for status while it runs, and a run
// cut short resumes with what is left.
func TestEmbedOrderProgressAndStatus(t *testing.T) {
	pgtest.Home(t, t.TempDir())
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	old := time.Now().Add(-60 * 24 * time.Hour)
	dirs := map[string]string{}
	for _, col := range []string{"alpha", "beta"} {
		dir := t.TempDir()
		dirs[col] = dir
		for i := range 70 {
			name := filepath.Join(dir, fmt.Sprintf("%s-%02d.md", col, i))
			if err := os.WriteFile(name, []byte(fmt.Sprintf("# %s %d\n\nword%d %s text\n", col, i, i, col)), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(name, old, old)
		}
	}
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		for _, col := range []string{"alpha", "beta"} {
			if _, err := c.AddCollection(config.Collection{Name: col, Path: dirs[col]}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	// beta is searched three times, alpha once.
	for _, q := range []string{"beta", "beta", "beta", "alpha"} {
		if _, err := e.Search(ctx, SearchRequest{Query: q, Limit: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if c := e.queryCounts(); c["beta"] != 3 || c["alpha"] != 1 {
		t.Fatalf("query counts %v", c)
	}
	emb := &countingEmbedder{}
	w, err := e.Writer(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cut, cancel := context.WithCancel(ctx)
	var seen []EmbedProgress
	var during *Status
	_, err = w.embed(cut, emb, EmbedOptions{OnProgress: func(p EmbedProgress) {
		seen = append(seen, p)
		if len(seen) == 2 {
			// Another reader sees the run while it goes on.
			during, _ = e.Status(context.Background())
			cancel()
		}
	}}, time.Now())
	w.Close()
	if err == nil {
		t.Fatal("a cancelled run reported no error")
	}
	if len(seen) != 2 || seen[0].Total != 140 || seen[0].Done != 32 || seen[1].Done != 64 || seen[1].ETA <= 0 || seen[0].TotalBytes <= 0 {
		t.Fatalf("progress %+v", seen)
	}
	if during == nil || during.Embedding == nil || during.Embedding.Done != 32 || during.Embedding.Total != 140 || during.Embedding.Model != "test-counting" {
		t.Fatalf("status during the run: %+v", during)
	}
	// The first 64 chunks are beta's (searched most).
	if len(emb.texts) != 64 {
		t.Fatalf("%d texts embedded", len(emb.texts))
	}
	for i, text := range emb.texts {
		if !strings.Contains(text, "beta") {
			t.Fatalf("chunk %d embedded before beta was done: %q", i, text)
		}
	}
	// The cut run kept what it left for the next one, which takes it
	// without reading the queue again (the daemon's slices).
	if n := len(e.embedQueue.q); n != 140-64 {
		t.Fatalf("kept queue of %d", n)
	}
	// Resumed: only what is left.
	emb2 := &countingEmbedder{}
	w, err = e.Writer(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.embed(ctx, emb2, EmbedOptions{}, time.Now())
	w.Close()
	if err != nil || res.Embedded != 140-64 || len(emb2.texts) != 140-64 || res.Total != 140 {
		t.Fatalf("resumed run %+v %v (%d texts)", res, err, len(emb2.texts))
	}
	if e.embedQueue.q != nil {
		t.Fatalf("a finished run kept a queue of %d", len(e.embedQueue.q))
	}
	// A sync between two runs makes the next one read the queue afresh
	// (a queue kept before it names no chunk there is now).
	st, err := e.store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.embedQueue.put(embedQueueKey(ctx, st, "test-counting", "", nil), []store.Queued{{ID: 1}})
	if err := os.WriteFile(filepath.Join(dirs["alpha"], "new.md"), []byte("# new\n\nfresh alpha text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	emb3 := &countingEmbedder{}
	w, err = e.Writer(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res, err = w.embed(ctx, emb3, EmbedOptions{}, time.Now())
	w.Close()
	if err != nil || res.Embedded != 1 || !strings.Contains(emb3.texts[0], "fresh alpha") {
		t.Fatalf("after a sync: %+v %v %q", res, err, emb3.texts)
	}
	// (status counts the configured model's vectors, not this stand-in's.)
	if s, err := e.Status(ctx); err != nil || s.Embedding != nil {
		t.Fatalf("status after the run: %+v %v", s.Embedding, err)
	}
}

// TestQueryCountsSurviveClose: counts kept in memory reach the file when
// the engine closes, and the next process reads them.
func TestQueryCountsSurviveClose(t *testing.T) {
	e, _ := newEngine(t, map[string]string{"a.txt": "apples and pears\n"})
	update(t, e)
	ctx := context.Background()
	for range 3 {
		if _, err := e.Search(ctx, SearchRequest{Query: "apples", Limit: 5}); err != nil {
			t.Fatal(err)
		}
	}
	// A search finding nothing counts for no collection.
	if _, err := e.Search(ctx, SearchRequest{Query: "zebra", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e2, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if c := e2.queryCounts(); c["notes"] != 3 || len(c) != 1 {
		t.Fatalf("counts after a restart: %v", c)
	}
}

// TestSearchSaysHowMuchIsEmbedded: while a backlog is being embedded,
// vector and hybrid searches work and say how much of the index the
// vectors cover; once it is done they say nothing.
func TestSearchSaysHowMuchIsEmbedded(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("n%02d.txt", i)] = fmt.Sprintf("note %d about topic%d and the sea\n", i, i)
	}
	e, _ := newEngine(t, files)
	e.Paths.ModelsDir = dir
	update(t, e)
	ctx := context.Background()
	cut, cancel := context.WithCancel(ctx)
	if _, err := e.Embed(cut, EmbedOptions{Progress: func(done, total int) { cancel() }}); err == nil {
		t.Fatal("the cut run reported no error")
	}
	res, err := e.VSearch(ctx, SearchRequest{Query: "the sea", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Meta.Embedded; c == nil || c.Vectors != 32 || c.Chunks != 40 || len(res.Meta.Notes) == 0 || !strings.Contains(res.Meta.Notes[len(res.Meta.Notes)-1], "32 of 40 chunks") {
		t.Fatalf("partial: %+v", res.Meta)
	}
	q, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "the sea", Limit: 5}})
	if err != nil || q.Meta.Embedded == nil {
		t.Fatalf("hybrid, partial: %+v %v", q.Meta, err)
	}
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := e.VSearch(ctx, SearchRequest{Query: "the sea", Limit: 5}); err != nil || res.Meta.Embedded != nil {
		t.Fatalf("complete: %+v %v", res.Meta, err)
	}
}
