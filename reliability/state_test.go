package reliability

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/vector"
)

// snapshot is what "the same index" means: counts plus a digest over every
// document and chunk (vectors are counted, their values depend on batching), keyed by path (not by row id, which
// depends on the order files were indexed in).
type snapshot struct {
	Docs, Chunks, Vectors, LinkLists int
	Digest                           string
}

func (s snapshot) String() string {
	return fmt.Sprintf("%d docs, %d chunks, %d vectors, %d link lists, digest %.12s", s.Docs, s.Chunks, s.Vectors, s.LinkLists, s.Digest)
}

// openIndex opens an index directly, as gno does: its SQLite file, or
// its database on a server (a store URL).
func openIndex(t testing.TB, location string) store.Backend {
	t.Helper()
	st, err := store.OpenBackend(context.Background(), location)
	if err != nil {
		t.Fatalf("index does not open after the kill: %v", err)
	}
	return st
}

// rawDB opens the index file read-only beside gno, as an outside checker
// would: what a snapshot reads is gno's schema, not an API of gno's.
func rawDB(t testing.TB, dbFile string) *sql.DB {
	t.Helper()
	pgtest.SkipOnPostgres(t, "the check reads the SQLite file's rows and vector export as an outside checker would")
	db, err := sql.Open("sqlite", "file:"+dbFile+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func takeSnapshot(t testing.TB, dbFile string) snapshot {
	t.Helper()
	pgtest.SkipOnPostgres(t, "the snapshot reads the SQLite file's rows as an outside checker would")
	openIndex(t, dbFile).Close()
	db := rawDB(t, dbFile)
	defer db.Close()
	ctx := context.Background()
	var s snapshot
	h := sha256.New()
	rows, err := db.QueryContext(ctx, `SELECT d.collection, d.rel_path, d.hash, d.title, d.lang, d.line_count,
		coalesce((SELECT group_concat(tag, ',') FROM (SELECT tag FROM tags WHERE doc_id = d.id ORDER BY tag)), ''),
		length(t.content)
		FROM documents d JOIN contents t ON t.doc_id = d.id ORDER BY d.collection, d.rel_path`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var col, rel, hash, title, lang, tags string
		var lines, clen int
		if err := rows.Scan(&col, &rel, &hash, &title, &lang, &lines, &tags, &clen); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "D|%s|%s|%s|%s|%s|%d|%s|%d\n", col, rel, hash, title, lang, lines, tags, clen)
		s.Docs++
	}
	rows.Close()
	// A chunk's text is its body, or (schema 6) its range of the content
	// when the body is empty.
	rows, err = db.QueryContext(ctx, `SELECT d.rel_path, c.seq, c.headings,
		CASE WHEN c.body = '' AND c.end_byte > c.start_byte
			THEN CAST(substr(CAST((SELECT content FROM contents t WHERE t.doc_id = c.doc_id) AS BLOB), c.start_byte + 1, c.end_byte - c.start_byte) AS TEXT)
			ELSE c.body END,
		c.start_line, c.end_line, c.start_byte, c.end_byte,
		EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)
		FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY d.collection, d.rel_path, c.seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rel, headings, body string
		var seq, sl, el, sb, eb int
		var hasVec bool
		if err := rows.Scan(&rel, &seq, &headings, &body, &sl, &el, &sb, &eb, &hasVec); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "C|%s|%d|%s|%x|%d-%d|%d-%d\n", rel, seq, headings, sha256.Sum256([]byte(body)), sl, el, sb, eb)
		s.Chunks++
		if hasVec {
			s.Vectors++
		}
	}
	rows.Close()
	// Links and aliases as stored; where they point follows from the
	// documents, so equal rows resolve alike.
	rows, err = db.QueryContext(ctx, `SELECT d.rel_path, l.aliases, l.links FROM doc_links l JOIN documents d ON d.id = l.doc_id ORDER BY d.collection, d.rel_path`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rel, aliases string
		var data []byte
		if err := rows.Scan(&rel, &aliases, &data); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "L|%s|%q|%x\n", rel, aliases, sha256.Sum256(data))
		s.LinkLists++
	}
	rows.Close()
	s.Digest = hex.EncodeToString(h.Sum(nil))
	return s
}

// checkWhole asserts the invariants that must hold after any kill: the
// index opens, SQLite and FTS5 integrity checks pass, no document is
// half-indexed, and any vector export on disk loads (it is written by
// rename, so it is either the old or the new one, never a torn file).
func checkWhole(t testing.TB, e *env) {
	t.Helper()
	loc := e.store
	if loc == "" {
		if _, err := os.Stat(e.dbFile()); err != nil {
			return // killed before the database was created
		}
		loc = e.dbFile()
	}
	st := openIndex(t, loc)
	defer st.Close()
	problems, err := st.Check(context.Background())
	if err != nil {
		t.Fatalf("check index: %v", err)
	}
	if len(problems) > 0 {
		t.Fatalf("index not whole after kill: %s", strings.Join(problems, "; "))
	}
	model, _ := st.Meta(context.Background(), "embed_model")
	dims, _ := st.Meta(context.Background(), "embed_dim")
	if model == "" {
		return
	}
	d, _ := strconv.Atoi(dims)
	exports, _ := filepath.Glob(filepath.Join(e.indexDir(), "vectors-*.hnsw"))
	for _, p := range exports {
		if _, err := vector.Load(p, d, model, vector.Params{}); err != nil {
			t.Fatalf("vector export torn after kill: %v", err)
		}
	}
}

// checkExportMatches asserts that the vector export on disk holds exactly
// the vectors SQLite holds for the model, at the current vectors_version.
// Call it after a search or an embed has reconciled the graph.
func checkExportMatches(t testing.TB, e *env) {
	t.Helper()
	pgtest.SkipOnPostgres(t, "the vector export file is the SQLite index's; pgvector's HNSW index stands in for it on Postgres")
	st := openIndex(t, e.dbFile())
	defer st.Close()
	ctx := context.Background()
	model, _ := st.Meta(ctx, "embed_model")
	dims, _ := st.Meta(ctx, "embed_dim")
	ver, _ := st.Meta(ctx, "vectors_version")
	if model == "" {
		return
	}
	want := map[int64]bool{}
	db := rawDB(t, e.dbFile())
	defer db.Close()
	if err := scanIDs(db, "SELECT chunk_id FROM vectors WHERE model = ?", want, model); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		return
	}
	d, _ := strconv.Atoi(dims)
	p := filepath.Join(e.indexDir(), "vectors-"+model+".hnsw")
	ix, err := vector.Load(p, d, model, vector.Params{})
	if err != nil {
		t.Fatalf("vector export after reconcile: %v", err)
	}
	saved, _ := os.ReadFile(p + ".ver")
	if strings.TrimSpace(string(saved)) != ver {
		t.Fatalf("vector export is at version %q, SQLite at %q", saved, ver)
	}
	keys := ix.Keys()
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	if len(keys) != len(want) {
		t.Fatalf("vector export holds %d vectors, SQLite %d", len(keys), len(want))
	}
	for _, k := range keys {
		if !want[k] {
			t.Fatalf("vector export holds chunk %d that SQLite does not", k)
		}
	}
}

func scanIDs(db *sql.DB, q string, into map[int64]bool, args ...any) error {
	rows, err := db.Query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		into[id] = true
	}
	return rows.Err()
}

// cleanBuild indexes a copy of notes into a fresh GNO_HOME (update, and
// embed when embed is set) and returns its snapshot: the state every
// interrupted history must converge to.
func cleanBuild(t testing.TB, notes string, embed bool) snapshot {
	t.Helper()
	e := newEnv(t, nil)
	os.RemoveAll(e.notes)
	copyTree(t, notes, e.notes)
	// The copy has new mtimes but the same bytes: documents compare equal.
	e.mustGno("update", "--no-update-cmd")
	if embed {
		e.mustGno("embed")
	}
	return takeSnapshot(t, e.dbFile())
}
