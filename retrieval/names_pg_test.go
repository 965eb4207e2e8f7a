package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // registers postgres://
)

// TestUnstorableTextOnPostgres: a collection whose files carry bytes
// PostgreSQL's text refuses (a name that is not UTF-8; invalid UTF-8 in
// front matter, title, tags, links and body; a NUL past the binary
// sniff) syncs on both stores. SQLite indexes every file; Postgres skips
// the one whose name it cannot hold, with the reason status lists, and
// indexes the rest; `get` of that name is NOT_FOUND naming its ref; the
// text of the others is cleaned alike on both. It skips the Postgres
// half, saying why, when no server can be reached (pgtest).
func TestUnstorableTextOnPostgres(t *testing.T) {
	const badName = "bad\xc0\xafname.md"
	root := t.TempDir()
	files := map[string]string{
		"a.md":    "# Alpha\n\nalpha words here\n",
		"b.md":    "# Beta\n\nbeta words here\n",
		badName:   "# Bad\n\nbadname words here\n",
		"text.md": "---\ntitle: Ti\xfftle\ntags: [x\xfey, ok]\n---\n# H\n\nbody \xc3 text [[li\xffnk]] and [x](ta\xc0rget.md)\n",
		"nul.md":  strings.Repeat("filler ", 1300) + "\x00 nulword after\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", name, err)
		}
	}
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { pgtest.URL(t); return pgtest.Fresh(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			onPG := url != ""
			t.Setenv("GNO_HOME", t.TempDir())
			t.Setenv(StoreURLEnv, "")
			ctx := context.Background()
			e, err := Open(ctx, Options{Index: "names"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			if err := e.UpdateConfig(ctx, func(c *config.Config) error {
				c.Store = url
				_, err := c.AddCollection(config.Collection{Name: "vault", Path: root})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			res := update(t, e)
			c := res.Collections[0]
			want, skipped := 5, 0
			if onPG {
				want, skipped = 4, 1
			}
			if res.Generation == 0 || c.Added != want {
				t.Fatalf("update: generation %d, %+v; want %d added", res.Generation, c, want)
			}
			reason := ""
			for r, n := range c.Skipped {
				if n != 1 || !strings.Contains(r, "not valid UTF-8") {
					t.Errorf("skipped %q: %d", r, n)
				}
				reason = r
			}
			if len(c.Skipped) != skipped {
				t.Fatalf("skipped %v, want %d", c.Skipped, skipped)
			}
			status := func() map[string]int {
				t.Helper()
				st, err := e.Status(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return st.Collections[0].Skipped
			}
			if onPG && status()[reason] != 1 {
				t.Errorf("status skipped %v, want %q once", status(), reason)
			}

			d, err := e.Get(ctx, GetRequest{Ref: "vault/" + badName})
			switch {
			case onPG && (gnoerr.CodeOf(err) != gnoerr.NotFound || !strings.Contains(err.Error(), strconv.Quote("vault/"+badName))):
				t.Errorf("get of the unstorable name: %v, want NOT_FOUND naming it", err)
			case !onPG && (err != nil || !strings.Contains(d.Content, "badname words")):
				t.Errorf("get of %q on SQLite: %+v, %v", badName, d, err)
			}
			// The rest is indexed, its bad bytes cleaned alike on both.
			if rs := search(t, e, "alpha"); len(rs) == 0 || !strings.HasSuffix(rs[0].URI, "a.md") {
				t.Errorf("search alpha: %+v", rs)
			}
			d, err = e.Get(ctx, GetRequest{Ref: "vault/nul.md"})
			if err != nil || !strings.Contains(d.Content, "\uFFFD nulword") {
				t.Errorf("get nul.md: %v", err)
			}
			d, err = e.Get(ctx, GetRequest{Ref: "vault/text.md"})
			if err != nil || d.Title != "Ti\uFFFDtle" || !strings.Contains(d.Content, "body \uFFFD text") {
				t.Fatalf("get text.md: %+v, %v", d, err)
			}

			// Marking it reconciled is refused by name, never half-done.
			_, err = e.Notes().MarkReconciled(ctx, MarkRequest{Files: []string{"vault/a.md", "vault/" + badName}})
			if onPG && gnoerr.CodeOf(err) != gnoerr.InvalidPath || !onPG && err != nil {
				t.Errorf("mark reconciled of %q: %v", badName, err)
			}

			// Unchanged, the verdict stands without the file being read.
			c = update(t, e).Collections[0]
			if c.Added != 0 || c.Unchanged != want || len(c.Skipped) != skipped {
				t.Errorf("second update: %+v", c)
			}
			// Gone, its skip is forgotten.
			if err := os.Remove(filepath.Join(root, badName)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.WriteFile(filepath.Join(root, badName), []byte(files[badName]), 0o644) })
			c = update(t, e).Collections[0]
			if len(c.Skipped) != 0 || len(status()) != 0 {
				t.Errorf("after removing the file: %+v, status %v", c, status())
			}
		})
	}
}

// TestStoreCopyRefusesUnstorableNames: copying a SQLite index that holds
// a document whose name PostgreSQL cannot hold is refused up front, by
// name, with nothing written; the destination stays empty and unclaimed.
func TestStoreCopyRefusesUnstorableNames(t *testing.T) {
	pg := pgtest.Fresh(t)
	pgtest.SkipOnPostgres(t, "the source is a SQLite index")
	e, _ := newEngine(t, map[string]string{"ok.md": "# OK\n\nfine\n", "bad\xc0\xafname.md": "# Bad\n\nbad\n"})
	update(t, e)
	src := e.location()
	e.Close()
	ctx := context.Background()
	_, err := CopyStore(ctx, src, pg, nil)
	if !gnoerr.Is(err, gnoerr.InvalidInput) || !strings.Contains(err.Error(), `"bad\xc0\xafname.md": name not valid UTF-8`) {
		t.Fatalf("copy: %v", err)
	}
	st, err := store.OpenBackend(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	docs, err := st.List(ctx, nil, "", 0, 0)
	if meta, _ := st.Meta(ctx, CopyMetaSource); err != nil || len(docs) != 0 || meta != "" {
		t.Errorf("destination after a refused copy: %d documents, copy source %q, %v", len(docs), meta, err)
	}
}
