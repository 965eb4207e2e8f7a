package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/segment"
)

// DocState is what a sync needs to decide whether a file changed.
type DocState struct {
	ID      int64
	Hash    string
	Size    int64
	MtimeNS int64
}

// DocStates returns the indexed state of every document of a collection,
// keyed by relative path, without the hash (Hash is ""): a sync compares
// size and mtime for every file and needs the hash only for the few that
// differ, which it reads with DocStatesOf. Leaving out a 64-character
// string a row is a fifth of an unchanged sync's reads (bench/RESULTS.md).
func (s *Store) DocStates(ctx context.Context, collection string) (map[string]DocState, error) {
	// Both counts are read from the smallest index, without a row each.
	var n, total int
	if err := s.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM documents WHERE collection = ?), (SELECT count(*) FROM documents)", collection).Scan(&n, &total); err != nil {
		return nil, fmt.Errorf("count documents of %s: %w", collection, err)
	}
	// Read by the (collection, rel_path) index, every row costs a seek
	// of the table for its size and mtime (a third of the read at 100k);
	// when the collection is most of the table, one pass over the table
	// in rowid order reads the same rows without them. A small collection
	// beside a large one keeps the index.
	q := "SELECT id, rel_path, size, mtime_ns FROM documents WHERE collection = ?"
	if 2*n >= total {
		q = "SELECT id, rel_path, size, mtime_ns FROM documents NOT INDEXED WHERE collection = ?"
	}
	// Sized up front: growing a map of 100k paths rehashes it ~17 times.
	out := make(map[string]DocState, n)
	// The pass over the table reads its pages through a memory map
	// (queryMapped).
	rows, done, err := s.queryMapped(ctx, 2*n >= total, q, collection)
	if err != nil {
		return nil, fmt.Errorf("read documents of %s: %w", collection, err)
	}
	defer done()
	for rows.Next() {
		var st DocState
		var rel string
		if err := rows.Scan(&st.ID, &rel, &st.Size, &st.MtimeNS); err != nil {
			return nil, fmt.Errorf("read documents of %s: %w", collection, err)
		}
		out[rel] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read documents of %s: %w", collection, err)
	}
	return out, nil
}

// DocStatesOf is DocStates limited to the documents at rels: a sync of a
// few named files (the watcher's) reads their rows by the (collection,
// rel_path) index instead of the whole collection's.
func (s *Store) DocStatesOf(ctx context.Context, collection string, rels []string) (map[string]DocState, error) {
	out := map[string]DocState{}
	for len(rels) > 0 {
		part := rels[:min(len(rels), 500)]
		rels = rels[len(part):]
		args := []any{collection}
		for _, r := range part {
			args = append(args, r)
		}
		q := "SELECT id, rel_path, hash, size, mtime_ns FROM documents WHERE collection = ? AND rel_path IN (" + placeholders(len(part)) + ")"
		if err := s.docStates(ctx, out, q, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) docStates(ctx context.Context, out map[string]DocState, q string, args ...any) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read documents of %s: %w", args[0], err)
	}
	defer rows.Close()
	for rows.Next() {
		var st DocState
		var rel string
		if err := rows.Scan(&st.ID, &rel, &st.Hash, &st.Size, &st.MtimeNS); err != nil {
			return fmt.Errorf("read documents of %s: %w", args[0], err)
		}
		out[rel] = st
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read documents of %s: %w", args[0], err)
	}
	return nil
}

// Document is a converted source file ready to index.
type Document struct {
	Collection   string
	RelPath      string
	Hash         string // BLAKE3 of the source bytes, hex
	Title        string
	Lang         string
	Mime         string
	Tags         []string
	Content      string // normalised text (the Markdown mirror)
	Size         int64
	MtimeNS      int64
	LineCount    int
	InvalidBytes int
	Chunks       []chunk.Chunk
	// Links are the links the document makes; Aliases the other names
	// (front matter) links may call it by.
	Links   []links.Link
	Aliases []string
	// Declares is what a governing note declares in its front matter
	// (governs.go).
	Declares links.Declarations
	// NoLinks leaves the document out of the link tables (benchmarks
	// measuring what links cost, package docs).
	NoLinks bool
	// Keywords are more words its chunks are found by (indexed with the
	// title, never shown): a package unit's symbol split into words.
	Keywords string
}

