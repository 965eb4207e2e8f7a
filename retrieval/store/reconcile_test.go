package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
)

func putGen(t *testing.T, st *Store, gen int64, docs []*Document, remove ...string) {
	t.Helper()
	ctx := context.Background()
	b, err := st.Begin(ctx, gen)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Rollback()
	for _, d := range docs {
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range remove {
		m, err := st.DocByPath(ctx, "c", rel)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Remove(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func doc(rel, text string) *Document {
	return &Document{Collection: "c", RelPath: rel, Hash: "h" + text, Content: text, Declares: links.Declared(text)}
}

// Declarations are written with the note, replaced when it changes and
// gone with it; an upgraded index keeps texts only from its upgrade on.
func TestGovernsAndVersions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "i.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	spec := "---\ngoverns: [src/auth/**, \"code:lib/*.go\", ../**]\nsystem: \"[[Sys]]\"\n---\n# Auth\n"
	putGen(t, st, 1, []*Document{doc("auth.md", spec), doc("a.txt", "one\n"), doc("gone.txt", "g1\n")})
	notes, err := st.GoverningNotes(ctx)
	if err != nil || len(notes) != 1 {
		t.Fatalf("governing notes %+v %v", notes, err)
	}
	g := notes[0].Declares
	if len(g.Governs) != 3 || g.Governs[0].Collection != "c" || g.Governs[1].Collection != "code" || g.Governs[2].Problem == "" || g.System != "[[Sys]]" {
		t.Fatalf("declarations %+v", g)
	}
	putGen(t, st, 2, []*Document{doc("auth.md", "# no longer governs\n"), doc("a.txt", "two\n")}, "gone.txt")
	putGen(t, st, 3, []*Document{doc("a.txt", "three\n"), doc("gone.txt", "g2\n")})
	if notes, _ := st.GoverningNotes(ctx); len(notes) != 0 {
		t.Fatalf("declarations outlived the text: %+v", notes)
	}
	for _, tc := range []struct {
		rel   string
		gen   int64
		text  string
		state TextState
	}{
		{"a.txt", 0, "", TextAbsent}, {"a.txt", 1, "one\n", TextKnown}, {"a.txt", 2, "two\n", TextKnown}, {"a.txt", 3, "three\n", TextKnown},
		{"gone.txt", 1, "g1\n", TextKnown}, {"gone.txt", 2, "", TextAbsent}, {"gone.txt", 3, "g2\n", TextKnown},
	} {
		text, state, err := st.TextAt(ctx, "c", tc.rel, tc.gen)
		if err != nil || text != tc.text || state != tc.state {
			t.Errorf("%s at %d: %q %v %v, want %q %v", tc.rel, tc.gen, text, state, err, tc.text, tc.state)
		}
	}
	if err := st.DropVersions(ctx); err != nil {
		t.Fatal(err)
	}
	if _, state, _ := st.TextAt(ctx, "c", "a.txt", 1); state != TextDropped {
		t.Errorf("a dropped text reads as %v", state)
	}
	if text, state, _ := st.TextAt(ctx, "c", "a.txt", 3); state != TextKnown || text != "three\n" {
		t.Errorf("the current text after cleanup: %q %v", text, state)
	}
	st.Close()
}

// The cache is per cursor, survives a reopen and two writers at once.
func TestReconciledCursors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "i.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, cur := range []string{"default", "other"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var files []Reconciled
			for j := 0; j < 200; j++ {
				files = append(files, Reconciled{"c", "f" + strings.Repeat("x", j%5) + string(rune('a'+j%26)) + ".go", cur})
			}
			_, errs[i] = st.MarkReconciled(ctx, cur, files)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	st.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, _ := st.ReconciledHashes(ctx, "default", "c")
	b, _ := st.ReconciledHashes(ctx, "other", "c")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("cursors after reopen: %d %d", len(a), len(b))
	}
	if n, err := st.ClearReconciled(ctx, "default"); err != nil || n != len(a) {
		t.Fatalf("clear: %d %v", n, err)
	}
	if b2, _ := st.ReconciledHashes(ctx, "other", "c"); len(b2) != len(b) {
		t.Fatal("clearing one cursor touched another")
	}
}

// An index of schema 4 gains the tables, its notes' declarations read
// from their stored text (a page at a time, front matter only), and
// earlier texts only from the upgrade on; two processes opening it at
// once upgrade it once.
func TestUpgradeToSchema5(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "i.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []*Document
	for i, text := range []string{"---\ngoverns: [src/**]\n---\n# Auth\n", "# Plain\n\ngoverns: [x/**]\n", "---\ntitle: t\n---\n# T\n",
		"---\ngoverns: [lib/**]\n---\n# Lib\n" + strings.Repeat("long body\n", 10000)} {
		d := doc("n"+strconv.Itoa(i)+".md", text)
		d.Mime = "text/markdown"
		docs = append(docs, d)
	}
	putGen(t, st, 1, append(docs, doc("a.txt", "one\n")))
	putGen(t, st, 2, []*Document{doc("a.txt", "two\n")})
	if _, err := st.db.Exec("DROP TABLE governs; DROP TABLE reconciled; DROP TABLE versions; PRAGMA user_version = 4"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	defer func(n int) { markdownPage = n }(markdownPage)
	markdownPage = 1
	var wg sync.WaitGroup
	stores := make([]*Store, 2)
	errs := make([]error, 2)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	st = stores[0]
	notes, err := st.GoverningNotes(ctx)
	if err != nil || len(notes) != 2 || notes[0].Declares.Governs[0].Glob != "src/**" || notes[1].Declares.Governs[0].Glob != "lib/**" ||
		len(notes[0].Declares.Governs) != 1 || len(notes[1].Declares.Governs) != 1 {
		t.Fatalf("backfilled declarations %+v %v", notes, err)
	}
	if _, state, _ := st.TextAt(ctx, "c", "a.txt", 1); state != TextDropped {
		t.Errorf("a text from before the upgrade reads as %v", state)
	}
	if text, state, _ := st.TextAt(ctx, "c", "a.txt", 2); state != TextKnown || text != "two\n" {
		t.Errorf("the current text: %q %v", text, state)
	}
}
