package storetest

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

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

// testAccessTokens: an index without tokens reads none; a token written
// reads back with its times; an id or hash taken is refused; last-used
// only moves forward; a deleted token is gone.
func testAccessTokens(t *testing.T, st store.Backend) {
	ctx := context.Background()
	got, err := st.AccessTokens(ctx)
	check(t, err)
	if len(got) != 0 {
		t.Fatalf("new index: %v", got)
	}
	if _, ok, err := st.AccessTokenByHash(ctx, strings.Repeat("a", 64)); ok || err != nil {
		t.Errorf("by hash in an index without tokens: %v, %v", ok, err)
	}
	if ok, err := st.DeleteAccessToken(ctx, "none"); ok || err != nil {
		t.Errorf("delete from an index without tokens: %v, %v", ok, err)
	}
	check(t, st.TouchAccessTokens(ctx, map[string]time.Time{"none": time.Now()}))
	created := time.Unix(1_700_000_000, 0).UTC()
	a := store.AccessToken{ID: "a1", Name: "ci", Scope: "read", SHA256: strings.Repeat("a", 64), Created: created}
	b := store.AccessToken{ID: "b2", Scope: "write", SHA256: strings.Repeat("b", 64), Created: created, Expires: created.Add(time.Hour)}
	for _, tok := range []store.AccessToken{a, b} {
		ok, err := st.PutAccessToken(ctx, tok)
		check(t, err)
		if !ok {
			t.Fatalf("put %s refused", tok.ID)
		}
	}
	if ok, err := st.PutAccessToken(ctx, store.AccessToken{ID: "a1", Scope: "read", SHA256: strings.Repeat("c", 64), Created: created}); ok || err != nil {
		t.Errorf("a taken id: %v, %v", ok, err)
	}
	if ok, err := st.PutAccessToken(ctx, store.AccessToken{ID: "c3", Scope: "read", SHA256: a.SHA256, Created: created}); ok || err != nil {
		t.Errorf("a taken hash: %v, %v", ok, err)
	}
	used := created.Add(time.Minute)
	check(t, st.TouchAccessTokens(ctx, map[string]time.Time{"a1": used}))
	check(t, st.TouchAccessTokens(ctx, map[string]time.Time{"a1": created}))
	got, err = st.AccessTokens(ctx)
	check(t, err)
	sort.Slice(got, func(i, j int) bool { return got[i].ID < got[j].ID })
	a.LastUsed = used
	same(t, "AccessTokens", got, []store.AccessToken{a, b})
	byHash, ok, err := st.AccessTokenByHash(ctx, b.SHA256)
	check(t, err)
	if !ok {
		t.Fatal("AccessTokenByHash: not found")
	}
	same(t, "AccessTokenByHash", byHash, b)
	if _, ok, err := st.AccessTokenByHash(ctx, strings.Repeat("d", 64)); ok || err != nil {
		t.Errorf("an unknown hash: %v, %v", ok, err)
	}
	if ok, err := st.DeleteAccessToken(ctx, "a1"); !ok || err != nil {
		t.Errorf("delete: %v, %v", ok, err)
	}
	got, err = st.AccessTokens(ctx)
	check(t, err)
	same(t, "after delete", got, []store.AccessToken{b})
}

// testJobs: an index without jobs reads none; a job recorded reads back
// and its later record replaces it; Jobs lists the running and the newest
// finished; DropJobs forgets the old finished ones and the running ones
// not rewritten since (their server died), and keeps a live running one.
func testJobs(t *testing.T, st store.Backend) {
	ctx := context.Background()
	if js, err := st.Jobs(ctx, 10); err != nil || len(js) != 0 {
		check(t, err)
		t.Fatalf("new index: %v", js)
	}
	check(t, st.DropJobs(ctx, time.Now(), 10))
	if _, ok, err := st.Job(ctx, "none"); ok || err != nil {
		t.Fatalf("Job(none): %v, %v", ok, err)
	}
	t0 := time.UnixMilli(1_700_000_000_000).UTC()
	for i, id := range []string{"a", "b", "c"} {
		at := t0.Add(time.Duration(i) * time.Minute)
		check(t, st.PutJob(ctx, store.SharedJob{ID: id, Running: true, Created: at, Updated: at, State: []byte(`{"s":"running"}`)}))
	}
	done := t0.Add(time.Hour)
	check(t, st.PutJob(ctx, store.SharedJob{ID: "a", Created: t0, Updated: done, State: []byte(`{"s":"completed"}`)}))
	check(t, st.PutJob(ctx, store.SharedJob{ID: "b", Created: t0.Add(time.Minute), Updated: done.Add(time.Minute), State: []byte(`{"s":"failed"}`)}))
	j, ok, err := st.Job(ctx, "a")
	check(t, err)
	if !ok || j.Running || string(j.State) != `{"s":"completed"}` || !j.Created.Equal(t0) || !j.Updated.Equal(done) {
		t.Fatalf("Job(a) = %+v, %v", j, ok)
	}
	js, err := st.Jobs(ctx, 1)
	check(t, err)
	var ids []string
	for _, j := range js {
		ids = append(ids, j.ID)
	}
	same(t, "Jobs(1)", ids, []string{"c", "b"})
	check(t, st.PutJob(ctx, store.SharedJob{ID: "d", Running: true, Created: done, Updated: done.Add(time.Minute), State: []byte(`{"s":"running"}`)}))
	check(t, st.DropJobs(ctx, done.Add(30*time.Second), 10))
	js, err = st.Jobs(ctx, 10)
	check(t, err)
	ids = ids[:0]
	for _, j := range js {
		ids = append(ids, j.ID)
	}
	same(t, "after DropJobs", ids, []string{"d", "b"})
}