// Batch is one write transaction of a sync. Either all of its changes land
// or none do.
type Batch struct {
	tx    *sql.Tx
	gen   int64
	stmts map[string]*sql.Stmt
	// versioned: the batch kept earlier texts (versions.go), so Commit
	// trims them to their limit.
	versioned bool
	// changes records, for the link index's update (linklog.go), the
	// documents this batch put or removed.
	changes batchChanges
}

// exec runs query through a statement prepared once per batch: a sync
// runs the same few statements thousands of times.
func (b *Batch) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, ok := b.stmts[query]
	if !ok {
		var err error
		if st, err = b.tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		if b.stmts == nil {
			b.stmts = map[string]*sql.Stmt{}
		}
		b.stmts[query] = st
	}
	return st.ExecContext(ctx, args...)
}

// Begin starts a write batch for sync generation gen.
func (s *Store) Begin(ctx context.Context, gen int64) (WriteBatch, error) {
	return s.begin(ctx, gen)
}

// begin is Begin returning SQLite's batch, for the store's own writes.
func (s *Store) begin(ctx context.Context, gen int64) (*Batch, error) {
	if s.db.tx(ctx) != nil {
		return nil, errWriteInRead
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES('generation', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", strconv.FormatInt(gen, 10)); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin write: %w", err)
	}
	if err := bumpWrites(ctx, tx); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin write: %w", err)
	}
	b := &Batch{tx: tx, gen: gen}
	if err := b.changes.begin(ctx, tx, &s.linkLog); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return b, nil
}

// Commit makes the batch durable.
func (b *Batch) Commit() error {
	if b.versioned {
		if err := b.trimVersions(context.Background()); err != nil {
			b.tx.Rollback()
			return err
		}
	}
	if err := b.tx.Commit(); err != nil {
		return err
	}
	// Recorded only once committed: logged before, a commit that failed
	// left the entry to a moment in which another process could commit
	// the same counter value, and a reader here would have taken this
	// batch's documents for that one's. A reader that sees the new
	// counter before the entry finds a gap and rebuilds: correct, and
	// the window is the few instructions between the two lines.
	b.changes.record()
	return nil
}

