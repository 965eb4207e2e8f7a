package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// newEngine makes an engine with its own GNO_HOME and one collection
// "notes" over a fresh folder holding files.
func newEngine(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	pgtest.Home(t, t.TempDir())
	root := t.TempDir()
	for name, body := range files {
		write(t, root, name, body)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "Notes", Path: root, Include: []string{"**/*.txt"}})
		// Budgets are for a warm, quiet machine; a loaded test machine must
		// not cut stages the tests look at.
		lots := config.Duration(30 * time.Second)
		c.Search.Budgets = map[string]config.Duration{"fast": lots, "default": lots, "thorough": lots}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return e, root
}

func write(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func update(t *testing.T, e *Engine) *UpdateResult {
	t.Helper()
	res, err := e.Update(context.Background(), UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	return res
}

func search(t *testing.T, e *Engine, q string) []Result {
	t.Helper()
	res, err := e.Search(context.Background(), SearchRequest{Query: q, Limit: 10})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return res.Results
}

var corpus = map[string]string{
	"sqlite.md":      "---\ntitle: SQLite WAL\ntags: [db, sqlite]\nlang: en\n---\n# Write-ahead log\n\nReaders do not block writers in WAL mode.\n",
	"bm25.md":        "# BM25 ranking\n\nRare terms weigh more than common ones.\n",
	"sub/dir/rrf.md": "# Fusion\n\nReciprocal rank fusion merges ranked lists.\n",
	"plain.txt":      "Plain text notes about checkpoints.\n\nSecond paragraph.\n",
	"zh.md":          "# 数据库\n\n全文检索使用倒排索引。\n",
	"ignored.rst":    "not indexed",
}

func TestUpdateSearchGet(t *testing.T) {
	e, root := newEngine(t, corpus)
	ctx := context.Background()
	res := update(t, e)
	if c := res.Collections[0]; c.Added != 5 || c.Collection != "notes" {
		t.Fatalf("first update: %+v", c)
	}
	// Natural-language questions match on any word (OR), not all.
	rs := search(t, e, "how do readers and writers interact in sqlite?")
	if len(rs) == 0 || rs[0].URI != "gno://notes/sqlite.md" {
		t.Fatalf("results: %+v", rs)
	}
	r := rs[0]
	if r.Score <= 0 || r.Score > 1 || !strings.HasPrefix(r.DocID, "#") || len(r.DocID) != 9 {
		t.Errorf("bad result fields: %+v", r)
	}
	if r.Source.AbsPath != filepath.Join(root, "sqlite.md") || r.Source.Mime != "text/markdown" || r.Source.Ext != ".md" {
		t.Errorf("bad source: %+v", r.Source)
	}
	if strings.Join(r.Tags, ",") != "db,sqlite" || r.Lang != "en" || r.Title != "SQLite WAL" {
		t.Errorf("front matter not applied: %+v", r)
	}
	// Every REF form reaches the same document.
	for _, ref := range []string{r.URI, "notes/sqlite.md", r.DocID, "NOTES/sqlite.md"} {
		d, err := e.Get(ctx, GetRequest{Ref: ref})
		if err != nil || d.URI != r.URI || !strings.Contains(d.Content, "Readers do not block") {
			t.Fatalf("get %s: %+v %v", ref, d, err)
		}
	}
	d, err := e.Get(ctx, GetRequest{Ref: r.URI, FromLine: 6, LineCount: 1})
	if err != nil || d.Content != "# Write-ahead log" || d.ReturnedLines != (LineRange{6, 6}) || d.TotalLines != 8 {
		t.Fatalf("line range: %+v %v", d, err)
	}
	// Plain text and CJK.
	if rs := search(t, e, "checkpoints"); len(rs) != 1 || rs[0].Source.Mime != "text/plain" {
		t.Fatalf("txt: %+v", rs)
	}
	if rs := search(t, e, "倒排索引的原理"); len(rs) != 1 || rs[0].URI != "gno://notes/zh.md" || rs[0].Lang != "zh" {
		t.Fatalf("cjk: %+v", rs)
	}
	// Phrases and exclusions.
	if rs := search(t, e, `"rank fusion"`); len(rs) != 1 {
		t.Fatalf("phrase: %+v", rs)
	}
	if rs := search(t, e, `ranking -rare`); len(rs) != 1 || rs[0].URI != "gno://notes/sub/dir/rrf.md" {
		t.Fatalf("exclude: %+v", rs)
	}
}

func TestFilters(t *testing.T) {
	e, _ := newEngine(t, corpus)
	update(t, e)
	ctx := context.Background()
	run := func(req SearchRequest) []Result {
		req.Limit = 10
		res, err := e.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Results
	}
	if rs := run(SearchRequest{Query: "readers ranking fusion", TagsAny: []string{"#SQLite"}}); len(rs) != 1 {
		t.Errorf("tagsAny: %+v", rs)
	}
	if rs := run(SearchRequest{Query: "readers ranking fusion", TagsAll: []string{"db", "nope"}}); len(rs) != 0 {
		t.Errorf("tagsAll: %+v", rs)
	}
	if rs := run(SearchRequest{Query: "readers ranking fusion", Lang: "en"}); len(rs) != 1 {
		t.Errorf("lang: %+v", rs)
	}
	if rs := run(SearchRequest{Query: "readers", MinScore: 0.99}); len(rs) != 0 {
		t.Errorf("minScore: %+v", rs)
	}
}

func TestBadQueries(t *testing.T) {
	e, _ := newEngine(t, corpus)
	update(t, e)
	ctx := context.Background()
	for q, code := range map[string]gnoerr.Code{"": gnoerr.InvalidInput, "   ": gnoerr.InvalidInput, `- * " : ( ) ^`: gnoerr.InvalidInput} {
		if _, err := e.Search(ctx, SearchRequest{Query: q}); gnoerr.CodeOf(err) != code {
			t.Errorf("query %q: %v", q, err)
		}
	}
	// FTS5 syntax in user text is just text.
	for _, q := range []string{`NEAR(a b)`, `col:term*`, `((unbalanced`, `"unterminated`, `AND OR NOT`} {
		if _, err := e.Search(ctx, SearchRequest{Query: q}); err != nil && gnoerr.CodeOf(err) != gnoerr.InvalidInput {
			t.Errorf("query %q: %v", q, err)
		}
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "x", Collection: "nope"}); gnoerr.CodeOf(err) != gnoerr.NotFound {
		t.Errorf("unknown collection: %v", err)
	}
	for ref, code := range map[string]gnoerr.Code{
		"notes/missing.md": gnoerr.NotFound, "#deadbeef": gnoerr.NotFound, "notes/../../etc/passwd": gnoerr.InvalidPath,
		"nope/x.md": gnoerr.NotFound, "garbage": gnoerr.InvalidInput,
	} {
		if _, err := e.Get(ctx, GetRequest{Ref: ref}); gnoerr.CodeOf(err) != code {
			t.Errorf("get %q: %v (want %s)", ref, err, code)
		}
	}
}

func TestIncrementalSync(t *testing.T) {
	e, root := newEngine(t, corpus)
	ctx := context.Background()
	update(t, e)
	res := update(t, e)
	if c := res.Collections[0]; c.Unchanged != 5 || c.Changed() || res.Generation != 1 {
		t.Fatalf("no-change sync: %+v gen %d", c, res.Generation)
	}
	// Same content, new mtime: hash decides, nothing re-indexed.
	os.Chtimes(filepath.Join(root, "bm25.md"), timeNow(), timeNow())
	write(t, root, "sub/dir/rrf.md", "# Fusion\n\nReciprocal rank fusion merges ranked lists. Now with zebras.\n")
	os.Remove(filepath.Join(root, "plain.txt"))
	write(t, root, "new.md", "# New\n\nA new note about giraffes.\n")
	res = update(t, e)
	c := res.Collections[0]
	if c.Added != 1 || c.Updated != 1 || c.Removed != 1 || c.Unchanged != 3 || res.Generation != 2 {
		t.Fatalf("incremental: %+v gen %d", c, res.Generation)
	}
	if rs := search(t, e, "zebras"); len(rs) != 1 {
		t.Fatal("modified content not searchable")
	}
	if rs := search(t, e, "checkpoints"); len(rs) != 0 {
		t.Fatal("removed file still found")
	}
	ch, err := e.Notes().Changes(ctx, ChangesRequest{Collection: "", Since: 1})
	if err != nil || len(ch.Added) != 1 || len(ch.Modified) != 1 || len(ch.Removed) != 1 || ch.Generation != 2 {
		t.Fatalf("changes: %+v %v", ch, err)
	}
}

func TestBadFiles(t *testing.T) {
	e, root := newEngine(t, corpus)
	write(t, root, "binary.md", "PK\x00\x03 binary")
	write(t, root, "latin1.md", "# Caf\xe9\n\nna\xefve text\r\nwith CRLF\r\n")
	write(t, root, "bom.md", "\xef\xbb\xbf# Bom title\n\nbody\n")
	big := make([]byte, 11<<20)
	for i := range big {
		big[i] = 'a'
	}
	os.WriteFile(filepath.Join(root, "huge.md"), big, 0o644)
	os.Symlink(root, filepath.Join(root, "loop"))
	os.Symlink("/etc/hostname", filepath.Join(root, "outside.md"))
	write(t, root, ".git/config.md", "# secret")
	write(t, root, "node_modules/x.md", "# dep")
	res := update(t, e)
	c := res.Collections[0]
	if c.Skipped["binary"] != 1 || c.Skipped["too large"] != 1 || c.Skipped["symlink outside root"] != 1 {
		t.Fatalf("skips: %+v", c)
	}
	if c.InvalidBytes != 2 || c.Added != 7 {
		t.Fatalf("added %d invalid %d", c.Added, c.InvalidBytes)
	}
	d, err := e.Get(context.Background(), GetRequest{Ref: "notes/latin1.md"})
	if err != nil || strings.Contains(d.Content, "\r") || !strings.Contains(d.Content, "Caf\ufffd") {
		t.Fatalf("normalisation: %q %v", d.Content, err)
	}
	if d, _ := e.Get(context.Background(), GetRequest{Ref: "notes/bom.md"}); d.Title != "Bom title" {
		t.Fatalf("BOM title: %q", d.Title)
	}
}

func TestUnreadableFileKeepsEntry(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	e, root := newEngine(t, corpus)
	update(t, e)
	p := filepath.Join(root, "bm25.md")
	write(t, root, "bm25.md", "# BM25 ranking\n\nchanged\n")
	os.Chmod(p, 0)
	defer os.Chmod(p, 0o644)
	res := update(t, e)
	if c := res.Collections[0]; c.Skipped["unreadable"] != 1 || c.Removed != 0 {
		t.Fatalf("unreadable: %+v", c)
	}
}

func TestVanishedRootKeepsIndex(t *testing.T) {
	e, root := newEngine(t, corpus)
	update(t, e)
	os.RemoveAll(root)
	if _, err := e.Update(context.Background(), UpdateOptions{}); err == nil {
		t.Fatal("want an error for a missing root")
	}
	if rs := search(t, e, "ranking"); len(rs) == 0 {
		t.Fatal("index emptied by a missing root")
	}
	st, _ := e.Status(context.Background())
	if st.Healthy {
		t.Fatal("status healthy with a missing root")
	}
}

func TestConcurrentUpdates(t *testing.T) {
	e, _ := newEngine(t, corpus)
	e2, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, eng := range []*Engine{e, e2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = eng.Update(context.Background(), UpdateOptions{LockWait: 30e9})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if rs := search(t, e, "ranking"); len(rs) != 2 {
		t.Fatalf("after concurrent updates: %d results", len(rs))
	}
	// Without waiting, a held lock is reported as LOCKED.
	lockHeld(t, e)
}

func TestCollectionsAndContexts(t *testing.T) {
	e, _ := newEngine(t, corpus)
	ctx := context.Background()
	err := e.UpdateConfig(ctx, func(c *config.Config) error { return c.AddContext("notes/sub", "Ranking notes") })
	if err != nil {
		t.Fatal(err)
	}
	update(t, e)
	rs := search(t, e, "fusion")
	if len(rs) != 1 || len(rs[0].Context) != 1 || rs[0].Context[0] != "Ranking notes" {
		t.Fatalf("context: %+v", rs)
	}
	err = e.UpdateConfig(ctx, func(c *config.Config) error { return c.RemoveCollection("NOTES") })
	if gnoerr.CodeOf(err) != gnoerr.HasReferences {
		t.Fatalf("remove referenced: %v", err)
	}
	for _, p := range []string{"/", "/etc", "~", "~/.ssh"} {
		err := e.UpdateConfig(ctx, func(c *config.Config) error { _, err := c.AddCollection(config.Collection{Path: p}); return err })
		if gnoerr.CodeOf(err) != gnoerr.InvalidPath {
			t.Errorf("add %s: %v", p, err)
		}
	}
	err = e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Path: "/definitely/missing"})
		return err
	})
	if gnoerr.CodeOf(err) != gnoerr.PathNotFound {
		t.Errorf("missing path: %v", err)
	}
	err = e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "notes", Path: t.TempDir()})
		return err
	})
	if gnoerr.CodeOf(err) != gnoerr.Duplicate {
		t.Errorf("duplicate: %v", err)
	}
}

