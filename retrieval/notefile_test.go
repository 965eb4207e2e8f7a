package retrieval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/note"
)

func TestOpenAndSave(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	notes := e.Notes()
	f, err := notes.Open(ctx, OpenNoteRequest{Ref: "notes/Beta.md"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Editable || f.FrontMatter != "---\naliases: [Nick, Bee]\n---\n" || f.Body != "# Beta\n## Part Two\nSee [[Alpha]].\n" ||
		len(f.Props) != 1 || f.Props[0].Key != "aliases" || !strings.HasPrefix(f.Hash, "sha256:") {
		t.Fatalf("Open = %+v", f)
	}
	// Saving what was opened writes nothing.
	res, err := notes.Save(ctx, SaveNoteRequest{Ref: f.URI, BaseHash: f.Hash, Body: &f.Body})
	if err != nil || res.Changed || res.Hash != f.Hash {
		t.Fatalf("no-op save: %+v, %v", res, err)
	}
	// A new body and a property: saved, the other lines kept, searchable.
	body := "# Beta\n## Part Two\nSee [[Alpha]]. Zebrafish swim here.\n"
	res, err = notes.Save(ctx, SaveNoteRequest{Ref: f.URI, BaseHash: f.Hash, Body: &body,
		Props: []note.PropEdit{{Key: "title", Kind: "text", Value: "Beta note"}}})
	if err != nil || !res.Changed || !res.Indexed {
		t.Fatalf("save: %+v, %v", res, err)
	}
	raw, _ := os.ReadFile(filepath.Join(root, "Beta.md"))
	if want := "---\naliases: [Nick, Bee]\ntitle: Beta note\n---\n" + body; string(raw) != want {
		t.Errorf("file after save = %q, want %q", raw, want)
	}
	hits, err := e.Search(ctx, SearchRequest{Query: "zebrafish"})
	if err != nil || len(hits.Results) != 1 || hits.Results[0].Title != "Beta note" {
		t.Fatalf("search after save: %+v, %v", hits, err)
	}
	// Saving on the old hash is refused with the file as it is now.
	_, err = notes.Save(ctx, SaveNoteRequest{Ref: f.URI, BaseHash: f.Hash, Body: &f.Body})
	var c *SaveConflict
	if !errors.As(err, &c) || gnoerr.CodeOf(err) != gnoerr.Conflict || c.Current.Hash != res.Hash || c.Current.Body != body {
		t.Fatalf("stale save: %v", err)
	}
	if raw2, _ := os.ReadFile(filepath.Join(root, "Beta.md")); string(raw2) != string(raw) {
		t.Error("a refused save changed the file")
	}
	// Force overwrites.
	if res, err = notes.Save(ctx, SaveNoteRequest{Ref: f.URI, Body: &f.Body, Force: true}); err != nil || !res.Changed {
		t.Fatalf("forced save: %+v, %v", res, err)
	}
	if _, err := notes.Save(ctx, SaveNoteRequest{Ref: f.URI, Body: &f.Body}); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("save without a hash: %v", err)
	}
	// A text file opens without properties; a CRLF file keeps its line ends.
	crlf := "---\r\ntitle: W\r\n---\r\nline one\r\n"
	if err := os.WriteFile(filepath.Join(root, "win.md"), []byte(crlf), 0o644); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	w, err := notes.Open(ctx, OpenNoteRequest{Ref: "notes/win.md"})
	if err != nil || w.Body != "line one\n" {
		t.Fatalf("open CRLF: %+v, %v", w, err)
	}
	nb := "line one\nline two\n"
	if _, err := notes.Save(ctx, SaveNoteRequest{Ref: w.URI, BaseHash: w.Hash, Body: &nb}); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(filepath.Join(root, "win.md")); string(raw) != "---\r\ntitle: W\r\n---\r\nline one\r\nline two\r\n" {
		t.Errorf("CRLF file after save = %q", raw)
	}
}

func TestRenamePlanMatchesRename(t *testing.T) {
	e, root := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	plan, err := e.Notes().RenamePlan(ctx, RenameNoteRequest{Ref: "notes/sub/My Note.md", NewPath: "deep/er/Renamed.md"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.To != "gno://notes/deep/er/Renamed.md" || plan.LinksUpdated == 0 {
		t.Fatalf("plan = %+v", plan)
	}
	var idx *PlannedFile
	for i := range plan.Files {
		if plan.Files[i].URI == "gno://notes/Index.md" {
			idx = &plan.Files[i]
		}
	}
	if idx == nil || len(idx.Links) != 2 || idx.Links[0].Before != "[spaced](sub/My%20Note.md#Top)" ||
		idx.Links[0].After != "[spaced](deep/er/Renamed.md#Top)" || idx.Links[0].Line != 8 {
		t.Fatalf("plan for Index.md = %+v", idx)
	}
	before, _ := os.ReadFile(filepath.Join(root, "Index.md"))
	// The plan changed nothing; the rename does what it said.
	res, err := e.Notes().Rename(ctx, RenameNoteRequest{Ref: "notes/sub/My Note.md", NewPath: "deep/er/Renamed.md", UpdateLinks: true})
	if err != nil || res.LinksUpdated != plan.LinksUpdated {
		t.Fatalf("rename: %+v, %v (plan said %d)", res, err, plan.LinksUpdated)
	}
	after, _ := os.ReadFile(filepath.Join(root, "Index.md"))
	want := string(before)
	for _, l := range idx.Links {
		want = strings.Replace(want, l.Before, l.After, 1)
	}
	if string(after) != want {
		t.Errorf("Index.md after rename:\n%s\nwant\n%s", after, want)
	}
	for _, bad := range []string{"../outside.md", "/etc/x.md", ".hidden/x.md", "Alpha.md"} {
		if _, err := e.Notes().RenamePlan(ctx, RenameNoteRequest{Ref: "notes/Gamma.md", NewPath: bad}); err == nil {
			t.Errorf("plan to %q accepted", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "outside.md")); err == nil {
		t.Error("a file was written outside the root")
	}
}

func TestTreeAndComplete(t *testing.T) {
	e, _ := newEngine(t, vault)
	update(t, e)
	ctx := context.Background()
	tree, err := e.Notes().Tree(ctx, TreeRequest{})
	if err != nil || len(tree) != 1 {
		t.Fatal(tree, err)
	}
	r := tree[0]
	if r.Name != "notes" || r.Count != 9 || r.Docs != 5 || len(r.Folders) != 4 || r.Folders[1].Name != "b" ||
		r.Folders[1].Count != 1 || r.Folders[1].Docs != 0 || r.Folders[1].Folders[0].Path != "b/c" {
		t.Errorf("tree = %+v / %+v", r, r.Folders)
	}
	if _, err := e.Notes().Tree(ctx, TreeRequest{Collection: "nope"}); gnoerr.CodeOf(err) != gnoerr.NotFound {
		t.Errorf("tree of a missing collection: %v", err)
	}
	g := e.Graph()
	got, err := g.Complete(ctx, CompleteRequest{Text: "al"})
	if err != nil || len(got) != 1 || got[0].Insert != "Alpha" || got[0].Kind != "note" {
		t.Errorf("complete al = %+v, %v", got, err)
	}
	got, _ = g.Complete(ctx, CompleteRequest{Text: "nic"})
	if len(got) != 1 || got[0].Kind != "alias" || got[0].Insert != "Beta|Nick" {
		t.Errorf("complete nic = %+v", got)
	}
	got, _ = g.Complete(ctx, CompleteRequest{Text: "dup"})
	if len(got) != 2 || got[0].Insert != "a/Dup" {
		t.Errorf("complete dup = %+v", got)
	}
	got, _ = g.Complete(ctx, CompleteRequest{Text: "note"})
	if len(got) != 1 || got[0].Label != "My Note" {
		t.Errorf("complete note (a word start) = %+v", got)
	}
	got, _ = g.Complete(ctx, CompleteRequest{Text: "Beta#two", From: "notes/Index.md"})
	if len(got) != 1 || got[0].Insert != "Beta#Part Two" || got[0].Kind != "heading" {
		t.Errorf("complete Beta#two = %+v", got)
	}
	got, _ = g.Complete(ctx, CompleteRequest{Text: "#", From: "notes/Beta.md"})
	if len(got) != 2 || got[0].Insert != "#Beta" {
		t.Errorf("complete # = %+v", got)
	}
	if got, _ = g.Complete(ctx, CompleteRequest{Text: "zzz"}); len(got) != 0 {
		t.Errorf("complete zzz = %+v", got)
	}
}
