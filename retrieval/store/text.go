package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// A document's text is stored once (schema 6).
//
// Every chunk a document is cut into is a byte range of its content, so a
// chunk row keeps only the range and an empty body; the word index
// (chunks_fts) is contentless and keeps only its postings. Before schema 6
// the text was stored three times in effect (contents, chunks.body, and
// the external-content word index reading chunks), and the index on disk
// was 3.7× the text at 100k and 1M documents (bench/RESULTS.md). A chunk
// whose text is not its range (a writer's own text) keeps it in body.
// Readers get the text back through chunkBodies, which reads each
// document's content once per read.

// storedBody is what a chunk row keeps as its body, and its end byte: ""
// when text is content[start:end]. A chunk with no text keeps an empty
// range, so an empty body with a non-empty range always means a slice.
func storedBody(content, text string, start, end int) (string, int) {
	if text == "" {
		return "", start
	}
	if start >= 0 && start < end && end <= len(content) && content[start:end] == text {
		return "", end
	}
	return text, end
}

// chunkTextSQL is a chunk's text in SQL, for the chunks row aliased c: a
// migration reads it where a chunk may already keep its range only (an
// index upgraded in steps from an older schema). CASE evaluates the
// content read only for such a row.
const chunkTextSQL = `CASE WHEN c.body = '' AND c.end_byte > c.start_byte
	THEN coalesce((SELECT CAST(substr(CAST(t.content AS BLOB), c.start_byte + 1, c.end_byte - c.start_byte) AS TEXT) FROM contents t WHERE t.doc_id = c.doc_id), '')
	ELSE c.body END`

// wordRows is how many chunks one INSERT into the word index writes: 4
// values a row stays under SQLite's 32,766 parameters, and FTS5 flushes its
// pending terms at every statement, so fewer statements make fewer
// segments.
const wordRows = 500

// wordIndex gathers chunks' rows for the word index (contentless: the
// store writes each row beside its chunk) and inserts them in multi-row
// statements.
type wordIndex struct {
	args []any
}

// add queues a chunk's row.
func (w *wordIndex) add(id int64, title, headings, body string) {
	w.args = append(w.args, id, title, headings, body)
}

// flush inserts the queued rows.
func (w *wordIndex) flush(ctx context.Context, exec func(context.Context, string, ...any) (sql.Result, error)) error {
	for len(w.args) > 0 {
		n := min(len(w.args)/4, wordRows)
		q := "INSERT INTO chunks_fts(rowid, title, headings, body) VALUES " + strings.TrimSuffix(strings.Repeat("(?,?,?,?),", n), ",")
		if _, err := exec(ctx, q, w.args[:4*n]...); err != nil {
			return err
		}
		w.args = w.args[4*n:]
	}
	w.args = w.args[:0]
	return nil
}

// sliceRef is a chunk read with an empty body: its text is its document's
// content from start to end, written to *dst by chunkBodies.
type sliceRef struct {
	doc        int64
	start, end int
	dst        *string
}

// refFor returns the reference a read chunk row needs, or false when its
// body is its text.
func refFor(doc int64, body string, start, end int, dst *string) (sliceRef, bool) {
	if body != "" || end <= start {
		return sliceRef{}, false
	}
	return sliceRef{doc: doc, start: start, end: end, dst: dst}, true
}

// contentBatch is how many documents' contents one query of chunkBodies
// reads.
const contentBatch = 200

// chunkBodies fills the text of the chunks in refs from their documents'
// contents, reading each content once. Call it in the snapshot the chunk
// rows were read in, so the ranges and the content agree.
func (s *Store) chunkBodies(ctx context.Context, refs []sliceRef) error {
	for len(refs) > 0 {
		// refs arrive grouped by document (chunk ids order them so), so a
		// batch is a run of at most contentBatch documents.
		var docs []any
		n := 0
		for n < len(refs) {
			if len(docs) == 0 || docs[len(docs)-1] != any(refs[n].doc) {
				if len(docs) == contentBatch {
					break
				}
				docs = append(docs, refs[n].doc)
			}
			n++
		}
		content, err := contentsOf(ctx, s.db, docs)
		if err != nil {
			return err
		}
		for _, r := range refs[:n] {
			c, ok := content[r.doc]
			if !ok || r.end > len(c) || r.start < 0 {
				return fmt.Errorf("read chunk of document %d: %w", r.doc, errNoContent)
			}
			*r.dst = c[r.start:r.end]
		}
		refs = refs[n:]
	}
	return nil
}

