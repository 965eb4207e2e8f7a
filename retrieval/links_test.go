package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

var vault = map[string]string{
	"Index.md": "---\ntitle: Home\nrel: \"[[FrontMatter]]\"\n---\n# Home\n" +
		"[[Alpha]] and [[ALPHA|shouting]] and [[Beta#Part Two]] and [[Gamma#^blk1]]\n" +
		"![[Pic.png]] ![[Alpha#Intro]]\n" +
		"[spaced](sub/My%20Note.md#Top) and [[My Note]]\n" +
		"`[[InCode]]` and [[Missing]] and [[Index#Self]] and [[Nick]] and [[Dup]]\n" +
		"```\n[[Fenced]]\n```\n" +
		"[txt](data/list.txt) [web](https://example.org/x.md)\n",
	"Alpha.md":       "# Alpha\nBack to [[Index]].\n",
	"Beta.md":        "---\naliases: [Nick, Bee]\n---\n# Beta\n## Part Two\nSee [[Alpha]].\n",
	"Gamma.md":       "# Gamma\nA block ^blk1\n",
	"sub/My Note.md": "# My Note\n[up](../Alpha.md)\n",
	"a/Dup.md":       "# Dup A\n",
	"b/c/Dup.md":     "# Dup BC\n",
	"data/list.txt":  "not markdown\n",
	"Lonely.md":      "# Lonely\nNo links at all.\n",
}

func outTargets(t *testing.T, e *Engine, ref string) map[string]string {
	t.Helper()
	res, err := e.Graph().Links(context.Background(), LinksRequest{Ref: ref, Direction: "out"})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range res.Outgoing {
		k := l.Kind + ":" + l.Target
		if l.Fragment != "" {
			k += "#" + l.Fragment
		}
		v := l.URI
		if l.Attachment {
			v = "attachment"
		}
		m[k] = v
	}
	return m
}

func TestLinkEdgeCases(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	got := outTargets(t, e, "notes/Index.md")
	want := map[string]string{
		"wiki:Alpha": "gno://notes/Alpha.md", "wiki:ALPHA": "gno://notes/Alpha.md",
		"wiki:Beta#Part Two": "gno://notes/Beta.md", "wiki:Gamma#^blk1": "gno://notes/Gamma.md",
		"embed:Pic.png": "attachment", "embed:Alpha#Intro": "gno://notes/Alpha.md",
		"markdown:sub/My Note.md#Top": "gno://notes/sub/My%20Note.md", "wiki:My Note": "gno://notes/sub/My%20Note.md",
		"wiki:Missing": "", "wiki:Index#Self": "gno://notes/Index.md", "wiki:Nick": "gno://notes/Beta.md",
		"wiki:Dup": "gno://notes/a/Dup.md", "markdown:data/list.txt": "gno://notes/data/list.txt",
	}
	if len(got) != len(want) {
		t.Errorf("links: got %d %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s -> %q, want %q", k, got[k], v)
		}
	}
	res, _ := e.Graph().Links(ctx, LinksRequest{Ref: "notes/Index.md"})
	for _, l := range res.Outgoing {
		if l.Target == "Missing" && l.Line != 9 {
			t.Errorf("Missing is on line %d, want 9", l.Line)
		}
	}
	// Backlinks of Alpha: Index (3 links), Beta, My Note.
	in, _ := e.Graph().Links(ctx, LinksRequest{Ref: "notes/Alpha.md", Direction: "in"})
	var srcs []string
	for _, l := range in.Incoming {
		srcs = append(srcs, l.URI)
	}
	if strings.Join(srcs, " ") != "gno://notes/Beta.md gno://notes/Index.md gno://notes/Index.md gno://notes/Index.md gno://notes/sub/My%20Note.md" {
		t.Errorf("backlinks of Alpha: %v", srcs)
	}
	un, _ := e.Graph().Unresolved(ctx, UnresolvedRequest{Collection: "", Limit: 0})
	if len(un) != 1 || un[0].Target != "Missing" {
		t.Errorf("unresolved: %+v", un)
	}
	st, _ := e.Status(ctx)
	if st.UnresolvedLinks != 1 {
		t.Errorf("status unresolved %d", st.UnresolvedLinks)
	}
	orph, _ := e.Graph().Orphans(ctx, OrphansRequest{Limit: 0})
	var on []string
	for _, o := range orph {
		on = append(on, o.URI)
	}
	sort.Strings(on)
	if strings.Join(on, " ") != "gno://notes/Lonely.md gno://notes/b/c/Dup.md" {
		t.Errorf("orphans %v", on)
	}

	// A new note resolves the links waiting for it.
	write(t, root, "Missing.md", "# Found\n")
	update(t, e)
	if got := outTargets(t, e, "notes/Index.md")["wiki:Missing"]; got != "gno://notes/Missing.md" {
		t.Errorf("after adding Missing.md: %q", got)
	}
	// A shorter note of the same name takes over [[Dup]].
	write(t, root, "Dup.md", "# Dup top\n")
	update(t, e)
	if got := outTargets(t, e, "notes/Index.md")["wiki:Dup"]; got != "gno://notes/Dup.md" {
		t.Errorf("after adding Dup.md: %q", got)
	}
	// Deleting a note leaves its incoming links unresolved.
	os.Remove(filepath.Join(root, "Alpha.md"))
	update(t, e)
	if got := outTargets(t, e, "notes/Index.md")["wiki:Alpha"]; got != "" {
		t.Errorf("after deleting Alpha: %q", got)
	}
	un, _ = e.Graph().Unresolved(ctx, UnresolvedRequest{Collection: "notes", Limit: 0})
	if len(un) != 5 { // 3 in Index, 1 in Beta, 1 in My Note
		t.Errorf("unresolved after delete: %d %+v", len(un), un)
	}
	// An alias removed from front matter stops resolving.
	write(t, root, "Beta.md", "# Beta\n## Part Two\n")
	update(t, e)
	if got := outTargets(t, e, "notes/Index.md")["wiki:Nick"]; got != "" {
		t.Errorf("after dropping the alias: %q", got)
	}
}

