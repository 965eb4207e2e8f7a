package retrieval

import (
	"context"
	"maps"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestVersionsEmbedded: whether a version has vectors is read from the
// version (not from a search's hits), cached, and read again when the
// vectors change (an embedding run) or the version is replaced. Real
// SQLite, the installed embedder.
func TestVersionsEmbedded(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the models' folder is set on the opened engine")
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	pgtest.Home(t, t.TempDir())
	ctx := context.Background()
	p, err := OpenPackages(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	p.e.Paths.ModelsDir = dir
	pw, err := p.Writer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	put := func(key, name string) {
		t.Helper()
		v := &PackageVersion{Key: key, Ecosystem: "go", Name: name, Version: "1"}
		units := []UnitDoc{{Path: "a.md", Title: name + ".Run", Text: "Run runs the command.", Kind: "api", Symbol: name + ".Run"},
			{Path: "b.md", Title: name, Text: "Package " + name + " does things.", Kind: "doc"}}
		if err := pw.Put(ctx, v, units); err != nil {
			t.Fatal(err)
		}
	}
	put("go:dep@1", "dep")
	put("go:stdlib@1", "stdlib")
	keys := []string{"go:dep@1", "go:stdlib@1", "go:absent@1"}
	check := func(what string, want map[string]bool) {
		t.Helper()
		got, err := p.VersionsEmbedded(ctx, keys)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("%s: %v %v; want %v", what, got, err, want)
		}
	}
	check("none embedded", map[string]bool{"go:dep@1": false, "go:stdlib@1": false})
	if _, err := pw.Embed(ctx, EmbedOptions{Skip: []string{"go:stdlib@1"}}); err != nil {
		t.Fatal(err)
	}
	check("dependency embedded", map[string]bool{"go:dep@1": true, "go:stdlib@1": false})
	// Cached: an answer of the same state is not read again.
	p.embedded.mu.Lock()
	p.embedded.known["go:dep@1"] = false
	p.embedded.mu.Unlock()
	check("cached", map[string]bool{"go:dep@1": false, "go:stdlib@1": false})
	if _, err := pw.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	check("both embedded", map[string]bool{"go:dep@1": true, "go:stdlib@1": true})
	put("go:stdlib@1", "stdlib") // replaced: its new units have no vectors yet
	check("replaced", map[string]bool{"go:dep@1": true, "go:stdlib@1": false})
}
