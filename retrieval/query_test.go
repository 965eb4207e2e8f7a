package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

func TestQueryWithoutVectorsDegrades(t *testing.T) {
	e, _ := newEngine(t, corpus)
	t.Setenv("GNO_MODELS_DIR", t.TempDir()) // no models at all
	e.Paths.ModelsDir = os.Getenv("GNO_MODELS_DIR")
	update(t, e)
	ctx := context.Background()
	res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "readers writers", Limit: 5}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Meta
	if m.Mode != "bm25_only" || m.VectorsUsed || m.Reranked || m.Expanded || len(res.Results) == 0 {
		t.Fatalf("meta: %+v", m)
	}
	res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "readers writers"}, Thorough: true})
	if err != nil || res.Meta.Expanded {
		t.Fatalf("thorough without expander: %+v %v", res.Meta, err)
	}
	if _, err := e.VSearch(ctx, SearchRequest{Query: "readers"}); gnoerr.CodeOf(err) != gnoerr.Unavailable {
		t.Fatalf("vsearch without model: %v", err)
	}
}

// installedModels returns the model cache when the default embedder is
// installed (`make models`); tests that need real models skip otherwise.
func installedModels(t *testing.T) string {
	t.Helper()
	dir, err := models.DefaultDir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := (models.Cache{Dir: dir}).Installed(models.DefaultEmbedder); err != nil {
		t.Skipf("%s not installed (run `make models`): %v", models.DefaultEmbedder, err)
	}
	return dir
}

func TestHybridQueryWithRealModel(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, map[string]string{
		"wal.md":   "# Write-ahead logging\n\nSQLite appends changes to a log so readers never block writers.\n",
		"bread.md": "# Sourdough\n\nFeed the starter flour and water every day.\n",
		"bike.md":  "# Flat tyre\n\nPatch the inner tube and pump it up.\n",
	})
	e.Paths.ModelsDir = dir
	update(t, e)
	ctx := context.Background()
	er, err := e.Embed(ctx, EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if er.Embedded != 3 || er.Total != 3 {
		t.Fatalf("embed: %+v", er)
	}
	// Resumable: nothing left to do.
	if er, _ := e.Embed(ctx, EmbedOptions{}); er.Embedded != 0 {
		t.Fatalf("second embed did work: %+v", er)
	}
	vs, err := e.VSearch(ctx, SearchRequest{Query: "baking bread at home", Limit: 3})
	if err != nil || len(vs.Results) == 0 || vs.Results[0].URI != "gno://notes/bread.md" || vs.Meta.Mode != "vector" {
		t.Fatalf("vsearch: %+v %v", vs, err)
	}
	for _, r := range vs.Results {
		if r.Score < 0 || r.Score > 1 {
			t.Fatalf("score out of range: %v", r.Score)
		}
	}
	res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "bicycle repair", Limit: 3, Explain: true}, Fast: true})
	if err != nil || res.Meta.Mode != "hybrid" || !res.Meta.VectorsUsed || res.Results[0].URI != "gno://notes/bike.md" {
		t.Fatalf("fast query: %+v %v", res, err)
	}
	if res.Results[0].Explain == nil || res.Results[0].Explain.VectorRank != 1 {
		t.Fatalf("explain: %+v", res.Results[0].Explain)
	}
	// A budget too small for the vector stage cuts it and says so; BM25
	// still answers.
	e.UpdateConfig(ctx, func(c *config.Config) error {
		c.Search.Budgets = map[string]config.Duration{"fast": 1}
		return nil
	})
	res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "bicycle repair", Limit: 3}, Fast: true})
	if err != nil || res.Meta.VectorsUsed || len(res.Meta.Notes) == 0 {
		t.Fatalf("1ns budget: %+v %v", res.Meta, err)
	}
	// A filter applies before the top-k on the vector side too.
	vs, err = e.VSearch(ctx, SearchRequest{Query: "baking bread", Collection: "notes", TagsAny: []string{"none"}})
	if err != nil || len(vs.Results) != 0 {
		t.Fatalf("filtered vsearch: %+v %v", vs, err)
	}
	// The test cross-encoder is never used on user results.
	if _, err := (models.Cache{Dir: dir}).Installed("gno-test-cross-encoder"); err == nil {
		e.UpdateConfig(ctx, func(c *config.Config) error { c.Models.Rerank = "gno-test-cross-encoder"; return nil })
		res, err = e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "bicycle repair"}})
		if err != nil || res.Meta.Reranked {
			t.Fatalf("test reranker used: %+v %v", res.Meta, err)
		}
	}
}

