package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// dbText is what the databases' own errors look like
// (SQLite's, and Postgres's through pgx).
var dbText = regexp.MustCompile(`(^|[^A-Za-z])sql: |SQL logic error|SQLITE|no such table|SQLSTATE|relation "|pgx`)

// TestCLINoDatabaseText: with the index's contents table gone, every
// command says what to do and prints the database's text only under -v.
func TestCLINoDatabaseText(t *testing.T) {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("# Alpha\n\nThe quick brown fox.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.md"), []byte("# Beta\n\nLazy dogs sleep near the fox.\n"), 0o644)
	c.ok("collection", "add", root, "--name", "docs")
	c.ok("update")
	detail := "no such table: contents"
	if c.store != "" {
		pgtest.Exec(t, c.store, "DROP TABLE contents")
		detail = `relation "contents" does not exist`
	} else {
		db, err := sql.Open("sqlite", filepath.Join(c.home, "data", "default", "index.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("DROP TABLE contents"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	for _, args := range [][]string{
		{"get", "docs/a.md"},
		{"--json", "get", "docs/a.md"},
		{"multi-get", "docs/a.md,docs/b.md"},
		{"multi-get", "--json", "docs/*.md"},
		{"search", "fox", "--full"},
		{"search", "--json", "fox", "--full"},
	} {
		out, errOut, _ := c.run(args...)
		if loc := dbText.FindStringIndex(out + errOut); loc != nil {
			t.Errorf("gno %s shows the database's text: %q", strings.Join(args, " "), (out + errOut)[max(0, loc[0]-80):min(len(out+errOut), loc[1]+80)])
		}
	}
	_, errOut, code := c.run("get", "docs/a.md")
	if code != 1 || !strings.Contains(errOut, gnoerr.Internal) {
		t.Errorf("get: exit %d, %q", code, errOut)
	}
	if _, errOut, _ := c.run("-v", "get", "docs/a.md"); !strings.Contains(errOut, detail) {
		t.Errorf("-v does not show the detail: %q", errOut)
	}
}
