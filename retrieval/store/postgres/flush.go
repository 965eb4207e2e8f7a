package postgres

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gnosearch/gno/retrieval/segment"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// A write batch holds the documents it is given and writes them in
// flushes of hundreds: the server's per-statement work, not its rows,
// was most of a sync's time. A flush is
//
//   - one round trip: the statements queued since the last flush (Touch,
//     PutSkip, …), the held documents' earlier rows dropped (their chunks
//     and postings, tags, links, declarations; their texts kept as
//     versions), each as one statement over arrays of their paths, and
//     one statement that upserts the documents, contents, tags, links and
//     declarations and returns the documents' ids;
//   - one tokenizer call per index for all their chunks;
//   - one COPY of the chunks and one of the postings, one row per index
//     and term (fts_blocks), each its chunks' postings as arrays;
//   - outside a bulk load, one statement per index that merges the small
//     blocks of the terms written, where they pile up (mergeBlocks).
//
// All of it is in the batch's transaction: a failed flush fails the batch.

// hold keeps a document for the next flush (a shallow copy: the caller
// may reuse its Document, not the slices in it).
func (b *batch) hold(d *store.Document) {
	dd := *d
	if b.held == nil {
		b.held = map[[2]string]bool{}
	}
	b.held[[2]string{d.Collection, d.RelPath}] = true
	b.docs = append(b.docs, &dd)
	b.nChunks += len(d.Chunks)
}

// flush writes the held documents, after the queued statements. Their
// tokens are cut here, while the server still writes the flush before
// (two cores: gno's tokenizer and the server's COPY run at once); then,
// that flush done, a goroutine writes these on the batch's connection
// and flush returns. Whatever touches the connection next waits for it
// (wait): the next flush, Commit, Rollback.
func (b *batch) flush(ctx context.Context) error {
	b.dropRemoved()
	docs := b.docs
	b.docs, b.nChunks = nil, 0
	clear(b.held)
	var tk *flushTokens
	if len(docs) > 0 {
		var err error
		if tk, err = b.tokenizeDocs(ctx, docs); err != nil {
			return err
		}
	}
	if err := b.wait(); err != nil {
		return err
	}
	if len(docs) == 0 {
		return b.send(ctx, "", nil)
	}
	// The goroutine's own batch: its statements, statistics and kept
	// versions, shared with this one at wait; the transaction is the
	// same.
	w := &batch{s: b.s, tx: b.tx, gen: b.gen, pending: b.pending}
	b.pending = nil
	done := make(chan error, 1)
	b.inflight, b.part = done, w
	go func() {
		ids, err := w.writeDocs(ctx, docs)
		if err == nil {
			err = w.writeChunks(ctx, docs, ids, tk)
		}
		done <- err
	}()
	return nil
}

// wait waits for the flush in flight, if any, and adds its statistics to
// the batch's.
func (b *batch) wait() error {
	if b.inflight == nil {
		return nil
	}
	err := <-b.inflight
	w := b.part
	b.inflight, b.part = nil, nil
	for ix := range 2 {
		b.rows[ix] += w.rows[ix]
		b.tokens[ix] += w.tokens[ix]
	}
	b.versioned = b.versioned || w.versioned
	return err
}