func TestCorruptModelDegrades(t *testing.T) {
	dir := installedModels(t)
	// Copy the model with a corrupt graph into a private cache.
	priv := t.TempDir()
	src := filepath.Join(dir, models.DefaultEmbedder)
	dst := filepath.Join(priv, models.DefaultEmbedder)
	os.MkdirAll(dst, 0o755)
	ents, _ := os.ReadDir(src)
	for _, en := range ents {
		b, _ := os.ReadFile(filepath.Join(src, en.Name()))
		if en.Name() == models.ModelFile {
			b = b[:len(b)/3]
		}
		os.WriteFile(filepath.Join(dst, en.Name()), b, 0o644)
	}
	for _, f := range []string{"onnxruntime"} {
		os.Symlink(filepath.Join(dir, f), filepath.Join(priv, f))
	}
	t.Setenv("GNO_MODELS_DIR", priv)
	e, _ := newEngine(t, corpus)
	e.Paths.ModelsDir = priv
	update(t, e)
	res, err := e.Query(context.Background(), QueryRequest{SearchRequest: SearchRequest{Query: "readers"}})
	if err != nil || res.Meta.Mode != "bm25_only" || len(res.Results) == 0 {
		t.Fatalf("corrupt model: %+v %v", res, err)
	}
	if _, err := e.Embed(context.Background(), EmbedOptions{}); err == nil {
		t.Fatal("embed with a corrupt model succeeded")
	}
}

func TestVectorGraphPersistsAndFollowsChanges(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, root := newEngine(t, map[string]string{
		"a.md": "# Volcanoes\n\nMagma erupts as lava and ash.\n",
		"b.md": "# Espresso\n\nHot water through ground coffee.\n",
		"c.md": "# Whales\n\nThe blue whale eats krill.\n",
	})
	e.Paths.ModelsDir = dir
	ctx := context.Background()
	update(t, e)
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	// The graph file is the SQLite index's; on Postgres pgvector's HNSW
	// index stands in for it, and the rest of the test applies alike.
	if !pgtest.OnPostgres() {
		if _, err := os.Stat(e.graphFile(e.models.EmbedModel())); err != nil {
			t.Fatalf("graph not saved: %v", err)
		}
	}
	// Another process (a fresh engine) changes the corpus and re-embeds.
	e2, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	e2.Paths.ModelsDir = dir
	write(t, root, "b.md", "# Bicycles\n\nPatch the inner tube of a flat tyre.\n")
	os.Remove(filepath.Join(root, "a.md"))
	if _, err := e2.Update(ctx, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Before re-embedding, a loaded export must drop the deleted vectors.
	e4, _ := Open(ctx, Options{})
	e4.Paths.ModelsDir = dir
	res, err := e4.VSearch(ctx, SearchRequest{Query: "volcano eruption", Limit: 5})
	e4.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.URI != "gno://notes/c.md" {
			t.Fatalf("stale vector found: %+v", r)
		}
	}
	// The first engine, still open with its graph cached (a daemon, an
	// MCP server), must not search the stale graph either.
	if res, err = e.VSearch(ctx, SearchRequest{Query: "volcano eruption", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.URI != "gno://notes/c.md" {
			t.Fatalf("long-lived engine: stale vector found: %+v", r)
		}
	}
	if _, err := e2.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err = e.VSearch(ctx, SearchRequest{Query: "fixing a bike", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].URI != "gno://notes/b.md" {
		t.Fatalf("long-lived engine after another's embed: %+v", res.Results)
	}
	// A third engine loads the export and must see the new state only.
	e3, _ := Open(ctx, Options{})
	defer e3.Close()
	e3.Paths.ModelsDir = dir
	res, err = e3.VSearch(ctx, SearchRequest{Query: "fixing a bike", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].URI != "gno://notes/b.md" || res.Results[0].Title != "Bicycles" {
		t.Fatalf("after changes: %+v", res.Results)
	}
}

// TestCancelledOpenNotRemembered: a model open cut short by its caller
// (a client gone, a daemon's slice ending) is tried again, not
// remembered as broken for the life of the process.
func TestCancelledOpenNotRemembered(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	e.Paths.ModelsDir = dir
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Models().Embedder(ctx); err == nil {
		t.Skip("the open did not look at its context")
	}
	if _, err := e.Models().Embedder(context.Background()); err != nil {
		t.Fatalf("after a cancelled open: %v", err)
	}
}
