package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gnosearch/gno/retrieval/query"
)

// The keyword search: BM25 over the word index (chunks_fts) and the
// segmented index (chunks_seg), one best chunk per document. prune.go
// holds the exact pruning of the word index's ORed questions.

// ChunkHit is one chunk matched by a search, the best of its document.
type ChunkHit struct {
	ChunkID int64
	DocID   int64
	// Score is the positive BM25 score (higher is better).
	Score float64
}

// Column weights of the word index: a match in the title or a heading says
// more about the chunk than one in the body.
const bm25Weights = "2.0, 1.5, 1.0"

// SearchFTS returns the best chunk of each of the top documents matching q
// under f, ordered by BM25, all its passes in one snapshot.
func (s *Store) SearchFTS(ctx context.Context, q query.Keywords, f Filter, limit int) ([]ChunkHit, error) {
	return readIn(ctx, s, func(ctx context.Context) ([]ChunkHit, error) { return s.searchFTS(ctx, q, f, limit) })
}

func (s *Store) searchFTS(ctx context.Context, q query.Keywords, f Filter, limit int) ([]ChunkHit, error) {
	var hits []ChunkHit
	where, args := f.where()
	// The segmented index holds every word of the chunks with unspaced
	// script; the word index adds the documents without such script.
	if expr := q.MatchExpr(); expr != "" && !q.NeedsSegmented() {
		rank := "bm25(chunks_fts, " + bm25Weights + ")"
		// The block-max postings when they are current (impacts.go), else
		// FTS5 with the exact pruning.
		h, ok, err := s.searchImpacts(ctx, q, where, args, limit)
		if errors.Is(err, errImpactsDamaged) {
			// Damaged postings are a cache gone bad, not a lost index:
			// FTS5 still answers (gno cleanup rebuilds them).
			h, ok, err = nil, false, nil
		}
		if err == nil && !ok {
			h, ok, err = s.searchPruned(ctx, q, expr, rank, where, args, limit)
		}
		if err == nil && !ok {
			h, err = s.bestPerDoc(ctx, "chunks_fts", rank, expr, where, args, limit)
		}
		if err != nil {
			return nil, err
		}
		if ex := q.SegExcludeExpr(); ex != "" && len(h) > 0 {
			if h, err = s.dropMatching(ctx, h, ex); err != nil {
				return nil, err
			}
		}
		hits = h
	}
	if expr := q.SegmentExpr(); expr != "" {
		h, err := s.bestPerDoc(ctx, "chunks_seg", "bm25(chunks_seg, "+bm25Weights+")", expr, where, args, limit)
		if err != nil {
			return nil, err
		}
		hits = mergeHits(hits, h, limit)
	}
	return hits, nil
}

// dropMatching removes the hits whose chunk matches expr in the segmented
// index (an exclusion the word index cannot evaluate).
func (s *Store) dropMatching(ctx context.Context, hits []ChunkHit, expr string) ([]ChunkHit, error) {
	args := []any{expr}
	for _, h := range hits {
		args = append(args, h.ChunkID)
	}
	drop, err := s.idSet(ctx, "SELECT rowid FROM chunks_seg WHERE chunks_seg MATCH ? AND rowid IN ("+placeholders(len(hits))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := hits[:0]
	for _, h := range hits {
		if !drop[h.ChunkID] {
			out = append(out, h)
		}
	}
	return out, nil
}

func (s *Store) bestPerDoc(ctx context.Context, table, rank, expr, where string, fargs []any, limit int) ([]ChunkHit, error) {
	return s.bestPerDocIn(ctx, table, rank, expr, "", nil, where, fargs, limit)
}

// bestPerDocIn is bestPerDoc over the rows that also pass restrict (a
// condition on the FTS table's rowid, with its arguments rargs).
func (s *Store) bestPerDocIn(ctx context.Context, table, rank, expr, restrict string, rargs []any, where string, fargs []any, limit int) ([]ChunkHit, error) {
	// Chunk ids carry their document (DocOfChunk), so without a filter the
	// search reads only the FTS index.
	from := table + " WHERE " + table + " MATCH ?" + restrict
	if where != "" {
		from = table + " JOIN documents d ON d.id = (" + table + ".rowid >> 16) WHERE " + table + " MATCH ?" + restrict + where
	}
	args := append(append([]any{expr}, rargs...), fargs...)
	// Fast path: the top chunks, grouped here. Most documents have few
	// chunks, so 2×limit+10 chunks nearly always hold limit documents.
	fetch := 2*limit + 10
	// Ties go by chunk id, as in the grouped path below and on every
	// backend (storetest's TieOrder): the same index answers in the same
	// order whichever store holds it.
	plain := `SELECT ` + table + `.rowid AS id, -` + rank + ` AS s FROM ` + from + ` ORDER BY s DESC, id LIMIT ?`
	hits, n, err := s.scanHits(ctx, plain, append(args[:len(args):len(args)], fetch), limit)
	if err != nil || len(hits) >= limit || n < fetch {
		return hits, err
	}
	// Slow path: one best chunk per document over every match. The CTE is
	// materialised so SQLite does not flatten bm25() into the aggregate,
	// where FTS5 cannot evaluate it; the bare-column rule makes id the chunk
	// of the max.
	grouped := `WITH m AS MATERIALIZED (
		SELECT ` + table + `.rowid AS id, -` + rank + ` AS s FROM ` + from + `)
	SELECT id, max(s) AS s FROM m GROUP BY id >> 16 ORDER BY s DESC, id LIMIT ?`
	hits, _, err = s.scanHits(ctx, grouped, append(args[:len(args):len(args)], limit), limit)
	return hits, err
}

// scanHits reads (chunk id, score) rows, keeping the first (best) chunk of
// each document, up to limit documents; n is the number of rows read.
func (s *Store) scanHits(ctx context.Context, query string, args []any, limit int) ([]ChunkHit, int, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []ChunkHit
	seen := map[int64]bool{}
	n := 0
	for rows.Next() {
		var h ChunkHit
		if err := rows.Scan(&h.ChunkID, &h.Score); err != nil {
			return nil, n, err
		}
		n++
		h.DocID = DocOfChunk(h.ChunkID)
		if seen[h.DocID] || len(out) >= limit {
			continue
		}
		seen[h.DocID] = true
		out = append(out, h)
	}
	return out, n, rows.Err()
}

// mergeHits joins word and segmented-index hits, keeping each document's
// better hit. Both are BM25 over the same words with the same column
// weights, so their scores compare directly; a document with unspaced
// script scores higher in the segmented index, which sees all its terms.
func mergeHits(a, b []ChunkHit, limit int) []ChunkHit {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	best := map[int64]ChunkHit{}
	for _, h := range a {
		best[h.DocID] = h
	}
	for _, h := range b {
		if cur, ok := best[h.DocID]; !ok || h.Score > cur.Score {
			best[h.DocID] = h
		}
	}
	out := make([]ChunkHit, 0, len(best))
	for _, h := range best {
		out = append(out, h)
	}
	sortHits(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func sortHits(h []ChunkHit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].Score != h[j].Score {
			return h[i].Score > h[j].Score
		}
		return h[i].DocID < h[j].DocID
	})
}