// Rollback abandons the batch; safe after Commit.
func (b *Batch) Rollback() error {
	err := b.tx.Rollback()
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// Put inserts or replaces a document and its chunks.
func (b *Batch) Put(ctx context.Context, d *Document) error {
	_, err := b.put(ctx, d)
	return err
}

// put is Put returning the document's id.
func (b *Batch) put(ctx context.Context, d *Document) (int64, error) {
	var id int64
	existed := true
	err := b.tx.QueryRowContext(ctx, "SELECT id FROM documents WHERE collection = ? AND rel_path = ?", d.Collection, d.RelPath).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		existed = false
		res, err := b.exec(ctx, `INSERT INTO documents(collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, invalid_bytes, added_gen, changed_gen)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`, d.Collection, d.RelPath, d.Hash, d.Title, d.Lang, d.Mime, d.Size, d.MtimeNS, d.LineCount, d.InvalidBytes, b.gen, b.gen)
		if err != nil {
			return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
		}
		id, _ = res.LastInsertId()
		if id >= MaxDocID {
			return 0, fmt.Errorf("index %s/%s: document id space exhausted; run `gno cleanup`", d.Collection, d.RelPath)
		}
	case err != nil:
		return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
	default:
		if !d.NoLinks {
			if err := b.keepVersion(ctx, id); err != nil {
				return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
			}
		}
		if _, err := b.exec(ctx, "DELETE FROM chunks WHERE doc_id = ?", id); err != nil {
			return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
		}
		if _, err := b.exec(ctx, "DELETE FROM tags WHERE doc_id = ? AND user = 0", id); err != nil {
			return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
		}
		if _, err := b.exec(ctx, `UPDATE documents SET hash=?, title=?, lang=?, mime=?, size=?, mtime_ns=?, line_count=?, invalid_bytes=?, changed_gen=? WHERE id=?`,
			d.Hash, d.Title, d.Lang, d.Mime, d.Size, d.MtimeNS, d.LineCount, d.InvalidBytes, b.gen, id); err != nil {
			return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
		}
	}
	b.changes.touch(id)
	if _, err := b.exec(ctx, "INSERT INTO contents(doc_id, content) VALUES(?, ?) ON CONFLICT(doc_id) DO UPDATE SET content = excluded.content", id, d.Content); err != nil {
		return 0, fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
	}
	if len(d.Chunks) > MaxChunks {
		return 0, fmt.Errorf("index %s/%s: %d chunks, more than %d", d.Collection, d.RelPath, len(d.Chunks), MaxChunks)
	}
	if !d.NoLinks {
		if err := b.putLinks(ctx, id, d, existed); err != nil {
			return 0, fmt.Errorf("index links of %s/%s: %w", d.Collection, d.RelPath, err)
		}
		if err := b.putGoverns(ctx, id, d, existed); err != nil {
			return 0, fmt.Errorf("index governs of %s/%s: %w", d.Collection, d.RelPath, err)
		}
	}
	for _, t := range d.Tags {
		if _, err := b.exec(ctx, "INSERT OR IGNORE INTO tags(doc_id, tag) VALUES(?, ?)", id, t); err != nil {
			return 0, fmt.Errorf("index tags of %s/%s: %w", d.Collection, d.RelPath, err)
		}
	}
	// The chunks' title column (indexed, never shown) adds the keywords.
	title := d.Title
	if d.Keywords != "" {
		title += " " + d.Keywords
	}
	var words wordIndex
	for i, c := range d.Chunks {
		cid, heads := ChunkID(id, i), strings.Join(c.Headings, " > ")
		body, end := storedBody(d.Content, c.Text, c.StartByte, c.EndByte)
		_, err := b.exec(ctx, `INSERT INTO chunks(id, doc_id, seq, title, headings, body, start_line, end_line, start_byte, end_byte) VALUES(?,?,?,?,?,?,?,?,?,?)`,
			cid, id, i, title, heads, body, c.StartLine, c.EndLine, c.StartByte, end)
		if err != nil {
			return 0, fmt.Errorf("index chunk %d of %s/%s: %w", i, d.Collection, d.RelPath, err)
		}
		words.add(cid, title, heads, c.Text)
		if segment.Has(c.Text) || segment.Has(title) || segment.Has(heads) {
			if _, err := b.exec(ctx, insertSegmented, cid, segment.Text(title), segment.Text(heads), segment.Text(c.Text)); err != nil {
				return 0, fmt.Errorf("index chunk %d of %s/%s: %w", i, d.Collection, d.RelPath, err)
			}
		}
	}
	if err := words.flush(ctx, b.exec); err != nil {
		return 0, fmt.Errorf("index words of %s/%s: %w", d.Collection, d.RelPath, err)
	}
	return id, nil
}

// MaxChunks bounds the chunks of one document: chunk ids keep the
// sequence number in their low 16 bits.
const MaxChunks = 1<<16 - 1

// MaxDocID bounds document ids so chunk ids fit in 63 bits.
const MaxDocID = 1 << 46

// ChunkID is the id of chunk seq of document doc.
func ChunkID(doc int64, seq int) int64 { return doc<<16 | int64(seq) }

// DocOfChunk is the document of a chunk id.
func DocOfChunk(chunk int64) int64 { return chunk >> 16 }

// Touch records a new size and mtime for a document whose content is
// unchanged, so the next sync can skip reading it.
func (b *Batch) Touch(ctx context.Context, id, size, mtimeNS int64) error {
	_, err := b.exec(ctx, "UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?", size, mtimeNS, id)
	return err
}