func TestMultiGetAndList(t *testing.T) {
	e, _ := newEngine(t, corpus)
	update(t, e)
	ctx := context.Background()
	res, err := e.MultiGet(ctx, MultiGetRequest{Pattern: "notes/**/*.md"})
	if err != nil || res.Meta.Returned != 4 {
		t.Fatalf("pattern: %+v %v", res.Meta, err)
	}
	res, err = e.MultiGet(ctx, MultiGetRequest{Refs: []string{"notes/bm25.md", "notes/missing.md"}, MaxBytes: 10})
	if err != nil || res.Meta.Returned != 0 || res.Meta.Skipped != 2 || !strings.Contains(res.Skipped[1].Reason, "maxBytes") {
		t.Fatalf("refs: %+v %v", res, err)
	}
	if _, err := e.MultiGet(ctx, MultiGetRequest{}); gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Fatalf("neither refs nor pattern: %v", err)
	}
	ls, err := e.List(ctx, "notes/sub", 0, 0)
	if err != nil || len(ls) != 1 {
		t.Fatalf("ls: %+v %v", ls, err)
	}
}

func TestBrokenConfig(t *testing.T) {
	pgtest.Home(t, t.TempDir())
	p, _ := config.Resolve("", "")
	os.MkdirAll(filepath.Dir(p.ConfigFile), 0o755)
	os.WriteFile(p.ConfigFile, []byte("collections:\n  - name: a\n    path: /tmp\n    bogus: 1\n"), 0o644)
	_, err := Open(context.Background(), Options{})
	if err == nil || !strings.Contains(err.Error(), p.ConfigFile) || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("broken config error: %v", err)
	}
}

