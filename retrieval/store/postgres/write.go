package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval/segment"
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

// DocStatesOf is DocStates limited to the documents at rels.
func (s *Store) DocStatesOf(ctx context.Context, collection string, rels []string) (map[string]store.DocState, error) {
	out := map[string]store.DocState{}
	if len(rels) == 0 {
		return out, nil
	}
	err := s.docStates(ctx, out, "SELECT id, rel_path, hash, size, mtime_ns FROM documents WHERE collection = $1 AND rel_path = ANY($2)", collection, rels)
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
	// df, rows and tokens are the changes to each index's statistics.
	df     [2]map[string]int64
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

// Begin starts a write batch for sync generation gen.
func (s *Store) Begin(ctx context.Context, gen int64) (store.WriteBatch, error) {
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
	if err := bumpWrites(ctx, tx); err != nil {
		tx.Rollback(ctx)
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return &batch{s: s, tx: tx, gen: gen, df: [2]map[string]int64{{}, {}}}, nil
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
	if err := b.send(ctx, "", nil); err != nil {
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
	b.done = true
	if err := b.tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback abandons the batch; safe after Commit and twice.
func (b *batch) Rollback() error {
	b.done = true
	err := b.tx.Rollback(context.Background())
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}

// flushStats adds the batch's changes to fts_stats and fts_terms.
func (b *batch) flushStats(ctx context.Context) error {
	for ix := range 2 {
		if b.rows[ix] != 0 || b.tokens[ix] != 0 {
			if _, err := b.tx.Exec(ctx, "UPDATE fts_stats SET rows = rows + $1, tokens = tokens + $2 WHERE ix = $3", b.rows[ix], b.tokens[ix], ix); err != nil {
				return err
			}
		}
		if len(b.df[ix]) == 0 {
			continue
		}
		terms := make([]string, 0, len(b.df[ix]))
		deltas := make([]int64, 0, len(b.df[ix]))
		for t, d := range b.df[ix] {
			if d != 0 {
				terms = append(terms, t)
				deltas = append(deltas, d)
			}
		}
		if _, err := b.tx.Exec(ctx, `INSERT INTO fts_terms(ix, term, df) SELECT $1, t, d FROM unnest($2::text[], $3::bigint[]) AS u(t, d)
			ON CONFLICT(ix, term) DO UPDATE SET df = fts_terms.df + excluded.df`, ix, terms, deltas); err != nil {
			return err
		}
		b.df[ix] = map[string]int64{}
	}
	// Terms whose last chunk went (by this batch's drops or its own
	// flush): a partial index finds them.
	if _, err := b.tx.Exec(ctx, "DELETE FROM fts_terms WHERE df <= 0"); err != nil {
		return err
	}
	b.rows, b.tokens = [2]int64{}, [2]int64{}
	return nil
}

// Put inserts or replaces a document and its chunks. Its statements are
// queued, not sent: each names the document by its path (the server finds
// its id, new or kept), so a whole run of documents goes to the server in
// one round trip (send, every flushEvery statements and at Commit).
func (b *batch) Put(ctx context.Context, d *store.Document) error {
	if len(d.Chunks) > store.MaxChunks {
		return fmt.Errorf("index %s/%s: %d chunks, more than %d", d.Collection, d.RelPath, len(d.Chunks), store.MaxChunks)
	}
	// The old text is kept (a document replaced, not a package unit's);
	// the old chunks (none for a new document) leave the statistics.
	if !d.NoLinks {
		b.keepVersion(byPath, d.Collection, d.RelPath)
	}
	b.queue(dropChunks(byPath), d.Collection, d.RelPath)
	b.queue(`DELETE FROM tags WHERE doc_id = (`+byPath+`) AND NOT "user"`, d.Collection, d.RelPath)
	b.queue(`INSERT INTO documents(collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, invalid_bytes, added_gen, changed_gen)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$11)
		ON CONFLICT(collection, rel_path) DO UPDATE SET hash = excluded.hash, title = excluded.title, lang = excluded.lang, mime = excluded.mime,
			size = excluded.size, mtime_ns = excluded.mtime_ns, line_count = excluded.line_count, invalid_bytes = excluded.invalid_bytes, changed_gen = excluded.changed_gen`,
		d.Collection, d.RelPath, d.Hash, d.Title, d.Lang, d.Mime, d.Size, d.MtimeNS, d.LineCount, d.InvalidBytes, b.gen)
	b.queue(`INSERT INTO contents(doc_id, content) SELECT id, $3 FROM documents WHERE collection = $1 AND rel_path = $2
		ON CONFLICT(doc_id) DO UPDATE SET content = excluded.content`, d.Collection, d.RelPath, d.Content)
	if !d.NoLinks {
		b.putLinks(d)
		b.putGoverns(d)
	}
	if len(d.Tags) > 0 {
		b.queue(`INSERT INTO tags(doc_id, tag) SELECT d.id, t FROM documents d, unnest($3::text[]) AS t
			WHERE d.collection = $1 AND d.rel_path = $2 ON CONFLICT DO NOTHING`, d.Collection, d.RelPath, d.Tags)
	}
	if err := b.putChunks(ctx, d); err != nil {
		return fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err)
	}
	if b.pending.Len() >= flushEvery {
		if err := b.send(ctx, "", nil); err != nil {
			return fmt.Errorf("index %s/%s and the documents before it: %w", d.Collection, d.RelPath, err)
		}
	}
	return nil
}

// flushEvery is the number of queued statements that makes a round trip.
const flushEvery = 512

// byPath selects the id of the document at ($1, $2).
const byPath = "SELECT id FROM documents WHERE collection = $1 AND rel_path = $2"

// dropChunks deletes the chunks of the documents whose ids doc selects,
// with their postings, and takes them out of the BM25 statistics, in one
// statement (data-modifying CTEs) that needs no answer. A term's
// decrement is an upsert: a term this batch added is still only in the
// batch's memory (flushStats adds it at commit), and an UPDATE would find
// no row and lose the decrement. Terms left at 0 go at commit.
func dropChunks(doc string) string {
	return `WITH g AS (DELETE FROM chunks WHERE doc_id IN (` + doc + `) RETURNING id, tsv, len, seg, seg_len),
	w AS (SELECT g.id, t.term FROM g, unnest(tsvector_to_array(g.tsv)) AS t(term)),
	sg AS (SELECT g.id, t.term FROM g, unnest(tsvector_to_array(g.seg)) AS t(term) WHERE g.seg IS NOT NULL),
	pw AS (DELETE FROM fts_postings p USING w WHERE p.ix = 0 AND p.term = w.term AND p.chunk_id = w.id),
	ps AS (DELETE FROM fts_postings p USING sg WHERE p.ix = 1 AND p.term = sg.term AND p.chunk_id = sg.id),
	dw AS (INSERT INTO fts_terms(ix, term, df) SELECT 0, term, -count(*) FROM w GROUP BY term
		ON CONFLICT(ix, term) DO UPDATE SET df = fts_terms.df + excluded.df),
	ds AS (INSERT INTO fts_terms(ix, term, df) SELECT 1, term, -count(*) FROM sg GROUP BY term
		ON CONFLICT(ix, term) DO UPDATE SET df = fts_terms.df + excluded.df)
	UPDATE fts_stats st SET rows = st.rows - x.r, tokens = st.tokens - x.t
	FROM (SELECT 0 AS ix, count(*) AS r, coalesce(sum(len), 0) AS t FROM g
		UNION ALL SELECT 1, count(*), coalesce(sum(seg_len), 0) FROM g WHERE seg IS NOT NULL) x
	WHERE st.ix = x.ix AND x.r > 0`
}

// putChunks tokenizes a document's chunks and queues their rows: one
// statement for the chunks, one per index for their postings, each
// chunk's id made by the server from its document's.
func (b *batch) putChunks(ctx context.Context, d *store.Document) error {
	if len(d.Chunks) == 0 {
		return nil
	}
	// The chunks' title column (indexed, never shown) adds the keywords.
	title := d.Title
	if d.Keywords != "" {
		title += " " + d.Keywords
	}
	words := make([]row, len(d.Chunks))
	var segRows []row
	var segOf []int
	for i, c := range d.Chunks {
		heads := strings.Join(c.Headings, " > ")
		words[i] = row{title, heads, c.Text}
		if segment.Has(c.Text) || segment.Has(title) || segment.Has(heads) {
			segRows = append(segRows, row{segment.Text(title), segment.Text(heads), segment.Text(c.Text)})
			segOf = append(segOf, i)
		}
	}
	wt, err := b.s.tok.tokenize(ctx, ixWords, words)
	if err != nil {
		return err
	}
	st, err := b.s.tok.tokenize(ctx, ixSeg, segRows)
	if err != nil {
		return err
	}
	segTok := make([][]token, len(d.Chunks))
	hasSeg := make([]bool, len(d.Chunks))
	for j, i := range segOf {
		segTok[i], hasSeg[i] = st[j], true
	}
	n := len(d.Chunks)
	var (
		seqs, starts, ends, startB, endB, lens, segLens = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		heads, bodies, tsvs                             = make([]string, n), make([]string, n), make([]string, n)
		segs                                            = make([]*string, n)
		post                                            [2]postings
	)
	for i, c := range d.Chunks {
		seqs[i], starts[i], ends[i], startB[i], endB[i] = int32(i), int32(c.StartLine), int32(c.EndLine), int32(c.StartByte), int32(c.EndByte)
		heads[i], bodies[i] = words[i][1], c.Text
		tsv, l, terms, wf := tsvector(wt[i])
		tsvs[i], lens[i] = tsv, int32(l)
		b.count(ixWords, terms, l, 1)
		post[ixWords].add(int64(i), l, terms, wf)
		if hasSeg[i] {
			lit, l, terms, wf := tsvector(segTok[i])
			segs[i], segLens[i] = &lit, int32(l)
			b.count(ixSeg, terms, l, 1)
			post[ixSeg].add(int64(i), l, terms, wf)
		}
	}
	b.queue(`INSERT INTO chunks(id, doc_id, seq, title, headings, body, start_line, end_line, start_byte, end_byte, tsv, len, seg, seg_len)
		SELECT (d.id << 16) | u.seq, d.id, u.seq, $3, u.h, u.b, u.sl, u.el, u.sb, u.eb, u.tsv::tsvector, u.n, u.seg::tsvector, u.segn
		FROM documents d, unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[], $10::int[], $11::text[], $12::int[], $13::text[], $14::int[])
			AS u(seq, h, b, sl, el, sb, eb, tsv, n, seg, segn)
		WHERE d.collection = $1 AND d.rel_path = $2`,
		d.Collection, d.RelPath, title, seqs, heads, bodies, starts, ends, startB, endB, tsvs, lens, segs, segLens)
	for ix, p := range post {
		if len(p.terms) > 0 {
			b.queue(`INSERT INTO fts_postings(ix, term, chunk_id, wf, len)
				SELECT $3, u.term, (d.id << 16) | u.seq, u.wf, u.len FROM documents d, unnest($4::text[], $5::bigint[], $6::float8[], $7::int[]) AS u(term, seq, wf, len)
				WHERE d.collection = $1 AND d.rel_path = $2`, d.Collection, d.RelPath, ix, p.terms, p.ids, p.wf, p.lens)
		}
	}
	return nil
}

// count adds one row's terms and length to index ix's statistics, sign
// +1 for a row added, -1 for one removed.
func (b *batch) count(ix int, terms []string, length int, sign int64) {
	for _, t := range terms {
		b.df[ix][t] += sign
	}
	b.rows[ix] += sign
	b.tokens[ix] += sign * int64(length)
}

// postings are rows of fts_postings, as columns (ids: the chunks' seq).
type postings struct {
	terms []string
	ids   []int64
	wf    []float64
	lens  []int32
}

// add appends the terms of chunk seq, their weighted frequencies and the
// chunk's length.
func (p *postings) add(seq int64, length int, terms []string, wf []float64) {
	for i, t := range terms {
		p.terms = append(p.terms, t)
		p.ids = append(p.ids, seq)
		p.lens = append(p.lens, int32(length))
		p.wf = append(p.wf, wf[i])
	}
}

// Touch records a new size and mtime for an unchanged document.
func (b *batch) Touch(ctx context.Context, id, size, mtimeNS int64) error {
	b.queue("UPDATE documents SET size = $1, mtime_ns = $2 WHERE id = $3", size, mtimeNS, id)
	return nil
}

// Remove deletes a document, recording it in the change feed.
func (b *batch) Remove(ctx context.Context, id int64) error {
	b.keepVersion("SELECT $1::bigint", id)
	b.queue(dropChunks("SELECT $1::bigint"), id)
	b.queue("INSERT INTO removed(collection, rel_path, hash, gen) SELECT collection, rel_path, hash, $1 FROM documents WHERE id = $2", b.gen, id)
	b.queue("DELETE FROM documents WHERE id = $1", id)
	return nil
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
// index needs none (its pending list absorbs bulk inserts).
func (s *Store) BeginBulk(ctx context.Context) error { return nil }

// MergeSegmented merges SQLite's segmented index; nothing to do here.
func (s *Store) MergeSegmented(ctx context.Context) error { return nil }

// EndBulk runs after a large sync: VACUUM marks the new postings' pages
// all-visible, so a search reads its words' postings from the index alone
// (an index-only scan) instead of a heap page per posting; ANALYZE gives
// the planner the new sizes. Autovacuum would do both, later.
func (s *Store) EndBulk(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "VACUUM (ANALYZE) fts_postings, fts_terms"); err != nil {
		return fmt.Errorf("finish bulk index: %w", err)
	}
	if _, err := s.pool.Exec(ctx, "ANALYZE chunks, documents, tags"); err != nil {
		return fmt.Errorf("finish bulk index: %w", err)
	}
	return nil
}