// Remove deletes a document, recording it in the change feed.
func (b *Batch) Remove(ctx context.Context, id int64) error {
	if err := b.keepVersion(ctx, id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	if _, err := b.exec(ctx, "INSERT INTO removed(collection, rel_path, hash, gen) SELECT collection, rel_path, hash, ? FROM documents WHERE id = ?", b.gen, id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	if _, err := b.exec(ctx, "DELETE FROM documents WHERE id = ?", id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	b.changes.touch(id)
	return nil
}

// Cleanup deletes documents of collections not in keep, optimises the FTS
// indexes, rebuilds the word index's block-max postings and vacuums. It returns the number of documents dropped.
func (s *Store) Cleanup(ctx context.Context, keep []string) (int, error) {
	q := "DELETE FROM documents"
	args := make([]any, len(keep))
	for i, k := range keep {
		args[i] = k
	}
	if len(keep) > 0 {
		q += " WHERE collection NOT IN (" + placeholders(len(keep)) + ")"
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, strings.Replace(q, "documents", "skipped", 1), args...); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	if err := bumpWrites(ctx, tx); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	for _, stmt := range []string{
		"DELETE FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)",
		"INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')",
		"INSERT INTO chunks_tri(chunks_tri) VALUES('optimize')",
		"INSERT INTO chunks_seg(chunks_seg) VALUES('optimize')",
	} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return int(n), fmt.Errorf("cleanup (%s): %w", stmt, err)
		}
	}
	// The block-max postings for the index as it now is (impacts.go).
	if _, err := s.rebuildImpacts(ctx); err != nil && !errors.Is(err, errImpactsDisagree) {
		return int(n), fmt.Errorf("cleanup: %w", err)
	}
	if err := s.vacuum(ctx); err != nil {
		return int(n), fmt.Errorf("cleanup (VACUUM): %w", err)
	}
	return int(n), nil
}

// vacuum rebuilds the database file on a connection whose temporary
// storage is a file: VACUUM builds the new copy in temporary storage, and
// with the store's temp_store(MEMORY) a 6 GB index (a million notes) held
// 11.7 GB of RAM for it.
func (s *Store) vacuum(ctx context.Context) error {
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
	_, err = conn.ExecContext(ctx, "VACUUM")
	return err
}

// BeginBulk stops FTS5's incremental segment merging for a large sync,
// lets more segments pile up before a forced ("crisis") merge, and flushes
// the in-memory term index in larger pieces: merging while thousands of
// documents arrive redoes the same work many times (a third of the CPU of
// a 10k-file sync). EndBulk merges once and restores the defaults. A sync killed in between
// leaves merging off until the next EndBulk, which only costs query speed.
func (s *Store) BeginBulk(ctx context.Context) error {
	for _, q := range []string{
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('crisismerge', 64)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 33554432)",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('automerge', 0)",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('crisismerge', 64)",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('hashsize', 33554432)",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("start bulk index: %w", err)
		}
	}
	return nil
}

// MergeSegmented merges the segmented index into one segment: a CJK query
// looks up each of its grams in every segment, so a fragmented index costs
// most of the query's time. It is cheap when the index holds no CJK.
func (s *Store) MergeSegmented(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, "INSERT INTO chunks_seg(chunks_seg) VALUES('optimize')"); err != nil {
		return fmt.Errorf("merge segmented index: %w", err)
	}
	return nil
}

// EndBulk optimises the word index and turns incremental merging back on.
func (s *Store) EndBulk(ctx context.Context) error {
	for _, q := range []string{
		"INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 4)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('crisismerge', 16)",
		"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', 1048576)",
		// The segmented index is merged too: left in many segments, every
		// gram of a CJK query seeks in each (70% of a CMRC2018 query's time).
		"INSERT INTO chunks_seg(chunks_seg) VALUES('optimize')",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('automerge', 4)",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('crisismerge', 16)",
		"INSERT INTO chunks_seg(chunks_seg, rank) VALUES('hashsize', 1048576)",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("finish bulk index: %w", err)
		}
	}
	return nil
}
