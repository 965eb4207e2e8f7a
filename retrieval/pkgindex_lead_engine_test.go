package retrieval

import (
	"context"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// pflag's three look-alikes as the package index holds them: for "accept
// a time duration like 5s as a command line option" BM25 ranks DurationP
// first and the vectors rank it below DurationSliceP.
var leadCorpus = map[string]string{
	"durationp.md":      "# DurationP\n\nfunc\n\n```go\nfunc DurationP(name, shorthand string, value time.Duration, usage string) *time.Duration\n```\n\nDurationP is like Duration, but accepts a shorthand letter that can be used after a single dash.\n",
	"durationslicep.md": "# DurationSliceP\n\nfunc\n\n```go\nfunc DurationSliceP(name, shorthand string, value []time.Duration, usage string) *[]time.Duration\n```\n\nDurationSliceP is like DurationSlice, but accepts a shorthand letter that can be used after a single dash.\n",
	"durationvarp.md":   "# DurationVarP\n\nfunc\n\n```go\nfunc DurationVarP(p *time.Duration, name, shorthand string, value time.Duration, usage string)\n```\n\nDurationVarP is like DurationVar, but accepts a shorthand letter that can be used after a single dash.\n",
	"bread.md":          "# Sourdough\n\nFeed the starter flour and water every day, then bake the loaf hot.\n",
}

// TestPackageLead: in a package-docs index, fast mode puts BM25's first
// hit first when the vectors rank it near the top of its version but
// not first (fusion.Lead, nearInVersion); the notes index keeps plain
// RRF, where the vectors' first wins. A hit both lists rank first gets
// no lead and keeps score 1. Real SQLite, the installed embedder.
func TestPackageLead(t *testing.T) {
	e := pkgEngine(t, leadCorpus)
	embedNew(t, e)
	ctx := context.Background()
	run := func(q string, pkgs bool) *SearchResults {
		t.Helper()
		e.pkgs = pkgs
		defer func() { e.pkgs = false }()
		res, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: q, Limit: 4, Explain: true}, Fast: true})
		if err != nil || !res.Meta.VectorsUsed || len(res.Results) < 3 {
			t.Fatalf("pkgs=%v: %+v %v", pkgs, res, err)
		}
		return res
	}
	const first = "gno://notes/durationp.md"
	q := "accept a time duration like 5s as a command line option"
	notes := run(q, false)
	for _, r := range notes.Results {
		if r.URI == first && (r.Explain.BM25Rank != 1 || r.Explain.VectorRank < 2 || r.Explain.VectorRank > pkgLeadReach) {
			t.Fatalf("fixture: %s ranks bm25 %d, vector %d; want BM25's first, the vectors' 2nd to %d", first, r.Explain.BM25Rank, r.Explain.VectorRank, pkgLeadReach)
		}
	}
	if notes.Results[0].URI == first {
		t.Fatalf("notes index: %s first, want the vector list's first above it", first)
	}
	pkg := run(q, true)
	if got := pkg.Results[0]; got.URI != first || got.Score != 1 || got.Score <= pkg.Results[1].Score || !ledNote(pkg) {
		t.Fatalf("package index: first %s score %v (next %v), notes %q; want %s led, clamped to 1, and a note", got.URI, got.Score, pkg.Results[1].Score, pkg.Meta.Notes, first)
	}
	// The other results keep the scale they have without a lead.
	for i, r := range pkg.Results[1:] {
		for _, n := range notes.Results {
			if n.URI == r.URI && n.Score != r.Score {
				t.Fatalf("result %d %s: score %v with the lead, %v without", i+1, r.URI, r.Score, n.Score)
			}
		}
	}
	agree := run("a duration flag with a shorthand", true)
	if got := agree.Results[0]; got.URI != first || got.Score != 1 || got.Explain.VectorRank != 1 || got.Explain.BM25Rank != 1 || ledNote(agree) {
		t.Fatalf("both lists' first: %s score %v explain %+v notes %q, want %s at score 1, no lead", got.URI, got.Score, got.Explain, agree.Meta.Notes, first)
	}
}

// pkgEngine is a notes index over files, with the installed embedder,
// for a test that makes it act as a package-docs one (e.pkgs).
func pkgEngine(t *testing.T, files map[string]string) *Engine {
	t.Helper()
	pgtest.SkipOnPostgres(t, "the test makes a notes index act as a package-docs one, which is always a SQLite file")
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, files)
	e.Paths.ModelsDir = dir
	return e
}

// embedNew updates e and embeds what has no vector yet.
func embedNew(t *testing.T, e *Engine) {
	t.Helper()
	update(t, e)
	if er, err := e.Embed(context.Background(), EmbedOptions{}); err != nil || er.Embedded == 0 {
		t.Fatalf("embed: %+v %v", er, err)
	}
}

func ledNote(res *SearchResults) bool {
	for _, n := range res.Meta.Notes {
		if strings.Contains(n, "leads the fusion") {
			return true
		}
	}
	return false
}