func TestRenameAndNoteEdits(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	crlf := "---\r\ntitle: Win  \r\ntags:   [a,  b]\r\nother: x\r\n---\r\nSee [[My Note]] and [m](sub/My%20Note.md).\r\n"
	write(t, root, "Win.md", crlf)
	update(t, e)
	before, _ := os.ReadFile(filepath.Join(root, "Index.md"))

	_, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/sub/My Note.md", NewPath: "other/Renamed.md", UpdateLinks: false})
	if gnoerr.CodeOf(err) != gnoerr.LinkIntegrity {
		t.Fatalf("rename without updateLinks: %v", err)
	}
	// The move breaks [[My Note]] (new name) and the path links.
	res, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/sub/My Note.md", NewPath: "other/Renamed.md", UpdateLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.LinksUpdated != 4 || len(res.FilesUpdated) != 2 {
		t.Errorf("rename result %+v", res)
	}
	after, _ := os.ReadFile(filepath.Join(root, "Index.md"))
	wantIdx := strings.Replace(strings.Replace(string(before), "[[My Note]]", "[[Renamed]]", 1), "(sub/My%20Note.md#Top)", "(other/Renamed.md#Top)", 1)
	if string(after) != wantIdx {
		t.Errorf("Index.md after rename:\n%s\nwant\n%s", after, wantIdx)
	}
	win, _ := os.ReadFile(filepath.Join(root, "Win.md"))
	if string(win) != strings.NewReplacer("[[My Note]]", "[[Renamed]]", "sub/My%20Note.md", "other/Renamed.md").Replace(crlf) {
		t.Errorf("Win.md after rename: %q", win)
	}
	if got := outTargets(t, e, "notes/Index.md")["wiki:Renamed"]; got != "gno://notes/other/Renamed.md" {
		t.Errorf("renamed link resolves to %q", got)
	}
	un, _ := e.Graph().Unresolved(ctx, UnresolvedRequest{Collection: "", Limit: 0})
	if len(un) != 1 {
		t.Errorf("unresolved after rename: %+v", un)
	}

	// A move to a deeper folder fixes the note's own relative links; a
	// move that keeps the name leaves [[Renamed]] alone.
	res, err = e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/other/Renamed.md", NewPath: "x/y/Renamed.md", UpdateLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if own, _ := os.ReadFile(filepath.Join(root, "x/y/Renamed.md")); string(own) != "# My Note\n[up](../../Alpha.md)\n" {
		t.Errorf("moved note: %q (%+v)", own, res)
	}
	if got := outTargets(t, e, "notes/x/y/Renamed.md")["markdown:../../Alpha.md"]; got != "gno://notes/Alpha.md" {
		t.Errorf("moved note's link resolves to %q", got)
	}
	if got := outTargets(t, e, "notes/Index.md")["wiki:Renamed"]; got != "gno://notes/x/y/Renamed.md" {
		t.Errorf("[[Renamed]] resolves to %q", got)
	}
	win, _ = os.ReadFile(filepath.Join(root, "Win.md"))

	// Tags: one line changes, CRLF and the rest of the front matter stay.
	if _, err := e.Notes().Update(ctx, UpdateNoteRequest{Ref: "notes/Win.md", Content: nil, Tags: []string{"x", "#Y"}}); err != nil {
		t.Fatal(err)
	}
	win2, _ := os.ReadFile(filepath.Join(root, "Win.md"))
	if want := strings.Replace(string(win), "tags:   [a,  b]\r\n", "tags: [x, y]\r\n", 1); string(win2) != want {
		t.Errorf("after tags: %q\nwant %q", win2, want)
	}
	d, _ := e.Get(ctx, GetRequest{Ref: "notes/Win.md"})
	if strings.Join(d.Tags, ",") != "x,y" {
		t.Errorf("indexed tags %v", d.Tags)
	}
	// Content: the body changes, the front matter stays byte for byte.
	body := "New body\nline two\n"
	if _, err := e.Notes().Update(ctx, UpdateNoteRequest{Ref: "notes/Win.md", Content: &body, Tags: nil}); err != nil {
		t.Fatal(err)
	}
	win3, _ := os.ReadFile(filepath.Join(root, "Win.md"))
	fmEnd := strings.Index(string(win2), "---\r\nSee")
	if want := string(win2[:fmEnd+5]) + "New body\r\nline two\r\n"; string(win3) != want {
		t.Errorf("after content: %q\nwant %q", win3, want)
	}
	r, err := e.Search(ctx, SearchRequest{Query: "line two"})
	if err != nil || len(r.Results) == 0 || r.Results[0].URI != "gno://notes/Win.md" {
		t.Errorf("search after update: %v %+v", err, r)
	}

	// Paths outside the root and refs that do not exist.
	for _, p := range []string{"../out.md", "/tmp/out.md", "a/../../out.md"} {
		if _, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/Gamma.md", NewPath: p, UpdateLinks: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("rename to %s: %v", p, err)
		}
	}
	if _, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/Gamma.md", NewPath: "Gamma.pdf", UpdateLinks: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
		t.Errorf("rename to a non-note extension: %v", err)
	}
	os.Symlink(t.TempDir(), filepath.Join(root, "link"))
	if _, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/Gamma.md", NewPath: "link/x.md", UpdateLinks: true}); gnoerr.CodeOf(err) != gnoerr.InvalidPath {
		t.Errorf("rename through a symlink out: %v", err)
	}
	if _, err := e.Notes().Update(ctx, UpdateNoteRequest{Ref: "notes/nope.md", Content: &body, Tags: nil}); gnoerr.CodeOf(err) != gnoerr.NotFound {
		t.Errorf("update of a missing note: %v", err)
	}
	if res, err := e.Notes().Delete(ctx, DeleteNoteRequest{Ref: "notes/nope.md"}); err != nil || *res.Deleted {
		t.Errorf("delete of a missing note: %+v %v", res, err)
	}
	// Delete: the file goes, incoming links become unresolved.
	res, err = e.Notes().Delete(ctx, DeleteNoteRequest{Ref: "notes/Gamma.md"})
	if err != nil || !*res.Deleted || res.BrokenLinks != 1 {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "Gamma.md")); !os.IsNotExist(err) {
		t.Errorf("Gamma.md still there: %v", err)
	}
	if got := outTargets(t, e, "notes/Index.md")["wiki:Gamma#^blk1"]; got != "" {
		t.Errorf("link to deleted note resolves to %q", got)
	}
}

