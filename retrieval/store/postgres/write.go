package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// DocStates returns the indexed state of every document of a collection,
// keyed by relative path.
func (s *Store) DocStates(ctx context.Context, collection string) (map[string]store.DocState, error) {
	out := map[string]store.DocState{}
	err := s.docStates(ctx, out, "SELECT id, rel_path, hash, size, mtime_ns FROM documents WHERE collection = $1", collection)
	return out, err
}

// DocStateList returns the state of every document of a collection in
// byte order of the path (store.StateList; the list checks the order).
func (s *Store) DocStateList(ctx context.Context, collection string) (*store.StateList, error) {
	l := &store.StateList{}
	err := s.each(ctx, `SELECT id, rel_path, size, mtime_ns FROM documents WHERE collection = $1 ORDER BY rel_path COLLATE "C"`, []any{collection}, func(r pgx.Rows) error {
		var st store.DocState
		var rel []byte
		if err := r.Scan(&st.ID, &rel, &st.Size, &st.MtimeNS); err != nil {
			return err
		}
		l.Add(rel, st)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read documents of %s: %w", collection, err)
	}
	l.Sort()
	return l, nil
}

// DocStatesOf is DocStates limited to the documents at rels.
func (s *Store) DocStatesOf(ctx context.Context, collection string, rels []string) (map[string]store.DocState, error) {
	out := map[string]store.DocState{}
	// A name PostgreSQL cannot store has no document: it is left out of
	// the query rather than failing it.
	var ok []string
	for _, rel := range rels {
		if storable(rel) {
			ok = append(ok, rel)
		}
	}
	if len(ok) == 0 || !storable(collection) {
		return out, nil
	}
	err := s.docStates(ctx, out, "SELECT id, rel_path, hash, size, mtime_ns FROM documents WHERE collection = $1 AND rel_path = ANY($2)", collection, ok)
	return out, err
}

func (s *Store) docStates(ctx context.Context, out map[string]store.DocState, q string, args ...any) error {
	err := s.each(ctx, q, args, func(r pgx.Rows) error {
		var st store.DocState
		var rel string
		if err := r.Scan(&st.ID, &rel, &st.Hash, &st.Size, &st.MtimeNS); err != nil {
			return err
		}
		out[rel] = st
		return nil
	})
	if err != nil {
		return fmt.Errorf("read documents of %s: %w", args[0], err)
	}
	return nil
}

// batch is one write transaction of a sync. The BM25 statistics of the
// rows it adds and removes are summed as it goes and written at Commit,
// in the same transaction.
type batch struct {
	s   *Store
	tx  pgx.Tx
	gen int64
	// rows and tokens are the changes to each index's statistics.
	rows   [2]int64
	tokens [2]int64
	done   bool
	// versioned: the batch may have kept earlier texts, so Commit trims
	// them to their limit.
	versioned bool
	// pending are statements queued for the next round trip: a document's
	// rows go with the next document's first statement, so a sync of new
	// files costs one round trip per file (the server's replies, not its
	// work, were most of a sync's time).
	pending *pgx.Batch
	// docs are the documents whose chunks wait for the next flush
	// (nChunks chunks in all); held their paths.
	docs    []*store.Document
	nChunks int
	held    map[[2]string]bool
	// removing are the ids of the documents removed, deleted at the
	// next flush (dropRemoved).
	removing []int64
	// inflight reports the end of the flush a goroutine is writing (nil:
	// none), part is that flush's own batch (flush.go).
	inflight chan error
	part     *batch
}

// queue adds a statement to the next round trip.
func (b *batch) queue(q string, args ...any) {
	if b.pending == nil {
		b.pending = &pgx.Batch{}
	}
	b.pending.Queue(q, args...)
}

// send sends the queued statements, then last (when not "") whose one
// row it scans into dest, in one round trip.
func (b *batch) send(ctx context.Context, last string, args []any, dest ...any) error {
	pb := b.pending
	b.pending = nil
	if pb == nil {
		pb = &pgx.Batch{}
	}
	queued := pb.Len()
	if last != "" {
		pb.Queue(last, args...)
	}
	if pb.Len() == 0 {
		return nil
	}
	br := b.tx.SendBatch(ctx, pb)
	for range queued {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	if last != "" {
		if err := br.QueryRow().Scan(dest...); err != nil {
			br.Close()
			return err
		}
	}
	return br.Close()
}

// beginGen starts one transaction of a write batch for sync generation
// gen (Begin wraps it to re-run the batch on a lost connection: retry.go).
func (s *Store) beginGen(ctx context.Context, gen int64) (*batch, error) {
	if s.snap(ctx) != nil {
		return nil, errWriteInRead
	}
	b, err := s.begin(ctx, gen)
	if err != nil {
		return nil, err
	}
	if _, err := b.tx.Exec(ctx, "INSERT INTO meta(key, value) VALUES('generation', $1) ON CONFLICT(key) DO UPDATE SET value = excluded.value", strconv.FormatInt(gen, 10)); err != nil {
		b.Rollback()
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return b, nil
}

// begin starts a write transaction that changes the document set,
// without setting the sync generation (Cleanup's).
func (s *Store) begin(ctx context.Context, gen int64) (*batch, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	if err := s.fence(ctx, tx); err != nil {
		tx.Rollback(ctx)
		return nil, err
	}
	if err := bumpWrites(ctx, tx); err != nil {
		tx.Rollback(ctx)
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return &batch{s: s, tx: tx, gen: gen}, nil
}

// bumpWrites counts a committed change to the document set (meta writes),
// as the SQLite store does, so cached views know they are stale.
func bumpWrites(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'writes'")
	return err
}

// Commit writes the statistics and makes the batch durable.
func (b *batch) Commit() error {
	ctx := context.Background()
	if err := b.flush(ctx); err != nil {
		b.Rollback()
		return fmt.Errorf("commit: %w", err)
	}
	if err := b.wait(); err != nil {
		b.Rollback()
		return fmt.Errorf("commit: %w", err)
	}
	if err := b.flushStats(ctx); err != nil {
		b.Rollback()
		return fmt.Errorf("commit: %w", err)
	}
	if b.versioned {
		if err := b.trimVersions(ctx); err != nil {
			b.Rollback()
			return fmt.Errorf("commit: %w", err)
		}
	}
	if err := b.s.fence(ctx, b.tx); err != nil {
		b.Rollback()
		return err
	}
	b.done = true
	if err := b.tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback abandons the batch; safe after Commit and twice.
func (b *batch) Rollback() error {
	b.wait() // the connection is free once the flush in flight ends
	b.done = true
	err := b.tx.Rollback(context.Background())
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}

// flushStats adds the batch's changes to fts_stats.
func (b *batch) flushStats(ctx context.Context) error {
	for ix := range 2 {
		if b.rows[ix] != 0 || b.tokens[ix] != 0 {
			if _, err := b.tx.Exec(ctx, "UPDATE fts_stats SET rows = rows + $1, tokens = tokens + $2 WHERE ix = $3", b.rows[ix], b.tokens[ix], ix); err != nil {
				return err
			}
		}
	}
	b.rows, b.tokens = [2]int64{}, [2]int64{}
	return nil
}

// Put inserts or replaces a document and its chunks. The document is
// held, not sent: a flush (every flushDocs documents or flushChunks
// chunks, and at Commit) writes all the held documents with a few
// statements over arrays, their chunks and postings by COPY.
func (b *batch) Put(ctx context.Context, d *store.Document) error {
	if len(d.Chunks) > store.MaxChunks {
		return fmt.Errorf("index %s/%s: %d chunks, more than %d", d.Collection, d.RelPath, len(d.Chunks), store.MaxChunks)
	}
	if b.held[[2]string{d.Collection, d.RelPath}] {
		// The same path twice in a batch: the first one is written
		// before the second replaces it.
		if err := b.flush(ctx); err != nil {
			return fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
		}
	}
	b.hold(d)
	if len(b.docs) >= flushDocs || b.nChunks >= flushChunks || b.pending != nil && b.pending.Len() >= flushEvery {
		if err := b.flush(ctx); err != nil {
			return fmt.Errorf("index %s/%s and the documents before it: %w", d.Collection, d.RelPath, err)
		}
	}
	return nil
}

// flushEvery is the number of queued statements, flushDocs the number of
// held documents and flushChunks of their chunks that make a flush.
const (
	flushEvery  = 512
	flushDocs   = 512
	flushChunks = 1024
)

// dropChunks deletes the chunks of the documents whose ids doc selects,
// with their postings (cut out of their blocks' arrays, cutBlocks), and
// takes them out of the BM25 statistics, in one statement
// (data-modifying CTEs) that needs no answer.
func dropChunks(doc string) string {
	return `WITH g AS (DELETE FROM chunks WHERE doc_id IN (` + doc + `) RETURNING id, tsv, len, seg, seg_len),
	w AS (SELECT g.id, t.term FROM g, unnest(tsvector_to_array(g.tsv)) AS t(term)),
	sg AS (SELECT g.id, t.term FROM g, unnest(tsvector_to_array(g.seg)) AS t(term) WHERE g.seg IS NOT NULL),
	` + cutBlocks(0, "w") + `,
	` + cutBlocks(1, "sg") + `
	UPDATE fts_stats st SET rows = st.rows - x.r, tokens = st.tokens - x.t
	FROM (SELECT 0 AS ix, count(*) AS r, coalesce(sum(len), 0) AS t FROM g
		UNION ALL SELECT 1, count(*), coalesce(sum(seg_len), 0) FROM g WHERE seg IS NOT NULL) x
	WHERE st.ix = x.ix AND x.r > 0`
}

// count adds one row of the given length to index ix's statistics, sign
// +1 for a row added, -1 for one removed.
func (b *batch) count(ix int, length int, sign int64) {
	b.rows[ix] += sign
	b.tokens[ix] += sign * int64(length)
}

// Touch records a new size and mtime for an unchanged document.
func (b *batch) Touch(ctx context.Context, id, size, mtimeNS int64) error {
	b.queue("UPDATE documents SET size = $1, mtime_ns = $2 WHERE id = $3", size, mtimeNS, id)
	return nil
}

// Remove deletes a document, recording it in the change feed. The
// removed documents are held to the next flush (dropRemoved), so their
// postings are cut with one statement, each block rewritten once.
func (b *batch) Remove(ctx context.Context, id int64) error {
	if len(b.docs) > 0 {
		// The document may be one this batch put: its chunks go first.
		if err := b.flush(ctx); err != nil {
			return fmt.Errorf("remove document %d: %w", id, err)
		}
	}
	b.removing = append(b.removing, id)
	return nil
}

// dropRemoved queues the deletion of the documents Remove held, their
// versions kept, chunks and postings dropped and the change feed told;
// flush runs it first, so it comes before the documents held after.
func (b *batch) dropRemoved() {
	if len(b.removing) == 0 {
		return
	}
	ids := b.removing
	b.removing = nil
	const sel = "SELECT unnest($1::bigint[])"
	b.keepVersion(sel, ids)
	b.queue(dropChunks(sel), ids)
	b.queue("INSERT INTO removed(collection, rel_path, hash, gen) SELECT collection, rel_path, hash, $1 FROM documents WHERE id = ANY($2)", b.gen, ids)
	b.queue("DELETE FROM documents WHERE id = ANY($1)", ids)
}

// PutSkip records a file the sync could not convert.
func (b *batch) PutSkip(ctx context.Context, collection, rel string, st store.SkipState) error {
	b.queue(`INSERT INTO skipped(collection, rel_path, hash, size, mtime_ns, reason, detail) VALUES($1,$2,$3,$4,$5,$6,$7)
		ON CONFLICT(collection, rel_path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns, reason = excluded.reason, detail = excluded.detail`,
		collection, rel, st.Hash, st.Size, st.MtimeNS, st.Reason, st.Detail)
	return nil
}

// DeleteSkip forgets a recorded conversion failure.
func (b *batch) DeleteSkip(ctx context.Context, collection, rel string) error {
	b.queue("DELETE FROM skipped WHERE collection = $1 AND rel_path = $2", collection, rel)
	return nil
}

// Cleanup deletes the documents of collections not in keep (and their
// chunks, statistics and vectors) in one transaction. The server's
// autovacuum reclaims the space.
func (s *Store) Cleanup(ctx context.Context, keep []string) (int, error) {
	b, err := s.begin(ctx, 0)
	if err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	defer b.Rollback()
	if keep == nil {
		keep = []string{}
	}
	b.queue(dropChunks("SELECT id FROM documents WHERE collection <> ALL($1)"), keep)
	if err := b.send(ctx, "", nil); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	tag, err := b.tx.Exec(ctx, "DELETE FROM documents WHERE collection <> ALL($1)", keep)
	if err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	if _, err := b.tx.Exec(ctx, "DELETE FROM skipped WHERE collection <> ALL($1)", keep); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	if err := b.Commit(); err != nil {
		return 0, fmt.Errorf("drop orphans: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// BeginBulk is SQLite's FTS5 tuning for a large sync; Postgres's GIN
// index needs none (its pending list absorbs bulk inserts). What it does
// here is put off the HNSW index of vectors stored until EndBulk
// (vsearch.go's bulkVectors: built once, not grown by every insert).
func (s *Store) BeginBulk(ctx context.Context) error {
	s.bulk.begin()
	return nil
}

// MergeSegmented merges SQLite's segmented index; nothing to do here.
func (s *Store) MergeSegmented(ctx context.Context) error { return nil }

// EndBulk runs after a large sync or copy: it builds the vector indexes
// BeginBulk put off, and ANALYZE gives the planner the new sizes (a
// block emptied by a cut is deleted by the cut's own statement). Autovacuum reclaims the
// space later: the blocks are read through their index, then their rows,
// so a VACUUM now (~1 s of the server's at SciFact) would save a search
// nothing.
func (s *Store) EndBulk(ctx context.Context) error {
	if err := s.buildDeferred(ctx); err != nil {
		return fmt.Errorf("finish bulk index: %w", err)
	}
	if _, err := s.pool.Exec(ctx, "ANALYZE fts_blocks, chunks, documents, tags"); err != nil {
		return fmt.Errorf("finish bulk index: %w", err)
	}
	return nil
}

// BuildPostings has nothing to build: the server's own index answers
// keyword searches (SQLite's block-max postings have no counterpart here).
func (s *Store) BuildPostings(context.Context, bool, func(done, total int)) (bool, error) {
	return false, nil
}