func TestRemovedCollectionNotFound(t *testing.T) {
	e, _ := newEngine(t, corpus)
	update(t, e)
	ctx := context.Background()
	e.UpdateConfig(ctx, func(c *config.Config) error { return c.RemoveCollection("notes") })
	if rs := search(t, e, "ranking"); len(rs) != 0 {
		t.Fatalf("removed collection still searched: %+v", rs)
	}
	if ls, _ := e.List(ctx, "", 0, 0); len(ls) != 0 {
		t.Fatalf("removed collection still listed: %+v", ls)
	}
	if n, err := e.Cleanup(ctx); err != nil || n != 5 {
		t.Fatalf("cleanup: %d %v", n, err)
	}
}

func TestManyChunksOneDocument(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 60; i++ {
		big.WriteString("## Part\n\nzebra zebra zebra stripes " + strings.Repeat("filler text ", 300) + "\n\n")
	}
	e, _ := newEngine(t, map[string]string{
		"big.md": big.String(),
		"a.md":   "# A\n\none zebra here\n",
		"b.md":   "# B\n\nanother zebra there\n",
	})
	update(t, e)
	res, err := e.Search(context.Background(), SearchRequest{Query: "zebra", Limit: 3})
	if err != nil || len(res.Results) != 3 {
		t.Fatalf("want 3 distinct documents: %+v %v", res, err)
	}
}