// An index from before links (schema 1), or with schema 2's link rows,
// gets its links on open.
func TestLinksBackfill(t *testing.T) {
	for _, old := range [][]string{
		{"DELETE FROM doc_links", "PRAGMA user_version = 1"},
		{"DROP TABLE doc_links", "CREATE TABLE links(src_id, seq, dst_id)", "CREATE TABLE doc_keys(key, doc_id)", "PRAGMA user_version = 2"},
	} {
		e, _ := newEngine(t, vault)
		update(t, e)
		ctx := context.Background()
		want := outTargets(t, e, "notes/Index.md")
		db := rawDB(t, e)
		for _, q := range old {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		e.Close()
		e2, err := Open(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := outTargets(t, e2, "notes/Index.md")
		if len(got) != len(want) {
			t.Fatalf("%s: after upgrade %v, want %v", old[len(old)-1], got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: after upgrade %s -> %q, want %q", old[len(old)-1], k, got[k], v)
			}
		}
		e2.Close()
	}
}

// A note edit and a sync at the same time: one waits for the other's
// writer lock, neither fails, and the index ends with the edit.
func TestNoteEditDuringSync(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		write(t, root, "bulk/n"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))+".md", "# Bulk\nSee [[Alpha]].\n")
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Update(ctx, UpdateOptions{LockWait: NoteLockWait})
		done <- err
	}()
	body := "Edited during a sync\n"
	if _, err := e.Notes().Update(ctx, UpdateNoteRequest{Ref: "notes/Gamma.md", Content: &body, Tags: nil}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	d, err := e.Get(ctx, GetRequest{Ref: "notes/Gamma.md"})
	if err != nil || d.Content != "Edited during a sync\n" {
		t.Fatalf("after edit: %q %v", d.Content, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "Gamma.md")); string(b) != body {
		t.Errorf("file %q", b)
	}
	in, _ := e.Graph().Links(ctx, LinksRequest{Ref: "notes/Alpha.md", Direction: "in"})
	if in.IncomingCount != 205 {
		t.Errorf("Alpha has %d backlinks, want 205", in.IncomingCount)
	}
}

