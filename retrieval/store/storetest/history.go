package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
)

// The contract of what the index keeps beside its documents: the
// reconcile cache, earlier texts, governing notes' declarations.

func testReconciled(t *testing.T, st store.Backend) {
	ctx := context.Background()
	n, err := st.MarkReconciled(ctx, "agent", []store.Reconciled{{Collection: "c", RelPath: "a.md", Hash: "h1"}, {Collection: "c", RelPath: "b.md", Hash: "h2"}, {Collection: "d", RelPath: "a.md", Hash: "h3"}})
	check(t, err)
	if n != 3 {
		t.Errorf("MarkReconciled: %d rows", n)
	}
	_, err = st.MarkReconciled(ctx, "agent", []store.Reconciled{{Collection: "c", RelPath: "a.md", Hash: "h4"}})
	check(t, err)
	got, err := st.ReconciledHashes(ctx, "agent", "c")
	check(t, err)
	if !reflect.DeepEqual(got, map[string]string{"a.md": "h4", "b.md": "h2"}) {
		t.Errorf("ReconciledHashes: %v", got)
	}
	if got, _ := st.ReconciledHashes(ctx, "other", "c"); len(got) != 0 {
		t.Errorf("another cursor: %v", got)
	}
	if n, err := st.ClearReconciled(ctx, "agent"); err != nil || n != 3 {
		t.Errorf("ClearReconciled: %d, %v", n, err)
	}
}

// testVersions: a replaced or removed document's earlier texts are read
// by generation; dropped, they read as dropped, the current text as it is.
func testVersions(t *testing.T, st store.Backend) {
	ctx := context.Background()
	d := func(rel, text string) *store.Document {
		return &store.Document{Collection: "c", RelPath: rel, Hash: "h" + text, Content: text}
	}
	put(t, st, 1, d("a.txt", "one\n"), d("gone.txt", "g1\n"))
	put(t, st, 2, d("a.txt", "two\n"))
	g, err := st.DocByPath(ctx, "c", "gone.txt")
	check(t, err)
	b, err := st.Begin(ctx, 2)
	check(t, err)
	check(t, b.Remove(ctx, g.ID))
	check(t, b.Commit())
	put(t, st, 3, d("a.txt", "three\n"), d("gone.txt", "g2\n"))
	for _, tc := range []struct {
		rel   string
		gen   int64
		text  string
		state store.TextState
	}{
		{"a.txt", 0, "", store.TextAbsent}, {"a.txt", 1, "one\n", store.TextKnown}, {"a.txt", 2, "two\n", store.TextKnown}, {"a.txt", 3, "three\n", store.TextKnown},
		{"gone.txt", 1, "g1\n", store.TextKnown}, {"gone.txt", 2, "", store.TextAbsent}, {"gone.txt", 3, "g2\n", store.TextKnown},
	} {
		text, state, err := st.TextAt(ctx, "c", tc.rel, tc.gen)
		check(t, err)
		if text != tc.text || state != tc.state {
			t.Errorf("%s at %d: %q %v, want %q %v", tc.rel, tc.gen, text, state, tc.text, tc.state)
		}
	}
	if rows, bytes, err := st.VersionsSize(ctx); err != nil || rows != 3 || bytes != 11 {
		t.Errorf("VersionsSize: %d rows, %d bytes, %v", rows, bytes, err)
	}
	check(t, st.DropVersions(ctx))
	if _, state, _ := st.TextAt(ctx, "c", "a.txt", 1); state != store.TextDropped {
		t.Errorf("a dropped text reads as %v", state)
	}
	if text, state, _ := st.TextAt(ctx, "c", "a.txt", 3); state != store.TextKnown || text != "three\n" {
		t.Errorf("the current text after DropVersions: %q %v", text, state)
	}
}

// testGoverns: a note's declarations are stored with it, replaced when it
// changes, gone with it.
func testGoverns(t *testing.T, st store.Backend) {
	ctx := context.Background()
	spec := "---\ngoverns: [src/auth/**, \"code:lib/*.go\", ../**]\nsystem: \"[[Sys]]\"\nsubsystems: [\"[[A]]\"]\n---\n# Auth\n"
	d := func(text string) *store.Document {
		return &store.Document{Collection: "c", RelPath: "auth.md", Hash: "h" + text, Title: "Auth", Content: text, Declares: links.Declared(text)}
	}
	put(t, st, 1, d(spec), &store.Document{Collection: "c", RelPath: "plain.md", Hash: "p", Content: "x"})
	notes, err := st.GoverningNotes(ctx)
	check(t, err)
	if len(notes) != 1 || notes[0].RelPath != "auth.md" || notes[0].ChangedGen != 1 {
		t.Fatalf("governing notes %+v", notes)
	}
	g := notes[0].Declares
	if len(g.Governs) != 3 || g.Governs[0].Collection != "c" || g.Governs[0].Glob != "src/auth/**" || g.Governs[1].Collection != "code" ||
		g.Governs[2].Problem == "" || g.System != "[[Sys]]" || len(g.Subsystems) != 1 {
		t.Fatalf("declarations %+v", g)
	}
	put(t, st, 2, d("# no longer governs\n"))
	if notes, _ := st.GoverningNotes(ctx); len(notes) != 0 {
		t.Fatalf("declarations outlived the text: %+v", notes)
	}
}
