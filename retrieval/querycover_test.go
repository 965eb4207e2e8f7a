package retrieval

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// In a package-docs index a unit without a vector (a standard library,
// a version still embedding) competes with embedded ones on the same
// scale: here the only keyword match, in a collection left unembedded,
// comes first in fast mode and the meta says why. In the notes index
// the rule does not apply, and the same document, which only BM25 can
// find, stays below the vector list's first. Real SQLite, the installed
// embedder.
func TestFastFusionCoversUnembedded(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the test makes a notes index act as a package-docs one, which is always a SQLite file")
	e := prefetchEngine(t) // embedded collection "notes", none of the query's words
	std := t.TempDir()
	write(t, std, "atoi.md", "# Atoi\n\nAtoi parses a decimal string into an integer.\n")
	ctx := context.Background()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "Std", Path: std})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	if er, err := e.Embed(ctx, EmbedOptions{Skip: []string{"std"}}); err != nil || er.Embedded == 0 || er.Embedded != er.Total {
		t.Fatalf("embed: %+v %v", er, err)
	}
	req := QueryRequest{SearchRequest: SearchRequest{Query: "parse a decimal string into an integer", Limit: 4, Explain: true}, Fast: true}
	run := func(pkgs bool) *SearchResults {
		t.Helper()
		e.pkgs = pkgs
		defer func() { e.pkgs = false }()
		res, err := e.Query(ctx, req)
		if err != nil || !res.Meta.VectorsUsed || len(res.Results) < 2 {
			t.Fatalf("pkgs=%v: %+v %v", pkgs, res, err)
		}
		return res
	}
	const atoi = "gno://std/atoi.md"
	res := run(true)
	if got := res.Results[0]; got.URI != atoi || got.Score != 1 || got.Explain.VectorRank != 0 || got.Explain.BM25Rank != 1 {
		t.Fatalf("package index: first %s score %v explain %+v, want %s at 1 from BM25 alone", got.URI, got.Score, got.Explain, atoi)
	}
	if !strings.Contains(strings.Join(res.Meta.Notes, "\n"), "no vector") {
		t.Errorf("notes do not say the rule applied: %q", res.Meta.Notes)
	}
	res = run(false)
	if res.Results[0].URI == atoi {
		t.Errorf("notes index: %s first, want the vector list's first above it", atoi)
	}
	for _, n := range res.Meta.Notes {
		if strings.Contains(n, "no vector") {
			t.Errorf("notes index says %q", n)
		}
	}
}
