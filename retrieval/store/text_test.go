package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
)

// textCorpus writes documents chunked as the indexer does (several
// chunks each, some CJK), one whose chunk text is not its range and one
// with an empty chunk.
func textCorpus(t *testing.T, st *Store) {
	t.Helper()
	ctx := context.Background()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda omicron sigma tau upsilon phi chi psi omega 東京 検索 索引")
	for i := range 400 {
		var src strings.Builder
		fmt.Fprintf(&src, "# Note %d\n\n", i)
		for p := range 6 {
			fmt.Fprintf(&src, "## Part %d\n\n", p)
			for w := range 60 {
				src.WriteString(words[(i*7+p*13+w*w)%len(words)])
				src.WriteByte(' ')
			}
			src.WriteString("\n\n")
		}
		content := src.String()
		d := &Document{Collection: "c", RelPath: fmt.Sprintf("n%03d.md", i), Hash: fmt.Sprint(i), Title: fmt.Sprintf("Note %d", i),
			Content: content, Chunks: chunk.Markdown(content, chunk.Options{Tokens: 60}), NoLinks: true}
		switch i {
		case 1:
			d.Chunks[0].Text = "a text of its own, not its range"
		case 2:
			d.Chunks[1].Text = ""
		}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// indexView is everything a reader gets from the chunks and the word index.
type indexView struct {
	Chunks   map[int64]ChunkRow
	Embed    []ChunkText
	Searches [][]ChunkHit
}

func viewOf(t *testing.T, st *Store) indexView {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	for d := int64(1); d <= 400; d++ {
		for s := range 20 {
			ids = append(ids, ChunkID(d, s))
		}
	}
	cs, err := st.Chunks(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	v := indexView{Chunks: map[int64]ChunkRow{}}
	for id, c := range cs {
		v.Chunks[id] = *c
	}
	if v.Embed, err = st.Unembedded(ctx, ""); err != nil {
		t.Fatal(err)
	}
	for _, q := range []query.Keywords{{Terms: []string{"alpha", "omega"}}, {Terms: []string{"kappa"}}, {Phrases: []string{"sigma tau"}}, {Terms: []string{"own", "range"}}, {CJK: []string{"東京"}}} {
		h, err := st.SearchFTS(ctx, q, Filter{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		v.Searches = append(v.Searches, h)
	}
	return v
}

// toSchema5 gives an index schema 5's layout: every chunk's text in its
// body and the external-content word index kept by triggers.
func toSchema5(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`UPDATE chunks SET body = CAST(substr(CAST((SELECT content FROM contents t WHERE t.doc_id = chunks.doc_id) AS BLOB), start_byte + 1, end_byte - start_byte) AS TEXT)
			WHERE body = '' AND end_byte > start_byte`,
		"DROP TRIGGER chunks_ad",
		"DROP TABLE chunks_fts",
		`CREATE VIRTUAL TABLE chunks_fts USING fts5(title, headings, body,
			content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
		`CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
			INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (new.id, new.title, new.headings, new.body);
		END`,
		`CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
			INSERT INTO chunks_fts(chunks_fts, rowid, title, headings, body) VALUES ('delete', old.id, old.title, old.headings, old.body);
			DELETE FROM chunks_tri WHERE rowid = old.id;
		END`,
		"INSERT INTO chunks_fts(chunks_fts) VALUES('rebuild')",
		"PRAGMA user_version = 5",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// layout reads the schema version, how many chunks keep their text and
// whether schema 5's insert trigger is there.
func layout(t *testing.T, path string) (version, withBody int, oldTrigger bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT count(*) FROM chunks WHERE body != ''").Scan(&withBody); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'chunks_ai'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return version, withBody, n == 1
}

// TestStoreTextOnce: an index of schema 5 (text in contents, again in
// every chunk's body, read again by the word index) upgrades to schema 6
// with every chunk text, embedding input and search result unchanged;
// only chunks whose text is not their range keep a body; an upgrade
// stopped part way (a kill) leaves schema 5 whole and the next open
// finishes it; and writes after it keep the word index consistent.
func TestStoreTextOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	textCorpus(t, st)
	want := viewOf(t, st)
	st.Close()
	if len(want.Chunks) < 2*migratePage || len(want.Searches[0]) == 0 || len(want.Searches[4]) == 0 {
		t.Fatalf("corpus too small to test: %d chunks, searches %v", len(want.Chunks), want.Searches)
	}
	if own, empty := want.Chunks[ChunkID(2, 0)].Body, want.Chunks[ChunkID(3, 1)].Body; own != "a text of its own, not its range" || empty != "" {
		t.Fatalf("chunks of their own text read back as %q, %q", own, empty)
	}
	if c := want.Chunks[ChunkID(4, 2)]; len(c.Body) < 20 {
		t.Fatalf("a chunk read back as %q", c.Body)
	}
	_, withBody, _ := layout(t, path)
	if withBody != 1 {
		t.Fatalf("%d chunks keep a body, want 1 (the one whose text is not its range)", withBody)
	}

	toSchema5(t, path)
	v5, withBody5, trig := layout(t, path)
	if v5 != 5 || withBody5 < len(want.Chunks)-1 || !trig {
		t.Fatalf("schema 5 layout: version %d, %d bodies, trigger %v", v5, withBody5, trig)
	}

	// Stopped after two pages: nothing of the upgrade is left.
	pages := 0
	migrateHook = func() error {
		if pages++; pages > 2 {
			return errors.New("killed")
		}
		return nil
	}
	if _, err := Open(ctx, path); err == nil {
		t.Fatal("an upgrade stopped part way opened the index")
	}
	migrateHook = func() error { return nil }
	if v, n, trig := layout(t, path); v != 5 || n != withBody5 || !trig {
		t.Fatalf("after a stopped upgrade: version %d, %d bodies (want 5, %d), trigger %v", v, n, withBody5, trig)
	}

	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, n, trig := layout(t, path); v != schemaVersion || n != 1 || trig {
		t.Fatalf("upgraded: version %d, %d bodies, trigger %v", v, n, trig)
	}
	if got := viewOf(t, st); !reflect.DeepEqual(got, want) {
		t.Fatal("chunks, embedding input or search results changed by the upgrade")
	}
	problems, err := st.Check(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("check after upgrade: %v %v", problems, err)
	}
	// Rewriting and removing documents deletes their word index rows.
	b, err := st.Begin(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	content := "# Replaced\n\nnothing but zzyzx here\n"
	if err := b.Put(ctx, &Document{Collection: "c", RelPath: "n000.md", Hash: "new", Content: content, Chunks: chunk.Markdown(content, chunk.Options{}), NoLinks: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for q, n := range map[string]int{"zzyzx": 1, "alpha": -1} {
		h, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{q}}, Filter{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range h {
			if x.DocID == 5 {
				t.Fatalf("%q finds the removed document", q)
			}
		}
		if n >= 0 && len(h) != n {
			t.Fatalf("%q: %d hits, want %d", q, len(h), n)
		}
	}
	if problems, err := st.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("check after writes: %v %v", problems, err)
	}
}

// TestPageSize: a new index has 16 KiB pages; an index made with 4 KiB
// pages keeps them and opens as before.
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	size := func(path string) int {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	fresh := filepath.Join(dir, "new.sqlite")
	st, err := Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if n := size(fresh); n != 16384 {
		t.Fatalf("new index: %d-byte pages", n)
	}
	old := filepath.Join(dir, "old.sqlite")
	db, err := sql.Open("sqlite", "file:"+old+"?_pragma=page_size(4096)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE x(y)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err = Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	textCorpus(t, st)
	st.Close()
	if n := size(old); n != 4096 {
		t.Fatalf("existing index: %d-byte pages, want its 4096", n)
	}
}