func TestBulkSyncKeepsMerging(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 1100; i++ {
		files[fmt.Sprintf("d%04d.md", i)] = fmt.Sprintf("# Doc %d\n\nword%d common text\n", i, i)
	}
	e, _ := newEngine(t, files)
	update(t, e)
	var v string
	rawDB(t, e).QueryRow("SELECT v FROM chunks_fts_config WHERE k = 'automerge'").Scan(&v)
	if v != "4" {
		t.Fatalf("automerge after a bulk sync = %q, want 4", v)
	}
	if rs := search(t, e, "word1050"); len(rs) != 1 {
		t.Fatalf("after bulk sync: %+v", rs)
	}
}

// A sync cut off part-way (a killed process, Ctrl-C) leaves every
// committed batch intact, and the next sync completes the rest.
func TestInterruptedSyncResumes(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 1300; i++ {
		files[fmt.Sprintf("d%04d.md", i)] = fmt.Sprintf("# Doc %d\n\nterm%d shared\n", i, i)
	}
	e, _ := newEngine(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := e.Update(ctx, UpdateOptions{Progress: func(p ingest.Progress) {
		if p.Done >= 700 {
			cancel()
		}
	}})
	if err == nil {
		t.Fatal("cancelled sync reported success")
	}
	st, _ := e.Status(context.Background())
	if st.TotalDocuments == 0 || st.TotalDocuments >= 1300 {
		t.Fatalf("after interruption: %d documents (want the committed batches)", st.TotalDocuments)
	}
	res := update(t, e)
	if c := res.Collections[0]; c.Added+c.Unchanged != 1300 || c.Added == 0 {
		t.Fatalf("resume: %+v", c)
	}
	if rs := search(t, e, "term1299"); len(rs) != 1 {
		t.Fatal("last document missing after resume")
	}
}
