package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDriverErrorsHidden: the server's and the driver's errors are
// database errors, whose text gnoerr.Public never shows.
func TestDriverErrorsHidden(t *testing.T) {
	err := fmt.Errorf("read documents: %w", &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: `relation "documents" does not exist`})
	if !store.IsDatabaseError(err) {
		t.Fatal("a PgError is not a database error")
	}
	if p := gnoerr.Public(err); strings.Contains(p, "relation") || strings.Contains(p, "42P01") {
		t.Errorf("Public shows the server's text: %q", p)
	}
	if !store.IsDatabaseError(errors.New("x: ERROR: boom (SQLSTATE 23505)")) {
		t.Error("SQLSTATE text is not recognised")
	}
}

func open(t *testing.T, u string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestNewerSchemaRefused: an index made by a newer gno is refused with a
// clear error, and nothing is written to it.
func TestNewerSchemaRefused(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	if err := st.SetMeta(ctx, "schema", "99"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err := store.OpenBackend(ctx, u)
	if err == nil || !strings.Contains(err.Error(), "newer gno") || gnoerr.CodeOf(err) != gnoerr.Unavailable {
		t.Fatalf("newer schema: %v", err)
	}
}

// TestRefusedPassword: a wrong password is a clear error that names the
// server without any password.
func TestRefusedPassword(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "not-the-password")
	_, err = store.OpenBackend(context.Background(), u.String())
	if err == nil {
		t.Fatal("a wrong password opened the index")
	}
	p := gnoerr.Public(err)
	if !strings.Contains(p, "refused the password") || strings.Contains(p, "not-the-password") {
		t.Errorf("message %q", p)
	}
}

// TestWriterLock: one writer at a time, per database; unlocked, the next
// takes it.
func TestWriterLock(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.LockBackend(ctx, u, 0); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("second writer: %v, want LOCKED", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// TestUnsupportedIsClear: a method not implemented yet says so, as
// store.ErrUnsupported and UNAVAILABLE, without a panic.
func TestUnsupportedIsClear(t *testing.T) {
	st := open(t, pgtest.Fresh(t))
	defer st.Close()
	_, err := st.PkgVersionCount(context.Background())
	if !errors.Is(err, store.ErrUnsupported) || gnoerr.CodeOf(err) != gnoerr.Unavailable || !strings.Contains(gnoerr.Public(err), "not supported on PostgreSQL yet") {
		t.Errorf("PkgVersionCount: %v", err)
	}
}

// TestUnreachableServer: a URL no server answers is a clear error naming
// the server, not the driver's text.
func TestUnreachableServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := store.OpenBackend(ctx, "postgres://gno:pw@127.0.0.1:1/gno?connect_timeout=5")
	if err == nil {
		t.Fatal("opened an index on a closed port")
	}
	p := gnoerr.Public(err)
	if !strings.Contains(p, "cannot connect") || strings.Contains(p, "pw@") {
		t.Errorf("message %q", p)
	}
	if _, err := store.OpenBackend(ctx, "postgres://h:x:y/%zz"); err == nil || gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("a malformed URL: %v", err)
	}
}

// TestSchema1GetsLinks: an index made before links were stored (schema
// 1, no doc_links) gets its Markdown notes' links when opened.
func TestSchema1GetsLinks(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	text := "---\naliases: [Bee]\n---\n[[b]] and [[nowhere]]\n"
	put := func(rel, text string) *store.Document {
		return &store.Document{Collection: "c", RelPath: rel, Hash: rel, Content: text, Mime: "text/markdown", Links: links.Extract(text), Aliases: links.Aliases(text)}
	}
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*store.Document{put("a.md", text), put("b.md", "no links\n")} {
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE doc_links; UPDATE meta SET value = '1' WHERE key = 'schema'"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	st = open(t, u)
	defer st.Close()
	a, err := st.DocByPath(ctx, "c", "a.md")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := st.LinksFrom(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Other == nil || ls[0].Other.RelPath != "b.md" || ls[1].Other != nil {
		t.Fatalf("links after the upgrade: %+v", ls)
	}
	if c, err := st.Candidates(ctx, []string{"bee"}); err != nil || len(c["bee"]) != 1 {
		t.Fatalf("aliases after the upgrade: %v, %v", c, err)
	}
	if v, err := st.Meta(ctx, "schema"); err != nil || v != "5" { // the version this gno writes
		t.Fatalf("schema %q, %v", v, err)
	}
}

// TestSchema3GetsBlocks: an index of schema 3 (a row per posting,
// fts_postings) has its postings regrouped into blocks when opened, and
// searches it as before.
func TestSchema3GetsBlocks(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"alpha", "beta", "gamma", "delta", "the"}
	for i := range 40 {
		var text []string
		for j := range 3 + i%7 {
			text = append(text, words[(i*j+j)%len(words)])
		}
		d := &store.Document{Collection: "c", RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i), Content: strings.Join(text, " "), NoLinks: true,
			Chunks: []chunk.Chunk{{Text: strings.Join(text, " "), StartLine: 1, EndLine: 1}, {Text: "the " + words[i%4], StartLine: 2, EndLine: 2}}}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	qs := []query.Keywords{{Terms: []string{"alpha"}}, {Terms: []string{"the", "gamma", "beta"}}, {Terms: []string{"delta"}, All: true}, {Phrases: []string{"the alpha"}}}
	search := func() [][]store.ChunkHit {
		var out [][]store.ChunkHit
		for _, q := range qs {
			h, err := st.SearchFTS(ctx, q, store.Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, h)
		}
		return out
	}
	want := search()
	st.Close()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE fts_postings(ix SMALLINT NOT NULL, term TEXT COLLATE "C" NOT NULL, chunk_id BIGINT NOT NULL,
		wf DOUBLE PRECISION NOT NULL, len INTEGER NOT NULL, PRIMARY KEY(ix, term, chunk_id) INCLUDE (wf, len));
		INSERT INTO fts_postings SELECT b.ix, b.term, u.i, u.f, u.l FROM fts_blocks b, unnest(b.ids, b.wfs, b.lens) AS u(i, f, l);
		DROP TABLE fts_blocks; UPDATE meta SET value = '3' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	// An older gno syncing (it holds the writer's lock): the upgrade
	// waits for it, with a clear error, and writes nothing.
	refusedWhileWriting(ctx, t, conn, u, "3")
	conn.Close(ctx) // releases the writer's lock

	st = open(t, u)
	defer st.Close()
	if got := search(); fmt.Sprint(got) != fmt.Sprint(want) || len(want[0]) == 0 {
		t.Fatalf("after the upgrade:\n %v\nbefore:\n %v", got, want)
	}
	if v, err := st.Meta(ctx, "schema"); err != nil || v != "5" {
		t.Fatalf("schema %q, %v", v, err)
	}
	var gone bool
	if err := st.OneForTest(ctx, "SELECT to_regclass('fts_postings') IS NULL", &gone); err != nil || !gone {
		t.Fatalf("fts_postings left: %v, %v", gone, err)
	}
}

// TestSchema4GetsSubBounds: an index of schema 4 (blocks without
// sub-bounds) gets them when opened, under the writer's lock (refused,
// nothing written, while another gno holds it), equal to those the
// write path computes; doctor's schema line says the upgrade ran, and
// searches answer as before.
func TestSchema4GetsSubBounds(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	postgres.SetFirstRead(t, 0) // the words after the rarest read by sub-blocks
	st := open(t, u)
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"}
	for i := range 300 { // one flush: "the" gets a block of 300 postings (3 sub-blocks)
		text := []string{"the"}
		for j := range 1 + i%5 {
			text = append(text, words[(i*7+j*3)%len(words)])
		}
		if i%4 == 0 {
			text = append(text, "the", "the")
		}
		d := &store.Document{Collection: "c", RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i), Content: strings.Join(text, " "), NoLinks: true,
			Chunks: []chunk.Chunk{{Text: strings.Join(text, " "), StartLine: 1, EndLine: 1}}}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	qs := []query.Keywords{{Terms: []string{"the"}}, {Terms: []string{"eta", "the"}}, {Terms: []string{"alpha", "beta", "the"}}, {Terms: []string{"zeta"}, All: true}}
	search := func() string {
		var out []string
		for _, q := range qs {
			for _, limit := range []int{1, 5, 20} {
				h, err := st.SearchFTS(ctx, q, store.Filter{}, limit)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprint(h))
			}
		}
		return strings.Join(out, "\n")
	}
	const subs = `SELECT coalesce(string_agg(format('%s %s %s %s', term, sub_wf, sub_lr, sub_first), ';' ORDER BY ix, term, first), '') FROM fts_blocks WHERE sub_wf IS NOT NULL`
	var wantSubs string
	if err := st.OneForTest(ctx, subs, &wantSubs); err != nil || !strings.Contains(wantSubs, "the ") {
		t.Fatalf("no sub-bounds written for the: %q, %v", wantSubs, err)
	}
	want := search()
	st.Close()

	conn := toSchema4(ctx, t, u)
	refusedWhileWriting(ctx, t, conn, u, "4")
	var cols int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'fts_blocks' AND column_name LIKE 'sub_%'").Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("%d sub-bound columns (%v) after a refused upgrade, want none", cols, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", postgres.LockKey); err != nil {
		t.Fatal(err)
	}

	st = open(t, u)
	defer st.Close()
	var gotSubs string
	if err := st.OneForTest(ctx, subs, &gotSubs); err != nil || gotSubs != wantSubs {
		t.Fatalf("sub-bounds after the upgrade:\n %q (%v)\nwritten:\n %q", gotSubs, err, wantSubs)
	}
	if got := search(); got != want {
		t.Fatalf("after the upgrade:\n%s\nbefore:\n%s", got, want)
	}
	srv, err := st.Server(ctx)
	if err != nil || !strings.HasPrefix(srv.Schema, "5 (upgraded from schema 4 to 5 at ") {
		t.Fatalf("doctor's schema %q (%v)", srv.Schema, err)
	}
}

// toSchema4 makes the index at u one of schema 4 (no sub-bounds) and
// is a connection to it, closed when the test ends.
func toSchema4(ctx context.Context, t *testing.T, u string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, `ALTER TABLE fts_blocks DROP COLUMN sub_wf, DROP COLUMN sub_lr, DROP COLUMN sub_first, DROP COLUMN sub_n;
		UPDATE meta SET value = '4' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	return conn
}

// refusedWhileWriting takes the writer's lock on conn (as an older gno
// syncing holds it) and checks that opening the index at u for an
// upgrade is refused with a clear error and leaves its schema at old.
func refusedWhileWriting(ctx context.Context, t *testing.T, conn *pgx.Conn, u, old string) {
	t.Helper()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", postgres.LockKey); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(ctx, u); err == nil || !strings.Contains(err.Error(), "another gno is syncing it") {
		t.Fatalf("opened for an upgrade while a writer held the index: %v", err)
	}
	var schema string
	if err := conn.QueryRow(ctx, "SELECT value FROM meta WHERE key = 'schema'").Scan(&schema); err != nil || schema != old {
		t.Fatalf("schema %q (%v) after a refused upgrade, want %s", schema, err, old)
	}
}
