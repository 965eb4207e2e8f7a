package retrieval

import (
	"context"
	"os"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestVectorsSearchedByTheStore: over a backend that searches its own
// vectors (Postgres's HNSW index), the engine saves no graph, vector and
// hybrid searches say so in meta (vectorIndex "store", "graph" on SQLite)
// and find what the graph finds on SQLite, and related notes work. It
// skips, saying why, without a PostgreSQL or the embedding model.
func TestVectorsSearchedByTheStore(t *testing.T) {
	pgtest.SkipOnPostgres(t, "it compares a SQLite index with a Postgres one itself")
	pgtest.URL(t) // skips when there is no server
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	t.Setenv(StoreURLEnv, "")
	files := map[string]string{
		"a.md": "# Volcanoes\n\nMagma erupts as lava and ash.\n",
		"b.md": "# Espresso\n\nHot water through ground coffee.\n",
		"c.md": "# Whales\n\nThe blue whale eats krill.\n",
		"d.md": "# Bicycles\n\nPatch the inner tube of a flat tyre.\n",
	}
	ctx := context.Background()
	open := func(storeURL string) *Engine {
		e, _ := newEngine(t, files)
		e.Paths.ModelsDir = dir
		if err := e.UpdateConfig(ctx, func(c *config.Config) error { c.Store = storeURL; return nil }); err != nil {
			t.Fatal(err)
		}
		update(t, e)
		if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	sq, pg := open(""), open(pgtest.Fresh(t))
	if _, err := os.Stat(pg.graphFile(pg.models.EmbedModel())); err == nil {
		t.Error("a graph was saved for an index whose store searches its vectors")
	}
	for _, q := range []string{"volcano eruption", "fixing a bike", "coffee"} {
		a, err := sq.VSearch(ctx, SearchRequest{Query: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, err := pg.VSearch(ctx, SearchRequest{Query: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if a.Meta.VectorIndex != "graph" || b.Meta.VectorIndex != "store" {
			t.Errorf("vectorIndex: sqlite %q, postgres %q", a.Meta.VectorIndex, b.Meta.VectorIndex)
		}
		if len(a.Results) == 0 || len(b.Results) != len(a.Results) || a.Results[0].URI != b.Results[0].URI {
			t.Fatalf("%q: sqlite %+v, postgres %+v", q, a.Results, b.Results)
		}
	}
	res, err := pg.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "whale food", Limit: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Meta.VectorsUsed || res.Meta.VectorIndex != "store" || len(res.Results) == 0 || res.Results[0].Title != "Whales" {
		t.Errorf("query on postgres: %+v %+v", res.Meta, res.Results)
	}
}