func TestRelatedAndSemanticResolveWithRealModel(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, map[string]string{
		"wal.md":     "# Write-ahead logging\n\nSQLite appends changes to a log so readers never block writers. See [[locks]].\n",
		"locks.md":   "# Locks\n\nA writer lock keeps two writers apart.\n",
		"journal.md": "# Rollback journal\n\nThe database copies pages to a journal before it overwrites them, so a crash can be undone.\n",
		"bread.md":   "# Sourdough\n\nFeed the starter flour and water every day.\n",
	})
	e.Paths.ModelsDir = dir
	update(t, e)
	ctx := context.Background()
	// Without vectors: links only, and semantic resolve names `gno index`.
	r, err := e.Graph().Related(ctx, RelatedRequest{Ref: "notes/wal.md", Limit: 3})
	if err != nil || r.VectorsUsed || len(r.Related) != 1 || r.Related[0].URI != "gno://notes/locks.md" {
		t.Fatalf("related without vectors: %+v %v", r, err)
	}
	if _, err := e.Graph().Resolve(ctx, ResolveRequest{Names: []string{"x"}, Strategy: ResolveSemantic, Threshold: 0.5}); err == nil || !strings.Contains(err.Error(), "gno index") {
		t.Errorf("semantic resolve without vectors: %v", err)
	}
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err = e.Graph().Related(ctx, RelatedRequest{Ref: "notes/wal.md", Limit: 3})
	if err != nil || !r.VectorsUsed || len(r.Related) != 3 {
		t.Fatalf("related with vectors: %+v %v", r, err)
	}
	if r.Related[0].URI != "gno://notes/locks.md" || !r.Related[0].Linked || r.Related[1].URI != "gno://notes/journal.md" {
		t.Errorf("related order: %+v", r.Related)
	}
	m, err := e.Graph().Resolve(ctx, ResolveRequest{Names: []string{"baking bread"}, Strategy: ResolveSemantic, Threshold: 0.3})
	if err != nil || m[0].URI != "gno://notes/bread.md" {
		t.Errorf("semantic resolve: %+v %v", m, err)
	}
}
