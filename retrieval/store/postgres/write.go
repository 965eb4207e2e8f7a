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
	if err := b.flushStats(ctx); err != nil {
		b.Rollback()
		return fmt.Errorf("commit: %w", err)
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
		if _, err := b.tx.Exec(ctx, "DELETE FROM fts_terms WHERE ix = $1 AND term = ANY($2) AND df <= 0", ix, terms); err != nil {
			return err
		}
		b.df[ix] = map[string]int64{}
	}
	b.rows, b.tokens = [2]int64{}, [2]int64{}
	return nil
}

// Put inserts or replaces a document and its chunks.
func (b *batch) Put(ctx context.Context, d *store.Document) error {
	if len(d.Chunks) > store.MaxChunks {
		return fmt.Errorf("index %s/%s: %d chunks, more than %d", d.Collection, d.RelPath, len(d.Chunks), store.MaxChunks)
	}
	fail := func(err error) error { return fmt.Errorf("index %s/%s: %w", d.Collection, d.RelPath, err) }
	// One statement inserts or updates the row (added_gen kept), one
	// batch writes the rest: a sync's round trips to the server are most
	// of its time.
	var id int64
	var inserted bool
	if err := b.tx.QueryRow(ctx, `INSERT INTO documents(collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, invalid_bytes, added_gen, changed_gen)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$11)
		ON CONFLICT(collection, rel_path) DO UPDATE SET hash = excluded.hash, title = excluded.title, lang = excluded.lang, mime = excluded.mime,
			size = excluded.size, mtime_ns = excluded.mtime_ns, line_count = excluded.line_count, invalid_bytes = excluded.invalid_bytes, changed_gen = excluded.changed_gen
		RETURNING id, xmax = 0`, d.Collection, d.RelPath, d.Hash, d.Title, d.Lang, d.Mime, d.Size, d.MtimeNS, d.LineCount, d.InvalidBytes, b.gen).Scan(&id, &inserted); err != nil {
		return fail(err)
	}
	if id >= store.MaxDocID {
		return fmt.Errorf("index %s/%s: document id space exhausted; run `gno cleanup`", d.Collection, d.RelPath)
	}
	pb := &pgx.Batch{}
	if !inserted {
		if err := b.dropChunks(ctx, "doc_id = $1", id); err != nil {
			return fail(err)
		}
		pb.Queue(`DELETE FROM tags WHERE doc_id = $1 AND NOT "user"`, id)
	}
	pb.Queue("INSERT INTO contents(doc_id, content) VALUES($1, $2) ON CONFLICT(doc_id) DO UPDATE SET content = excluded.content", id, d.Content)
	if len(d.Tags) > 0 {
		pb.Queue("INSERT INTO tags(doc_id, tag) SELECT $1, t FROM unnest($2::text[]) AS t ON CONFLICT DO NOTHING", id, d.Tags)
	}
	if err := b.putChunks(ctx, pb, id, d); err != nil {
		return fail(err)
	}
	if err := b.tx.SendBatch(ctx, pb).Close(); err != nil {
		return fail(err)
	}
	return nil
}