// errNoContent is a chunk whose document's content is missing or shorter
// than its range: a damaged index (gno status --check says so).
var errNoContent = errors.New("the document's text is missing from the index")

// contentsOf reads the contents of the given documents, through the pool
// (in its snapshot) or in a transaction.
func contentsOf(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, ids []any) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	rows, err := q.QueryContext(ctx, "SELECT doc_id, content FROM contents WHERE doc_id IN ("+placeholders(len(ids))+")", ids...)
	if err != nil {
		return nil, fmt.Errorf("read contents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var c string
		if err := rows.Scan(&id, &c); err != nil {
			return nil, fmt.Errorf("read contents: %w", err)
		}
		out[id] = c
	}
	return out, rows.Err()
}

// dropWordIndex removes the word index of schemas before 6 (external
// content, kept in step with chunks by triggers) so the schema creates it
// contentless; storeTextOnce refills it.
func dropWordIndex(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{"DROP TRIGGER IF EXISTS chunks_ai", "DROP TRIGGER IF EXISTS chunks_ad", "DROP TABLE IF EXISTS chunks_fts"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migratePage is how many chunks storeTextOnce reads at a time.
const migratePage = 2000

// storeTextOnce upgrades an index to schema 6 inside the migration's
// transaction (a kill leaves the old schema, and the next open starts
// over): it fills the new word index from the chunks' bodies, then empties
// every body that is its document's content range.
func storeTextOnce(ctx context.Context, tx *sql.Tx) error {
	// Merging while the whole index arrives redoes the work (BeginBulk).
	for _, q := range []string{
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 33554432)",
		"INSERT INTO chunks_fts(rowid, title, headings, body) SELECT c.id, c.title, c.headings, " + chunkTextSQL + " FROM chunks c",
		"INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 4)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 1048576)",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild word index: %w", err)
		}
	}
	after := int64(-1)
	for {
		if err := migrateHook(); err != nil {
			return err
		}
		n, last, err := sliceBodies(ctx, tx, after)
		if err != nil {
			return fmt.Errorf("store text once: %w", err)
		}
		if n == 0 {
			return nil
		}
		after = last
	}
}

// migrateHook runs before each page of storeTextOnce; a test fails it to
// stop the upgrade part way, as a kill would.
var migrateHook = func() error { return nil }

// sliceBodies empties the bodies of the migratePage chunks after chunk id
// after whose text is their document's content range. It returns how
// many chunks it read and the last one's id.
func sliceBodies(ctx context.Context, tx *sql.Tx, after int64) (int, int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, doc_id, body, start_byte, end_byte FROM chunks WHERE id > ? ORDER BY id LIMIT ?", after, migratePage)
	if err != nil {
		return 0, 0, err
	}
	type chunk struct {
		id, doc    int64
		body       string
		start, end int
	}
	var cs []chunk
	var docs []any
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.id, &c.doc, &c.body, &c.start, &c.end); err != nil {
			rows.Close()
			return 0, 0, err
		}
		if len(docs) == 0 || docs[len(docs)-1] != any(c.doc) {
			docs = append(docs, c.doc)
		}
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(cs) == 0 {
		return 0, 0, err
	}
	content, err := contentsOf(ctx, tx, docs)
	if err != nil {
		return 0, 0, err
	}
	// An empty body is left as it is: a chunk of an index upgraded from an
	// older schema in steps may keep its range only already, and writers
	// before schema 6 stored every chunk's range as its text.
	var ids []any
	for _, c := range cs {
		if body, _ := storedBody(content[c.doc], c.body, c.start, c.end); c.body != "" && body == "" {
			ids = append(ids, c.id)
		}
	}
	if len(ids) > 0 {
		if _, err := tx.ExecContext(ctx, "UPDATE chunks SET body = '' WHERE id IN ("+placeholders(len(ids))+")", ids...); err != nil {
			return 0, 0, err
		}
	}
	return len(cs), cs[len(cs)-1].id, nil
}
