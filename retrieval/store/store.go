// Package store keeps gno's index in SQLite: documents, their chunks, the
// FTS5 word and segmented (CJK/Thai bigram) indexes, tags, vectors and the
// sync generation.
//
// The database runs in WAL mode with a busy timeout, so readers never block
// the single writer and concurrent processes wait rather than fail.
//
// It owns every table and every SQL statement of gno, behind named
// methods (ARCHITECTURE.md lists who calls which); no other package
// imports database/sql, and nothing here hands out the *sql.DB. It must
// not know about config, models or front ends.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gnosearch/gno/retrieval/segment"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// WordTokenizer is the word index's FTS5 tokenizer. wordtok.Words is
// it in Go (its tests hold the two equal): questions are tokenized with
// that (impacttok.go), and the Postgres store cuts its words with it, so
// both stores index the same words.
const WordTokenizer = "porter unicode61 remove_diacritics 2"

// schemaVersion is bumped whenever the schema changes incompatibly.
const schemaVersion = 7

// Store is an open index database. It is safe for concurrent use.
type Store struct {
	// LinkReads answers the link reads from the cached LinkIndex.
	LinkReads
	db    *pool
	path  string
	links LinkCache
	// linkLog lists the documents each of this process's write batches
	// changed, so the link index follows them (linklog.go).
	linkLog linkLog
	prune   pruneStats
	// tok tokenizes questions for the block-max postings (impacts.go).
	tok tokenizer
	// delta caches the postings' changes since their build (impactdelta.go).
	delta deltaCache
}

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
	id INTEGER PRIMARY KEY,
	collection TEXT NOT NULL,
	rel_path TEXT NOT NULL,
	hash TEXT NOT NULL,
	title TEXT NOT NULL DEFAULT '',
	lang TEXT NOT NULL DEFAULT '',
	mime TEXT NOT NULL DEFAULT '',
	size INTEGER NOT NULL DEFAULT 0,
	mtime_ns INTEGER NOT NULL DEFAULT 0,
	line_count INTEGER NOT NULL DEFAULT 0,
	invalid_bytes INTEGER NOT NULL DEFAULT 0,
	added_gen INTEGER NOT NULL,
	changed_gen INTEGER NOT NULL,
	UNIQUE(collection, rel_path)
);
CREATE INDEX IF NOT EXISTS documents_hash ON documents(hash);
-- Content lives apart so that scans and joins over documents stay small.
CREATE TABLE IF NOT EXISTS contents(
	doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
	content TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS documents_gen ON documents(changed_gen);
-- Schema 7: what a sync compares, read in path order without the table
-- (DocStateList, statelist.go).
CREATE INDEX IF NOT EXISTS documents_state ON documents(collection, rel_path, size, mtime_ns);
CREATE TABLE IF NOT EXISTS removed(
	collection TEXT NOT NULL, rel_path TEXT NOT NULL, hash TEXT NOT NULL, gen INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS removed_gen ON removed(gen);
CREATE TABLE IF NOT EXISTS tags(
	doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	tag TEXT NOT NULL,
	user INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY(doc_id, tag)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag);
-- A chunk's id is doc_id<<16 | seq, so a search maps FTS rowids to
-- documents without reading chunk rows.
CREATE TABLE IF NOT EXISTS chunks(
	id INTEGER PRIMARY KEY,
	doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	title TEXT NOT NULL,
	headings TEXT NOT NULL,
	-- body is '' when the chunk's text is its document's content from
	-- start_byte to end_byte, as every document chunk's is: the text is
	-- stored once (schema 6, text.go).
	body TEXT NOT NULL,
	start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
	start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
-- The word index keeps no copy of the text (contentless since schema 6):
-- rows are written by the store beside their chunk (insertWords) and
-- deleted by rowid.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(title, headings, body,
	content='', contentless_delete=1, tokenize='` + WordTokenizer + `');
-- chunks_tri (trigram) is no longer written since schema 2 (chunks_seg
-- below replaced it); it stays, empty, because chunks_ad names it.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_tri USING fts5(body, content='', contentless_delete=1, tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
	DELETE FROM chunks_tri WHERE rowid = old.id;
END;
-- The segmented index (package segment): chunks holding unspaced script
-- (Chinese, Japanese, Korean, Thai...), their runs cut into two-character
-- grams so that one- and two-character words can be found (schema 2).
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_seg USING fts5(title, headings, body,
	content='', contentless_delete=1, tokenize="` + segment.Tokenizer + `");
CREATE TRIGGER IF NOT EXISTS chunks_ad_seg AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_seg WHERE rowid = old.id;
END;
-- ver is the vectors_version (meta) at insertion, so a persisted vector
-- graph knows which rows arrived after it was saved.
CREATE TABLE IF NOT EXISTS vectors(
	chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
	model TEXT NOT NULL,
	ver INTEGER NOT NULL DEFAULT 0,
	vec BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS vectors_model ON vectors(model);
`

// busyTimeout is how long a statement waits for another connection's
// lock on the index file before answering busy; every connection to an
// index sets it.
const busyTimeout = "busy_timeout(15000)"

// Open opens (creating if needed) the index database at path.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	q := url.Values{}
	// journal_size_limit: a WAL that grew while a long read snapshot held
	// its start (a large sync beside it) shrinks back to 64 MiB at the
	// next reset instead of keeping its peak size on disk.
	if err := newIndexPages(ctx, path); err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	for _, p := range []string{busyTimeout, "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)", "temp_store(MEMORY)", "cache_size(-32000)", "journal_size_limit(67108864)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + path + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	// Read snapshots take their connections from a pool of their own,
	// unbounded: a snapshot holds its connection while its reader waits
	// (for a model loading, a cache's lock), and the one it waits for may
	// need a connection of the bounded pool; sharing that pool, four such
	// readers would deadlock a loaded daemon (snapshot.go).
	snaps, err := sql.Open("sqlite", dsn)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	snaps.SetMaxIdleConns(4)
	s := &Store{db: &pool{DB: db, snaps: snaps}, path: path}
	s.LinkReads.Load = s.linkIndex
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return s, nil
}

// newIndexPages gives a new index 16 KiB pages: a document's content
// (mean ~1.5 KB) left a third of each 4 KiB page unused, and at 100k
// documents 16 KiB pages make the file 11% smaller (bench/RESULTS.md). The
// size must be set before WAL mode, which fixes it, and the driver runs
// the DSN's pragmas in name order (journal_mode first), so a file that
// does not exist yet is created here. An existing index keeps its size;
// another process creating the same file at once is harmless (the page
// size of an initialised file no longer changes).
//
// SQLite answers a change to WAL that races another process's first
// open with SQLITE_BUSY at once, without calling the busy handler (two
// `gno token create` started together on a new index failed on it): the
// change is tried again until the file is in WAL mode, by this process
// or the other, for as long as the busy timeout.
func newIndexPages(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma="+busyTimeout)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "PRAGMA page_size = 16384"); err != nil {
		return err
	}
	deadline := time.Now().Add(15 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		// A mode SQLite can never set (a file system without shared
		// memory) answers the old mode and no error: the store then runs
		// in that mode, as before; only a busy answer is waited out.
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// schemaOf reads the index's schema version; current says it needs no
// upgrade, and a version newer than this gno's is an error.
func schemaOf(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (v int, current bool, err error) {
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, false, err
	}
	if v > schemaVersion {
		return v, false, fmt.Errorf("index schema %d is newer than this gno (%d): upgrade gno", v, schemaVersion)
	}
	return v, v == schemaVersion, nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, current, err := schemaOf(ctx, s.db); current || err != nil {
		return err
	}
	// An upgrade rewrites most of the file in one transaction, and SQLite
	// keeps a statement's undo copies of the pages it changes in temporary
	// storage: with the store's temp_store(MEMORY) the schema 6 upgrade of
	// a 100k-document index held 435 MB. Its connection uses a file.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = FILE"); err != nil {
		return err
	}
	// The connection goes back to the pool: restore the store's setting.
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = MEMORY")
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Read again under the write lock (the transaction is IMMEDIATE):
	// another process may have upgraded the index while this one waited.
	v, current, err := schemaOf(ctx, tx)
	if current || err != nil {
		return err
	}
	if v == 1 {
		// Schema 2 searches the segmented index instead of the trigram
		// one: drop the old rows (the schema recreates the table empty,
		// kept for the delete trigger of older builds' indexes).
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS chunks_tri"); err != nil {
			return fmt.Errorf("upgrade index to schema 2: %w", err)
		}
	}
	if v == 2 {
		// Schema 3 stores links per document and resolves them when read.
		for _, q := range []string{"DROP TABLE IF EXISTS links", "DROP TABLE IF EXISTS doc_keys"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("upgrade index to schema 3: %w", err)
			}
		}
	}
	if v > 0 && v < 6 {
		// Schema 6 rebuilds the word index contentless (filled below).
		if err := dropWordIndex(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 6: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, schema+linksSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, skippedSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	// Schema 4 adds the package-docs tables (packages.go); an older index
	// only gains them, empty.
	if _, err := tx.ExecContext(ctx, pkgSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	// Schema 5 adds governing notes' declarations (governs.go), the
	// reconcile cache (reconcile.go) and earlier texts (versions.go).
	if _, err := tx.ExecContext(ctx, governsSchema+reconcileSchema+versionsSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if v > 0 && v < 5 {
		if err := backfillGoverns(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 5: %w", err)
		}
		if err := markVersionsFrom(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 5: %w", err)
		}
	}
	if v > 0 && v < 2 {
		if err := fillSegmented(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 2: %w", err)
		}
	}
	if v > 0 && v < 3 {
		// Links arrived in schema 2 and changed form in 3: extract them
		// from the stored text.
		if err := backfillLinks(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 3: %w", err)
		}
	}
	if v > 0 && v < 6 {
		// Last: the steps above read the chunks' full bodies.
		if err := storeTextOnce(ctx, tx); err != nil {
			return fmt.Errorf("upgrade index to schema 6: %w", err)
		}
	}
	if err := bumpWrites(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// fillSegmented indexes the existing chunks that hold unspaced script into
// chunks_seg, the table schema 2 added, so an upgraded index finds short
// CJK words without a rebuild.
func fillSegmented(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT c.id, c.title, c.headings, "+chunkTextSQL+" FROM chunks c")
	if err != nil {
		return err
	}
	type row struct {
		id                    int64
		title, headings, body string
	}
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.title, &r.headings, &r.body); err != nil {
			rows.Close()
			return err
		}
		if segment.Has(r.title) || segment.Has(r.headings) || segment.Has(r.body) {
			todo = append(todo, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range todo {
		if _, err := tx.ExecContext(ctx, insertSegmented, r.id, segment.Text(r.title), segment.Text(r.headings), segment.Text(r.body)); err != nil {
			return err
		}
	}
	return nil
}

const insertSegmented = "INSERT INTO chunks_seg(rowid, title, headings, body) VALUES(?, ?, ?, ?)"

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// PathProblem is always "": SQLite's TEXT holds any bytes, so every name a
// file system gives is stored as it is.
func (s *Store) PathProblem(string) string { return "" }

// Meta reads a meta value; a missing key gives "".
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a meta value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

// Generation is the number of the last sync that changed anything.
func (s *Store) Generation(ctx context.Context) (int64, error) {
	v, err := s.Meta(ctx, "generation")
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}