// putChunks tokenizes a document's chunks and queues their rows in pb.
func (b *batch) putChunks(ctx context.Context, pb *pgx.Batch, id int64, d *store.Document) error {
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
	var post [2]postings
	for i, c := range d.Chunks {
		cid := store.ChunkID(id, i)
		tsv, n, terms, wf := tsvector(wt[i])
		b.count(ixWords, terms, n, 1)
		post[ixWords].add(cid, n, terms, wf)
		var seg *string
		segLen := 0
		if hasSeg[i] {
			lit, n, terms, wf := tsvector(segTok[i])
			seg, segLen = &lit, n
			b.count(ixSeg, terms, n, 1)
			post[ixSeg].add(cid, n, terms, wf)
		}
		pb.Queue(`INSERT INTO chunks(id, doc_id, seq, title, headings, body, start_line, end_line, start_byte, end_byte, tsv, len, seg, seg_len)
			VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11::tsvector,$12,$13::tsvector,$14)`,
			cid, id, i, title, words[i][1], c.Text, c.StartLine, c.EndLine, c.StartByte, c.EndByte, tsv, n, seg, segLen)
	}
	for ix, p := range post {
		if len(p.terms) > 0 {
			pb.Queue("INSERT INTO fts_postings(ix, term, chunk_id, wf, len) SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::int[])",
				ix, p.terms, p.ids, p.wf, p.lens)
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

// dropChunks deletes the chunks matching where (its argument arg),
// taking their terms and lengths out of the statistics.
func (b *batch) dropChunks(ctx context.Context, where string, arg any) error {
	rows, err := b.tx.Query(ctx, "DELETE FROM chunks WHERE "+where+" RETURNING id, tsvector_to_array(tsv), len, seg IS NOT NULL, coalesce(tsvector_to_array(seg), '{}'), seg_len", arg)
	if err != nil {
		return err
	}
	var gone [2]postings
	for rows.Next() {
		var id int64
		var terms, segTerms []string
		var n, segLen int
		var hasSeg bool
		if err := rows.Scan(&id, &terms, &n, &hasSeg, &segTerms, &segLen); err != nil {
			rows.Close()
			return err
		}
		b.count(ixWords, terms, n, -1)
		gone[ixWords].add(id, n, terms, nil)
		if hasSeg {
			b.count(ixSeg, segTerms, segLen, -1)
			gone[ixSeg].add(id, segLen, segTerms, nil)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for ix, p := range gone {
		if len(p.terms) == 0 {
			continue
		}
		if _, err := b.tx.Exec(ctx, `DELETE FROM fts_postings p USING unnest($2::text[], $3::bigint[]) AS u(term, id)
			WHERE p.ix = $1 AND p.term = u.term AND p.chunk_id = u.id`, ix, p.terms, p.ids); err != nil {
			return err
		}
	}
	return nil
}

// postings are rows of fts_postings, as columns.
type postings struct {
	terms []string
	ids   []int64
	wf    []float64
	lens  []int32
}

// add appends chunk id's terms (with their weighted frequencies, when
// known) and the chunk's length.
func (p *postings) add(id int64, length int, terms []string, wf []float64) {
	for i, t := range terms {
		p.terms = append(p.terms, t)
		p.ids = append(p.ids, id)
		p.lens = append(p.lens, int32(length))
		if wf != nil {
			p.wf = append(p.wf, wf[i])
		}
	}
}

// Touch records a new size and mtime for an unchanged document.
func (b *batch) Touch(ctx context.Context, id, size, mtimeNS int64) error {
	if _, err := b.tx.Exec(ctx, "UPDATE documents SET size = $1, mtime_ns = $2 WHERE id = $3", size, mtimeNS, id); err != nil {
		return fmt.Errorf("touch document %d: %w", id, err)
	}
	return nil
}

// Remove deletes a document, recording it in the change feed.
func (b *batch) Remove(ctx context.Context, id int64) error {
	if err := b.dropChunks(ctx, "doc_id = $1", id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	if _, err := b.tx.Exec(ctx, "INSERT INTO removed(collection, rel_path, hash, gen) SELECT collection, rel_path, hash, $1 FROM documents WHERE id = $2", b.gen, id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	if _, err := b.tx.Exec(ctx, "DELETE FROM documents WHERE id = $1", id); err != nil {
		return fmt.Errorf("remove document %d: %w", id, err)
	}
	return nil
}

// PutSkip records a file the sync could not convert.
func (b *batch) PutSkip(ctx context.Context, collection, rel string, st store.SkipState) error {
	_, err := b.tx.Exec(ctx, `INSERT INTO skipped(collection, rel_path, hash, size, mtime_ns, reason, detail) VALUES($1,$2,$3,$4,$5,$6,$7)
		ON CONFLICT(collection, rel_path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns, reason = excluded.reason, detail = excluded.detail`,
		collection, rel, st.Hash, st.Size, st.MtimeNS, st.Reason, st.Detail)
	if err != nil {
		return fmt.Errorf("record skipped %s/%s: %w", collection, rel, err)
	}
	return nil
}

// DeleteSkip forgets a recorded conversion failure.
func (b *batch) DeleteSkip(ctx context.Context, collection, rel string) error {
	if _, err := b.tx.Exec(ctx, "DELETE FROM skipped WHERE collection = $1 AND rel_path = $2", collection, rel); err != nil {
		return fmt.Errorf("forget skipped %s/%s: %w", collection, rel, err)
	}
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
	if err := b.dropChunks(ctx, "doc_id IN (SELECT id FROM documents WHERE collection <> ALL($1))", keep); err != nil {
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
