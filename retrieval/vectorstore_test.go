package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestVectorGraphFollowsTheStore: an index copied to another store (gno
// store copy, then store: or GNO_STORE_URL in the same home) has other
// chunk ids there; the graph file the first store left in the index
// folder must not answer for the second, which would name other chunks.
func TestVectorGraphFollowsTheStore(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, root := newEngine(t, map[string]string{
		"a0.md": "# Gone\n\nA note removed before the copy, so that ids shift.\n",
		"a.md":  "# Volcanoes\n\nMagma erupts as lava and ash.\n",
		"b.md":  "# Espresso\n\nHot water through ground coffee.\n",
		"c.md":  "# Whales\n\nThe blue whale eats krill.\n",
	})
	e.Paths.ModelsDir = dir
	ctx := context.Background()
	update(t, e)
	os.Remove(filepath.Join(root, "a0.md"))
	update(t, e)
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	first := func(e *Engine) string {
		t.Helper()
		res, err := e.VSearch(ctx, SearchRequest{Query: "volcano eruption", Limit: 3})
		if err != nil || len(res.Results) == 0 {
			t.Fatalf("vsearch: %+v %v", res, err)
		}
		return res.Results[0].URI
	}
	if got := first(e); got != "gno://notes/a.md" {
		t.Fatalf("before the copy: %s first", got)
	}
	dst := pgtest.Fresh(t)
	if _, err := CopyStore(ctx, e.location(), dst, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	t.Setenv(StoreURLEnv, dst)
	moved, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer moved.Close()
	moved.Paths.ModelsDir = dir
	if got := first(moved); got != "gno://notes/a.md" {
		t.Fatalf("after the move: %s first (the first store's graph answered)", got)
	}
}
