// Package storetest is the store's contract as tests: Run holds a
// store.Backend to what the engine relies on, and every backend runs it
// (storetest_test.go runs it on SQLite, and on PostgreSQL when one can be
// reached through pgtest). A method a backend does not implement yet
// answers store.ErrUnsupported, and the test of it skips, saying so.
//
// It is imported by tests only.
package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// Open returns a new, empty index of the backend under test, closed when
// t ends.
type Open func(t *testing.T) store.Backend

// Run runs every contract test against the backend open gives, each on
// an index of its own.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Backend)
	}{
		{"Meta", testMeta},
		{"PutAndRead", testPutAndRead},
		{"DocStatesOf", testDocStatesOf},
		{"DocStateList", testDocStateList},
		{"ReplaceAndRemove", testReplaceAndRemove},
		{"Rollback", testRollback},
		{"Filter", testFilter},
		{"BM25Score", testBM25Score},
		{"Search", testSearch},
		{"SearchSegmented", testSearchSegmented},
		{"LongWords", testLongWords},
		{"TieOrder", testTieOrder},
		{"Vectors", testVectors},
		{"Snapshot", testSnapshot},
		{"ManySnapshots", testManySnapshots},
		{"Skips", testSkips},
		{"PathProblem", testPathProblem},
		{"Tags", testTags},
		{"Cleanup", testCleanup},
		{"Reconciled", testReconciled},
		{"CountsCache", testCountsCache},
		{"Versions", testVersions},
		{"Governs", testGoverns},
		{"AccessTokens", testAccessTokens},
		{"Jobs", testJobs},
		{"Links", testLinks},
		{"LinksChange", testLinksChange},
		{"ListAfter", testListAfter},
		{"LargeBatch", testLargeBatch},
		{"SearchVectors", testSearchVectors},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// check fails t on err, skipping it when the backend does not implement
// the method yet.
func check(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, store.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// doc is a document of one chunk per paragraph of text.
func doc(col, rel, title, text string, tags ...string) *store.Document {
	d := &store.Document{Collection: col, RelPath: rel, Hash: fmt.Sprintf("%x", sha256.Sum256([]byte(col+rel+text))), Title: title,
		Content: text, Tags: tags, NoLinks: true, LineCount: strings.Count(text, "\n") + 1, Size: int64(len(text))}
	for i, p := range strings.Split(text, "\n\n") {
		d.Chunks = append(d.Chunks, chunk.Chunk{Text: p, StartLine: i*2 + 1, EndLine: i*2 + 1})
	}
	return d
}

// put writes docs in one batch of generation gen.
func put(t *testing.T, st store.Backend, gen int64, docs ...*store.Document) {
	t.Helper()
	ctx := context.Background()
	b, err := st.Begin(ctx, gen)
	check(t, err)
	defer b.Rollback()
	for _, d := range docs {
		check(t, b.Put(ctx, d))
	}
	check(t, b.Commit())
}

func testMeta(t *testing.T, st store.Backend) {
	ctx := context.Background()
	v, err := st.Meta(ctx, "nothing")
	check(t, err)
	if v != "" {
		t.Errorf("missing key: %q", v)
	}
	check(t, st.SetMeta(ctx, "k", "one"))
	check(t, st.SetMeta(ctx, "k", "two"))
	if v, err := st.Meta(ctx, "k"); err != nil || v != "two" {
		t.Errorf("Meta: %q, %v", v, err)
	}
	if g, err := st.Generation(ctx); err != nil || g != 0 {
		t.Errorf("new index: generation %d, %v", g, err)
	}
	put(t, st, 7, doc("c", "a.md", "A", "alpha"))
	if g, err := st.Generation(ctx); err != nil || g != 7 {
		t.Errorf("after a batch of 7: generation %d, %v", g, err)
	}
	if st.Path() == "" {
		t.Error("Path is empty")
	}
}

func testPutAndRead(t *testing.T, st store.Backend) {
	ctx := context.Background()
	a := doc("notes", "dir/a.md", "Alpha", "first paragraph\n\nsecond paragraph", "x", "y")
	a.Lang, a.Mime = "en", "text/markdown"
	a.Chunks[1].Headings = []string{"H1", "H2"}
	put(t, st, 1, a, doc("notes", "b.md", "Beta", "beta text"), doc("code", "c.go", "C", "package c"))

	m, err := st.DocByPath(ctx, "notes", "dir/a.md")
	check(t, err)
	if m.Title != "Alpha" || m.Lang != "en" || m.Mime != "text/markdown" || m.Hash != a.Hash || m.Size != a.Size || m.LineCount != 3 || m.ChangedGen != 1 {
		t.Errorf("DocByPath: %+v", m)
	}
	if !reflect.DeepEqual(m.Tags, []string{"x", "y"}) {
		t.Errorf("tags %v", m.Tags)
	}
	if _, err := st.DocByPath(ctx, "notes", "none.md"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing path: %v, want ErrNotFound", err)
	}
	if h, err := st.DocByHashPrefix(ctx, a.Hash[:3]); err != nil || h.ID != m.ID {
		t.Errorf("DocByHashPrefix: %+v, %v", h, err)
	}
	if c, err := st.Content(ctx, m.ID); err != nil || c != a.Content {
		t.Errorf("Content: %q, %v", c, err)
	}
	if _, err := st.Content(ctx, m.ID+1000); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Content of a missing document: %v", err)
	}
	ids := []int64{store.ChunkID(m.ID, 0), store.ChunkID(m.ID, 1)}
	cs, err := st.Chunks(ctx, ids)
	check(t, err)
	if len(cs) != 2 || cs[ids[1]].Body != "second paragraph" || cs[ids[1]].Headings != "H1 > H2" || cs[ids[1]].Seq != 1 || cs[ids[1]].DocID != m.ID || cs[ids[1]].StartLine != 3 {
		t.Errorf("Chunks: %+v %+v", cs[ids[0]], cs[ids[1]])
	}
	docs, err := st.Docs(ctx, []int64{m.ID})
	check(t, err)
	if docs[m.ID] == nil || docs[m.ID].RelPath != "dir/a.md" || len(docs[m.ID].Tags) != 2 {
		t.Errorf("Docs: %+v", docs[m.ID])
	}
	l, err := st.List(ctx, nil, "", 0, 0)
	check(t, err)
	var paths []string
	for _, d := range l {
		paths = append(paths, d.Collection+"/"+d.RelPath)
	}
	if !reflect.DeepEqual(paths, []string{"code/c.go", "notes/b.md", "notes/dir/a.md"}) {
		t.Errorf("List: %v", paths)
	}
	if l, _ := st.List(ctx, []string{"notes"}, "dir/", 10, 0); len(l) != 1 {
		t.Errorf("List with prefix: %d documents", len(l))
	}
	if l, _ := st.List(ctx, []string{}, "", 0, 0); len(l) != 0 {
		t.Errorf("List of no collections: %d documents", len(l))
	}
	if l, _ := st.List(ctx, nil, "", 1, 1); len(l) != 1 || l[0].RelPath != "b.md" {
		t.Errorf("List limit 1 offset 1: %v", l)
	}
	names, err := st.CollectionNames(ctx)
	check(t, err)
	if !reflect.DeepEqual(names, []string{"code", "notes"}) {
		t.Errorf("CollectionNames: %v", names)
	}
	langs, err := st.LangCounts(ctx)
	check(t, err)
	if langs["en"] != 1 || langs[""] != 2 {
		t.Errorf("LangCounts: %v", langs)
	}
	stats, err := st.Stats(ctx, "m")
	check(t, err)
	if s := stats["notes"]; s == nil || s.Docs != 2 || s.Chunks != 3 || s.Embedded != 0 {
		t.Errorf("Stats: %+v", stats["notes"])
	}
	states, err := st.DocStates(ctx, "notes")
	check(t, err)
	// DocStates may leave the hash out (an unchanged sync needs none);
	// DocStatesOf reads it.
	if s := states["dir/a.md"]; s.ID != m.ID || (s.Hash != "" && s.Hash != a.Hash) || s.Size != a.Size {
		t.Errorf("DocStates: %+v", states)
	}
}

// testDocStatesOf: the states of named paths equal the whole collection's
// states restricted to them (with the hash, which DocStates may leave
// out), across a statement's parts, and paths with no document (or in
// another collection) are absent.
func testDocStatesOf(t *testing.T, st store.Backend) {
	ctx := context.Background()
	b, err := st.Begin(ctx, 1)
	check(t, err)
	for i := range 1200 {
		for _, col := range []string{"a", "b"} {
			d := &store.Document{Collection: col, RelPath: fmt.Sprintf("d%04d.md", i), Hash: fmt.Sprintf("h%d%s", i, col), Size: int64(i), MtimeNS: int64(2 * i), NoLinks: true}
			check(t, b.Put(ctx, d))
		}
	}
	check(t, b.Commit())
	all, err := st.DocStates(ctx, "a")
	check(t, err)
	var rels []string
	want := map[string]store.DocState{}
	for i := 0; i < 1300; i += 2 {
		rel := fmt.Sprintf("d%04d.md", i)
		rels = append(rels, rel)
		if s, ok := all[rel]; ok {
			want[rel] = s
		}
	}
	got, err := st.DocStatesOf(ctx, "a", rels)
	check(t, err)
	for rel, s := range got {
		var i int
		if _, err := fmt.Sscanf(rel, "d%04d.md", &i); err != nil || s.Hash != fmt.Sprintf("h%da", i) {
			t.Fatalf("DocStatesOf %s: hash %q", rel, s.Hash)
		}
		s.Hash = ""
		got[rel] = s
	}
	for rel, s := range want {
		s.Hash = ""
		want[rel] = s
	}
	if len(want) != 600 || !reflect.DeepEqual(got, want) {
		t.Fatalf("DocStatesOf: %d states, want %d equal to DocStates'", len(got), len(want))
	}
}

// testDocStateList: the packed list holds every document of the
// collection, and only those, in byte order of the path (what a sync's
// merge with its sorted walk needs: case, punctuation that sorts before
// '/', non-ASCII), with DocStates' ids, sizes and mtimes.
func testDocStateList(t *testing.T, st store.Backend) {
	ctx := context.Background()
	rels := []string{"b.md", "B.md", "a-b.md", "a/x.md", "a.md", "a b.md", "a/b/c.md", "é.md", "z.md", "Z/ä.md", "a0.md"}
	b, err := st.Begin(ctx, 1)
	check(t, err)
	for i, rel := range rels {
		check(t, b.Put(ctx, &store.Document{Collection: "c", RelPath: rel, Hash: "h", Size: int64(i), MtimeNS: int64(100 + i), NoLinks: true}))
		check(t, b.Put(ctx, &store.Document{Collection: "other", RelPath: "o" + rel, Hash: "h", NoLinks: true}))
	}
	check(t, b.Commit())
	all, err := st.DocStates(ctx, "c")
	check(t, err)
	l, err := st.DocStateList(ctx, "c")
	check(t, err)
	want := slices.Clone(rels)
	slices.Sort(want)
	var got []string
	for i := range l.Len() {
		rel := l.Rel(i)
		got = append(got, rel)
		s := l.State(i)
		if w := all[rel]; s.ID != w.ID || s.Size != w.Size || s.MtimeNS != w.MtimeNS || s.Hash != "" {
			t.Errorf("DocStateList %s: %+v, DocStates %+v", rel, s, w)
		}
		if l.Compare(i, rel) != 0 || (i > 0 && l.Compare(i-1, rel) >= 0) {
			t.Errorf("DocStateList: Compare at %d (%s)", i, rel)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("DocStateList order:\n got %q\nwant %q", got, want)
	}
	if l, err := st.DocStateList(ctx, "none"); err != nil || l.Len() != 0 {
		t.Errorf("DocStateList of no collection: %v %v", l, err)
	}
}

func testReplaceAndRemove(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("c", "a.md", "A", "one\n\ntwo\n\nthree"), doc("c", "b.md", "B", "bee"))
	a, err := st.DocByPath(ctx, "c", "a.md")
	check(t, err)
	put(t, st, 2, doc("c", "a.md", "A2", "uno"))
	a2, err := st.DocByPath(ctx, "c", "a.md")
	check(t, err)
	if a2.ID != a.ID || a2.Title != "A2" || a2.ChangedGen != 2 {
		t.Errorf("replaced: %+v (id was %d)", a2, a.ID)
	}
	cs, err := st.Chunks(ctx, []int64{store.ChunkID(a.ID, 0), store.ChunkID(a.ID, 1), store.ChunkID(a.ID, 2)})
	check(t, err)
	if len(cs) != 1 || cs[store.ChunkID(a.ID, 0)].Body != "uno" {
		t.Errorf("chunks after replace: %d", len(cs))
	}
	b, err := st.Begin(ctx, 3)
	check(t, err)
	check(t, b.Touch(ctx, a.ID, 99, 1234))
	check(t, b.Remove(ctx, a.ID))
	check(t, b.Commit())
	if _, err := st.DocByPath(ctx, "c", "a.md"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removed document: %v", err)
	}
	if cs, _ := st.Chunks(ctx, []int64{store.ChunkID(a.ID, 0)}); len(cs) != 0 {
		t.Error("a removed document's chunks remain")
	}
	rm, err := st.RemovedSince(ctx, "", 2)
	check(t, err)
	if len(rm) != 1 || rm[0].RelPath != "a.md" || rm[0].Gen != 3 || rm[0].Hash != a2.Hash {
		t.Errorf("RemovedSince: %+v", rm)
	}
	ch, err := st.ChangedSince(ctx, "c", 0)
	check(t, err)
	if len(ch) != 1 || ch[0].RelPath != "b.md" || ch[0].AddedGen != 1 {
		t.Errorf("ChangedSince: %+v", ch)
	}
	if ch, _ := st.ChangedSince(ctx, "", 1); len(ch) != 0 {
		t.Errorf("ChangedSince 1: %+v", ch)
	}
	// What the replace and the removal left is consistent.
	problems, err := st.Check(ctx)
	check(t, err)
	if len(problems) > 0 {
		t.Errorf("Check: %v", problems)
	}
}

func testRollback(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("c", "a.md", "A", "kept"))
	b, err := st.Begin(ctx, 2)
	check(t, err)
	check(t, b.Put(ctx, doc("c", "b.md", "B", "lost")))
	check(t, b.Put(ctx, doc("c", "a.md", "A", "changed")))
	check(t, b.Rollback())
	check(t, b.Rollback()) // safe twice
	if _, err := st.DocByPath(ctx, "c", "b.md"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rolled-back document: %v", err)
	}
	a, err := st.DocByPath(ctx, "c", "a.md")
	check(t, err)
	if c, _ := st.Content(ctx, a.ID); c != "kept" {
		t.Errorf("content after rollback: %q", c)
	}
	if g, _ := st.Generation(ctx); g != 1 {
		t.Errorf("generation after rollback: %d", g)
	}
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"lost"}}, store.Filter{}, 10)
	check(t, err)
	if len(hits) != 0 {
		t.Errorf("a rolled-back chunk is found: %v", hits)
	}
}

