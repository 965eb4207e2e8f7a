package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// TestWholeSampled: above maxWholeDocs the whole graph keeps the notes of
// highest PageRank and only the links among them, and says how many the
// index holds.
func TestWholeSampled(t *testing.T) {
	e, _ := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	full, err := e.Graph().Whole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := maxWholeDocs
	maxWholeDocs = 4
	defer func() { maxWholeDocs = old }()
	e.Graph().whole.g = nil // forget the cached full graph
	w, err := e.Graph().Whole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Input.Docs) != 4 || w.Total != len(full.Input.Docs) {
		t.Fatalf("%d documents of %d, want 4 of %d", len(w.Input.Docs), w.Total, len(full.Input.Docs))
	}
	rank := map[string]float64{}
	for i, d := range full.Input.Docs {
		rank[d.ID] = full.Input.Rank[i]
	}
	kept := map[string]bool{}
	least := rank[w.Input.Docs[0].ID]
	for _, d := range w.Input.Docs {
		kept[d.ID] = true
		least = min(least, rank[d.ID])
	}
	for id, r := range rank {
		if !kept[id] && r > least {
			t.Errorf("%s (PageRank %v) left out, %v kept", id, r, least)
		}
	}
	for _, l := range w.Input.Links {
		if int(l.Src) >= len(w.Input.Docs) || int(l.Dst) >= len(w.Input.Docs) {
			t.Errorf("link %v points outside the sample", l)
		}
	}
	// The sample is the whole graph cut to its documents: the same
	// documents in the same order, and the links and broken links among
	// them in the same order (the sample reads only its own names and
	// broken links).
	got, want := cutWhole(w, full)
	if !reflect.DeepEqual(got, want) || len(want.broken) == 0 {
		t.Fatalf("sample:\n%v\nwhole cut to it:\n%v", got, want)
	}
}

// wholeCut is a whole graph's documents, links and broken links as text.
type wholeCut struct{ docs, links, broken []string }

// cutWhole returns w as text, and full cut to w's documents (the links
// and broken links among them) in the same terms: a sample of full
// equals it so cut.
func cutWhole(w, full *WholeGraph) (got, want wholeCut) {
	at := map[string]int32{}
	for i, d := range w.Input.Docs {
		at[d.ID] = int32(i)
	}
	for _, d := range full.Input.Docs {
		if _, ok := at[d.ID]; ok {
			want.docs = append(want.docs, fmt.Sprintf("%+v", d))
		}
	}
	for _, l := range full.Input.Links {
		a, okA := at[full.Input.Docs[l.Src].ID]
		b, okB := at[full.Input.Docs[l.Dst].ID]
		if okA && okB {
			want.links = append(want.links, fmt.Sprint(a, b))
		}
	}
	for _, u := range full.Input.Unresolved {
		if a, ok := at[full.Input.Docs[u.Src].ID]; ok {
			want.broken = append(want.broken, fmt.Sprint(a, u.Target))
		}
	}
	for _, d := range w.Input.Docs {
		got.docs = append(got.docs, fmt.Sprintf("%+v", d))
	}
	for _, l := range w.Input.Links {
		got.links = append(got.links, fmt.Sprint(l.Src, l.Dst))
	}
	for _, u := range w.Input.Unresolved {
		got.broken = append(got.broken, fmt.Sprint(u.Src, u.Target))
	}
	return got, want
}