// writeDocs queues the held documents' replacement of their earlier rows
// and sends it with the queued statements and the upsert of their rows,
// returning each one's id (new or kept).
func (b *batch) writeDocs(ctx context.Context, docs []*store.Document) ([]int64, error) {
	n := len(docs)
	var (
		cols, rels, hashes, titles, langs, mimes = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		contents                                 = make([]string, n)
		sizes, mtimes                            = make([]int64, n), make([]int64, n)
		lines, invalid                           = make([]int32, n), make([]int32, n)
		lcols, lrels                             []string // the documents with links (not NoLinks)
		tagDoc                                   []int64
		tags                                     []string
		lk                                       docLinks
		gv                                       declared
	)
	for k, d := range docs {
		i := int64(k + 1)
		cols[k], rels[k], hashes[k], titles[k], langs[k], mimes[k] = d.Collection, d.RelPath, d.Hash, d.Title, d.Lang, d.Mime
		contents[k], sizes[k], mtimes[k], lines[k], invalid[k] = d.Content, d.Size, d.MtimeNS, int32(d.LineCount), int32(d.InvalidBytes)
		for _, t := range d.Tags {
			tagDoc, tags = append(tagDoc, i), append(tags, t)
		}
		if !d.NoLinks {
			lcols, lrels = append(lcols, d.Collection), append(lrels, d.RelPath)
			lk.add(i, d)
			gv.add(i, d)
		}
	}
	// The earlier rows of the documents that exist (none for new ones).
	// Texts are kept and links replaced only for documents with links
	// (a package unit's are neither).
	if len(lcols) > 0 {
		b.keepVersion(byPaths, lcols, lrels)
		b.queue("DELETE FROM doc_links WHERE doc_id IN ("+byPaths+")", lcols, lrels)
		b.queue("DELETE FROM governs WHERE doc_id IN ("+byPaths+")", lcols, lrels)
	}
	b.queue(dropChunks(byPaths), cols, rels)
	b.queue(`DELETE FROM tags WHERE doc_id IN (`+byPaths+`) AND NOT "user"`, cols, rels)
	ids := make([]int64, n)
	found := 0
	err := b.sendRows(ctx, `WITH u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::int[], $10::int[], $12::text[])
			WITH ORDINALITY AS u(c, r, hash, title, lang, mime, size, mtime, lines, invalid, content, i)),
		d AS (INSERT INTO documents(collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, invalid_bytes, added_gen, changed_gen)
			SELECT c, r, hash, title, lang, mime, size, mtime, lines, invalid, $11, $11 FROM u ORDER BY i
			ON CONFLICT(collection, rel_path) DO UPDATE SET hash = excluded.hash, title = excluded.title, lang = excluded.lang, mime = excluded.mime,
				size = excluded.size, mtime_ns = excluded.mtime_ns, line_count = excluded.line_count, invalid_bytes = excluded.invalid_bytes, changed_gen = excluded.changed_gen
			RETURNING id, collection, rel_path),
		x AS (SELECT u.i, d.id, u.content FROM u JOIN d ON d.collection = u.c AND d.rel_path = u.r),
		ct AS (INSERT INTO contents(doc_id, content) SELECT id, content FROM x ON CONFLICT(doc_id) DO UPDATE SET content = excluded.content),
		tg AS (INSERT INTO tags(doc_id, tag) SELECT x.id, t.tag FROM x JOIN unnest($13::bigint[], $14::text[]) AS t(i, tag) ON t.i = x.i ON CONFLICT DO NOTHING),
		lk AS (INSERT INTO doc_links(doc_id, aliases, links) SELECT x.id, t.a, t.l FROM x JOIN unnest($15::bigint[], $16::text[], $17::bytea[]) AS t(i, a, l) ON t.i = x.i
			ON CONFLICT(doc_id) DO UPDATE SET aliases = excluded.aliases, links = excluded.links),
		gv AS (INSERT INTO governs(doc_id, seq, kind, collection, value, problem)
			SELECT x.id, t.s, t.k, t.c, t.v, t.p FROM x JOIN unnest($18::bigint[], $19::int[], $20::int[], $21::text[], $22::text[], $23::text[]) AS t(i, s, k, c, v, p) ON t.i = x.i)
		SELECT i, id FROM x`,
		[]any{cols, rels, hashes, titles, langs, mimes, sizes, mtimes, lines, invalid, b.gen, contents, nonNil(tagDoc), nonNil(tags),
			nonNil(lk.i), nonNil(lk.aliases), nonNil(lk.links), nonNil(gv.i), nonNil(gv.seq), nonNil(gv.kinds), nonNil(gv.cols), nonNil(gv.values), nonNil(gv.problems)},
		func(r pgx.Rows) error {
			var i, id int64
			if err := r.Scan(&i, &id); err != nil {
				return err
			}
			ids[i-1] = id
			found++
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("write documents: %w", err)
	}
	if found != n {
		return nil, fmt.Errorf("write documents: %d of %d written were not found again", n-found, n)
	}
	return ids, nil
}

// nonNil gives an empty slice for nil (pgx sends a nil slice as NULL,
// and unnest(NULL) is no rows, but an explicit empty array reads better
// in the server's log).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// byPaths selects the ids of the documents at the paths of the arrays $1
// (collections) and $2 (relative paths).
const byPaths = "SELECT d.id FROM documents d JOIN unnest($1::text[], $2::text[]) AS p(c, r) ON d.collection = p.c AND d.rel_path = p.r"

// sendRows sends the queued statements and then q, whose rows go to fn,
// in one round trip.
func (b *batch) sendRows(ctx context.Context, q string, args []any, fn func(pgx.Rows) error) error {
	pb := b.pending
	b.pending = nil
	if pb == nil {
		pb = &pgx.Batch{}
	}
	queued := pb.Len()
	pb.Queue(q, args...)
	br := b.tx.SendBatch(ctx, pb)
	defer br.Close()
	for range queued {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return br.Close()
}

// flushTokens are the tokens of a flush's chunks, in order, with the
// columns they were cut from.
type flushTokens struct {
	titles []string
	heads  [][]string
	wt     [][]token
	segTok [][]token
	hasSeg []bool
}

// tokenizeDocs cuts the tokens of the chunks of docs, one tokenizer call
// per index.
func (b *batch) tokenizeDocs(ctx context.Context, docs []*store.Document) (*flushTokens, error) {
	var words, segRows []row
	var segOf []int
	tk := &flushTokens{titles: make([]string, len(docs)), heads: make([][]string, len(docs))}
	for di, d := range docs {
		// The chunks' title column (indexed, never shown) adds the keywords.
		title := d.Title
		if d.Keywords != "" {
			title += " " + d.Keywords
		}
		tk.titles[di] = title
		tk.heads[di] = make([]string, len(d.Chunks))
		for ci, c := range d.Chunks {
			h := strings.Join(c.Headings, " > ")
			tk.heads[di][ci] = h
			words = append(words, row{title, h, c.Text})
			if segment.Has(c.Text) || segment.Has(title) || segment.Has(h) {
				segRows = append(segRows, row{segment.Text(title), segment.Text(h), segment.Text(c.Text)})
				segOf = append(segOf, len(words)-1)
			}
		}
	}
	var err error
	if tk.wt, err = b.s.tok.tokenize(ctx, ixWords, words); err != nil {
		return nil, err
	}
	st, err := b.s.tok.tokenize(ctx, ixSeg, segRows)
	if err != nil {
		return nil, err
	}
	tk.segTok = make([][]token, len(words))
	tk.hasSeg = make([]bool, len(words))
	for j, i := range segOf {
		tk.segTok[i], tk.hasSeg[i] = st[j], true
	}
	return tk, nil
}

// writeChunks writes the chunks of docs (whose ids are ids, whose tokens
// are tk) and their postings by COPY, adding them to the batch's BM25
// statistics.
func (b *batch) writeChunks(ctx context.Context, docs []*store.Document, ids []int64, tk *flushTokens) error {
	if len(tk.wt) == 0 {
		return nil
	}
	wt, segTok, hasSeg, titles, heads := tk.wt, tk.segTok, tk.hasSeg, tk.titles, tk.heads
	chunkRows := make([][]any, 0, len(wt))
	post := [2]blockSet{{}, {}}
	k := 0
	for di, d := range docs {
		for seq, c := range d.Chunks {
			id := ids[di]<<16 | int64(seq)
			tsv, l, terms, wf := tsvector(wt[k])
			b.count(ixWords, l, 1)
			post[ixWords].add(id, l, terms, wf)
			var seg any
			segLen := 0
			if hasSeg[k] {
				var sv pgtype.TSVector
				var sterms []string
				var swf []float64
				sv, segLen, sterms, swf = tsvector(segTok[k])
				seg = sv
				b.count(ixSeg, segLen, 1)
				post[ixSeg].add(id, segLen, sterms, swf)
			}
			chunkRows = append(chunkRows, []any{id, ids[di], int32(seq), titles[di], heads[di][seq], c.Text,
				int32(c.StartLine), int32(c.EndLine), int32(c.StartByte), int32(c.EndByte), tsv, int32(l), seg, int32(segLen)})
			k++
		}
	}
	if _, err := b.tx.CopyFrom(ctx, pgx.Identifier{"chunks"},
		[]string{"id", "doc_id", "seq", "title", "headings", "body", "start_line", "end_line", "start_byte", "end_byte", "tsv", "len", "seg", "seg_len"},
		pgx.CopyFromRows(chunkRows)); err != nil {
		return fmt.Errorf("write chunks: %w", err)
	}
	blocks := append(post[ixWords].rows(ixWords, nil), post[ixSeg].rows(ixSeg, nil)...)
	if _, err := b.tx.CopyFrom(ctx, pgx.Identifier{"fts_blocks"}, []string{"ix", "term", "first", "last", "n", "max_wf", "min_lr", "ids", "wfs", "lens", "sub_wf", "sub_lr", "sub_first", "sub_n"},
		pgx.CopyFromRows(blocks)); err != nil {
		return fmt.Errorf("write the word index: %w", err)
	}
	if b.s.bulk.open() {
		return nil // a bulk load leaves its blocks unmerged (mergeBlocks)
	}
	for ix := range post {
		if err := mergeBlocks(ctx, b.tx, ix, post[ix].terms()); err != nil {
			return err
		}
	}
	return nil
}

// blockSet is a flush's postings of one index, by term: each term's
// block in the making.
type blockSet map[string]*blockRow

// blockRow is a block's postings: chunk ids, weighted frequencies and
// the chunks' lengths.
type blockRow struct {
	ids  []int64
	wfs  []float64
	lens []int32
}

// add adds the postings of chunk id's terms, their weighted frequencies
// and the chunk's length.
func (bs blockSet) add(id int64, length int, terms []string, wf []float64) {
	for i, t := range terms {
		r := bs[t]
		if r == nil {
			r = &blockRow{}
			bs[t] = r
		}
		r.ids, r.wfs, r.lens = append(r.ids, id), append(r.wfs, wf[i]), append(r.lens, int32(length))
	}
}

// terms is the set's terms, sorted.
func (bs blockSet) terms() []string {
	terms := make([]string, 0, len(bs))
	for t := range bs {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	return terms
}

// rows appends the rows of fts_blocks of index ix to out, by term, each
// block's postings in chunk order.
func (bs blockSet) rows(ix int, out [][]any) [][]any {
	for _, t := range bs.terms() {
		r := bs[t]
		if !slices.IsSorted(r.ids) {
			// A changed document keeps its id: the flush's ids are not
			// always ascending.
			order := make([]int, len(r.ids))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(r.ids[a], r.ids[b]) })
			s := blockRow{make([]int64, len(order)), make([]float64, len(order)), make([]int32, len(order))}
			for i, k := range order {
				s.ids[i], s.wfs[i], s.lens[i] = r.ids[k], r.wfs[k], r.lens[k]
			}
			r = &s
		}
		maxWF, minLR := 0.0, math.Inf(1)
		for i, wf := range r.wfs {
			maxWF = max(maxWF, wf)
			minLR = min(minLR, float64(r.lens[i])/wf)
		}
		n := len(r.ids)
		subWF, subLR, subFirst := subBounds(r.ids, r.wfs, r.lens)
		var subN *int32
		if subWF != nil {
			subN = new(int32(n))
		}
		out = append(out, []any{int16(ix), t, r.ids[0], r.ids[n-1], int32(n), maxWF, minLR, r.ids, r.wfs, r.lens, subWF, subLR, subFirst, subN})
	}
	return out
}
