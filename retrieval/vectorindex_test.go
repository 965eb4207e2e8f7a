package retrieval

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestVectorGraphUpgradesAndHeals: a graph file in the first format (as
// gno wrote it before int8 codes) is converted in place by the next
// search, which answers as before; a truncated file is rebuilt from the
// stored vectors. (Damage in links, which only a walk reads, is
// vector.ErrDamaged: TestGraphRefusesDamage; the search that meets it
// drops the file, dropDamaged, but a corpus this small is scanned, not
// walked.)
func TestVectorGraphUpgradesAndHeals(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the graph file is the SQLite index's; on Postgres pgvector's HNSW index replaces it")
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, map[string]string{
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
	model := e.models.EmbedModel()
	path := e.graphFile(model)
	search := func(what string) string {
		t.Helper()
		fresh := otherProcess(t, dir) // another process: loads the file
		defer fresh.Close()
		res, err := fresh.VSearch(ctx, SearchRequest{Query: "volcano eruption", Limit: 3})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(res.Results) != 3 || res.Results[0].URI != "gno://notes/a.md" {
			t.Fatalf("%s: %+v", what, res.Results)
		}
		b, _ := os.ReadFile(path)
		if !bytes.HasPrefix(b, []byte("gno-hnsw-v2\n")) {
			t.Fatalf("%s: the graph file is not in format 2 (%d bytes)", what, len(b))
		}
		return res.Results[0].URI
	}
	search("as embedded")
	st, err := e.store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var keys []int64
	var vecs [][]float32
	if err := st.EachVector(ctx, model, -1, func(id int64, v []float32) {
		keys = append(keys, id)
		vecs = append(vecs, v)
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, firstFormat(model, keys, vecs), 0o644); err != nil {
		t.Fatal(err)
	}
	search("after the upgrade")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-10], 0o644)
	search("after truncation")
}

// firstFormat is a graph file in the first format: every node on level
// 0 only, linked to every other.
func firstFormat(model string, keys []int64, vecs [][]float32) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	n := len(keys)
	b.WriteString("gno-hnsw-v1\n")
	for _, v := range []int32{int32(len(vecs[0])), 16, 128, 0, 0, int32(n), 0, int32(len(model))} {
		binary.Write(&b, le, v)
	}
	b.WriteString(model)
	binary.Write(&b, le, keys)
	b.Write(make([]byte, n)) // none deleted
	for _, v := range vecs {
		for _, x := range v {
			binary.Write(&b, le, math.Float32bits(x))
		}
	}
	b.Write(bytes.Repeat([]byte{1}, n)) // one level each
	for i := range n {
		binary.Write(&b, le, uint16(n-1))
		for j := range n {
			if j != i {
				binary.Write(&b, le, int32(j))
			}
		}
	}
	return b.Bytes()
}

// TestVectorGoneSurvivesRestart: above the size where any process saves
// its changes, the first process after a deletion finds it by reading
// every live id and leaves the keys beside the graph (.gone); the next
// process reads that list instead, and answers without the deleted
// document; a damaged list is dropped and found again the long way.
func TestVectorGoneSurvivesRestart(t *testing.T) {
	pgtest.SkipOnPostgres(t, "an index on a server keeps no graph file, so no tombstone list: TestVectorGoneAnyProcess checks its answers there")
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	defer func(n int) { saveAllBelow = n }(saveAllBelow)
	saveAllBelow = 0 // as a graph of more than 100,000 vectors
	e, root := lavaNotes(t, dir)
	ctx := context.Background()
	gone := e.graphFile(e.models.EmbedModel()) + ".gone"
	if err := os.Remove(filepath.Join(root, "b.md")); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	search := func(what string, scans int64) {
		t.Helper()
		before := fullScans.Load()
		fresh := otherProcess(t, dir) // another process
		defer fresh.Close()
		res, err := fresh.VSearch(ctx, SearchRequest{Query: "volcano lava", Limit: 3})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(res.Results) != 3 {
			t.Fatalf("%s: %d results", what, len(res.Results))
		}
		for _, r := range res.Results {
			if r.URI == "gno://notes/b.md" {
				t.Fatalf("%s: the deleted document was found", what)
			}
		}
		if got := fullScans.Load() - before; got != scans {
			t.Errorf("%s: %d reads of every id, want %d", what, got, scans)
		}
		if _, err := os.Stat(gone); err != nil {
			t.Errorf("%s: no tombstone list: %v", what, err)
		}
	}
	search("first process after the deletion", 1)
	search("after a restart", 0)
	b, err := os.ReadFile(gone)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	os.WriteFile(gone, b, 0o644)
	search("with a damaged list", 1)
	search("after it was written again", 0)
}

// TestVectorGoneAnyProcess: a document deleted by one process's sync is
// never found by another process's vector search, on either store; on a
// server store (pgvector's index answers, nothing is kept beside the
// index) that costs no read of every vector id and leaves no graph file.
func TestVectorGoneAnyProcess(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, root := lavaNotes(t, dir)
	ctx := context.Background()
	server := e.vectorSearcher(ctx) != nil
	other := otherProcess(t, dir) // another process, searching before and after
	defer other.Close()
	search := func(what string, e *Engine, wantB bool) {
		t.Helper()
		before := fullScans.Load()
		res, err := e.VSearch(ctx, SearchRequest{Query: "volcano lava", Limit: 4})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		found := false
		for _, r := range res.Results {
			found = found || r.URI == "gno://notes/b.md"
		}
		if found != wantB {
			t.Fatalf("%s: b.md found %v, want %v (%d results)", what, found, wantB, len(res.Results))
		}
		if server && fullScans.Load() != before {
			t.Errorf("%s: a server store's search read every vector id", what)
		}
	}
	search("before the deletion", other, true)
	if err := os.Remove(filepath.Join(root, "b.md")); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	search("the process that had searched before", other, false)
	fresh := otherProcess(t, dir)
	defer fresh.Close()
	search("a new process", fresh, false)
	if server {
		if _, err := os.Stat(e.graphFile(e.models.EmbedModel())); !os.IsNotExist(err) {
			t.Errorf("a server store left a graph file: %v", err)
		}
	}
}

// lavaNotes is an engine over four notes, two about lava (b.md one of
// them), synced and embedded with the models in dir.
func lavaNotes(t *testing.T, dir string) (*Engine, string) {
	t.Helper()
	e, root := newEngine(t, map[string]string{
		"a.md": "# Volcanoes\n\nMagma erupts as lava and ash.\n",
		"b.md": "# Lava lakes\n\nA lava lake is molten lava in a volcanic crater.\n",
		"c.md": "# Espresso\n\nHot water through ground coffee.\n",
		"d.md": "# Whales\n\nThe blue whale eats krill.\n",
	})
	e.Paths.ModelsDir = dir
	update(t, e)
	if _, err := e.Embed(context.Background(), EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	return e, root
}

// otherProcess opens the index again, as another process would, with
// the models in dir.
func otherProcess(t *testing.T, dir string) *Engine {
	t.Helper()
	o, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.Paths.ModelsDir = dir
	return o
}
