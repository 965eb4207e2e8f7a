package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// dbText is what the databases' own errors look like (SQLite's, and
// Postgres's through pgx): none of it may reach an agent.
var dbText = regexp.MustCompile(`(^|[^A-Za-z])sql: |SQL logic error|SQLITE|no such table|SQLSTATE|relation "|pgx`)

// TestNoDatabaseTextReachesAgent: with the index's contents table gone
// (a damaged or foreign database), the tools fail with the contract's
// RUNTIME and a message that says what to do; the database's text stays
// in the server's log.
func TestNoDatabaseTextReachesAgent(t *testing.T) {
	f := newFixture(t)
	if f.store != "" {
		pgtest.Exec(t, f.store, "DROP TABLE contents")
	} else {
		e, err := retrieval.Open(context.Background(), retrieval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dbFile := e.Paths.DBFile
		e.Close()
		db, err := sql.Open("sqlite", dbFile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("DROP TABLE contents"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	c := startClient(t, newTestServer(t, f, false))
	msg := c.toolErr("gno_get", map[string]any{"ref": "gno://notes/alpha.md"}, string(gnoerr.Runtime))
	if msg != gnoerr.Internal {
		t.Errorf("gno_get: %q, want %q", msg, gnoerr.Internal)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"gno_get", map[string]any{"ref": "gno://notes/alpha.md"}},
		{"gno_multi_get", map[string]any{"refs": []any{"gno://notes/alpha.md", "notes/sub/beta.md"}}},
		{"gno_multi_get", map[string]any{"pattern": "notes/*.md"}},
		{"gno_search", map[string]any{"query": "fox", "full": true}},
	} {
		r := c.tool(call.tool, call.args)
		out, _ := json.Marshal(r)
		if loc := dbText.FindIndex(out); loc != nil {
			t.Errorf("%s(%v) shows the database's text: %s", call.tool, call.args, out[max(0, loc[0]-80):min(len(out), loc[1]+80)])
		}
	}
	res := c.call("resources/read", map[string]any{"uri": "gno://notes/alpha.md"})
	if out, _ := json.Marshal(res); dbText.Match(out) {
		t.Errorf("resources/read shows the database's text: %s", out)
	}
}
