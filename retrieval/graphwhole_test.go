package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWhole: the whole graph names every document by a REF, keeps
// resolved and unresolved links and tags, carries PageRank, and its
// version moves when links change and not when only text does.
func TestWhole(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	w, err := e.Graph().Whole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := w.Input
	at := map[string]int{}
	for i, d := range in.Docs {
		at[d.ID] = i
		if _, err := e.Get(ctx, GetRequest{Ref: d.ID}); err != nil {
			t.Errorf("document ID %q is not a REF Get accepts: %v", d.ID, err)
		}
	}
	if len(in.Docs) != 9 || len(in.Rank) != len(in.Docs) {
		t.Fatalf("%d documents, %d ranks", len(in.Docs), len(in.Rank))
	}
	idx, alpha := at["notes/Index.md"], at["notes/Alpha.md"]
	if in.Docs[idx].Title != "Home" {
		t.Errorf("Index.md's title %q", in.Docs[idx].Title)
	}
	linked := false
	for _, l := range in.Links {
		if int(l.Src) == idx && int(l.Dst) == alpha {
			linked = true
		}
	}
	if !linked {
		t.Errorf("no link Index -> Alpha in %v", in.Links)
	}
	missing := false
	for _, u := range in.Unresolved {
		if int(u.Src) == idx && u.Target == "Missing" {
			missing = true
		}
	}
	if !missing {
		t.Errorf("unresolved links %v lack Missing", in.Unresolved)
	}
	if !(in.Rank[alpha] > in.Rank[at["notes/Lonely.md"]]) {
		t.Errorf("PageRank: Alpha %v, Lonely %v", in.Rank[alpha], in.Rank[at["notes/Lonely.md"]])
	}
	if again, _ := e.Graph().Whole(ctx); again != w {
		t.Error("Whole is not cached for an unchanged index")
	}

	// Text only: same version. A new link: a new version.
	write := func(rel, body string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		update(t, e)
		w, err := e.Graph().Whole(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return w.Version
	}
	if v := write("Gamma.md", "# Gamma\nA block ^blk1\nMore words, no links.\n"); v != w.Version {
		t.Errorf("a change of text changed the version: %s -> %s", w.Version, v)
	}
	v2 := write("Gamma.md", "---\ntags: [greek]\n---\n# Gamma\nA block ^blk1\nNow [[Lonely]].\n")
	if v2 == w.Version {
		t.Error("a new link kept the version")
	}
	w2, _ := e.Graph().Whole(ctx)
	if d := w2.Input.Docs[at["notes/Gamma.md"]]; len(d.Tags) != 1 || d.Tags[0] != "greek" {
		t.Errorf("Gamma's tags: %v", d.Tags)
	}
}