func testFilter(t *testing.T, st store.Backend) {
	ctx := context.Background()
	en := doc("a", "en.md", "E", "x", "Work")
	en.Lang = "en-gb"
	fr := doc("a", "fr.md", "F", "x", "work", "home")
	fr.Lang = "fr"
	put(t, st, 1, en, fr, doc("b", "n.md", "N", "x", "home"))
	ids := func(f store.Filter) []string {
		set, err := st.FilterDocs(ctx, f)
		check(t, err)
		docs, err := st.Docs(ctx, keys(set))
		check(t, err)
		var out []string
		for _, d := range docs {
			out = append(out, d.RelPath)
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct {
		f    store.Filter
		want []string
	}{
		{store.Filter{}, []string{"en.md", "fr.md", "n.md"}},
		{store.Filter{Collections: []string{"b"}}, []string{"n.md"}},
		{store.Filter{Lang: "en"}, []string{"en.md"}},
		{store.Filter{TagsAny: []string{"home", "none"}}, []string{"fr.md", "n.md"}},
		{store.Filter{TagsAll: []string{"home", "work"}}, []string{"fr.md"}},
		{store.Filter{Collections: []string{"a"}, TagsAny: []string{"home"}}, []string{"fr.md"}},
	} {
		if got := ids(c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.f, got, c.want)
		}
	}
}

func keys(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
