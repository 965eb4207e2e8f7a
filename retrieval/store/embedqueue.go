package store

import (
	"context"
	"fmt"
	"strings"
)

// The embedding backlog of a large index is read in two steps: the queue
// (ids and what orders them, no text: ~40 bytes a chunk, read from
// indexes), then each window's text by id (a primary-key lookup per
// chunk). No statement of a batch scans the chunks table, so a
// batch costs the same at 10,000 chunks and at 1,000,000, and the text of
// the whole backlog is never in memory at once.

// Queued is a chunk waiting for a vector, with what orders the queue.
type Queued struct {
	ID         int64
	Collection string
	// MtimeNS is its document's modification time.
	MtimeNS int64
	// Bytes estimates the text the embedder will read: its document's
	// size shared among the document's chunks in the queue (the chunk's
	// own length would read every chunk's text).
	Bytes int
}

// EmbedQueue lists the chunks that have no vector (as Unembedded), without
// their text. It reads two covering indexes and the documents, never a
// chunk or vector row: the chunks that have a vector come from
// vectors_model, the rest from chunks_doc (a NOT EXISTS probe per chunk
// would read a vector row each, 1.1 s against 0.03 s at 160,000 chunks).
func (s *Store) EmbedQueue(ctx context.Context, collection string, except ...string) ([]Queued, error) {
	return readIn(ctx, s, func(ctx context.Context) ([]Queued, error) {
		done, err := s.idSet(ctx, "SELECT chunk_id FROM vectors")
		if err != nil {
			return nil, fmt.Errorf("find chunks to embed: %w", err)
		}
		where, args := collectionsAnd(collection, except)
		q := "SELECT c.id, d.id, d.collection, d.mtime_ns, d.size FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE 1" + where
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("find chunks to embed: %w", err)
		}
		defer rows.Close()
		var out []Queued
		var docs []int64
		var sizes []int
		for rows.Next() {
			var c Queued
			var doc int64
			var size int
			if err := rows.Scan(&c.ID, &doc, &c.Collection, &c.MtimeNS, &size); err != nil {
				return nil, fmt.Errorf("find chunks to embed: %w", err)
			}
			if !done[c.ID] {
				out = append(out, c)
				docs, sizes = append(docs, doc), append(sizes, size)
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("find chunks to embed: %w", err)
		}
		perDoc := map[int64]int{}
		for _, d := range docs {
			perDoc[d]++
		}
		for i := range out {
			out[i].Bytes = max(1, sizes[i]/perDoc[docs[i]])
		}
		return out, nil
	})
}

// maxTextIDs bounds the ids of one ChunkTexts statement (SQLite's
// variable limit is 32,766).
const maxTextIDs = 4096

// ChunkTexts reads the text of the chunks ids names, by id; a chunk
// deleted meanwhile is absent from the answer.
func (s *Store) ChunkTexts(ctx context.Context, ids []int64) (map[int64]ChunkText, error) {
	out := make(map[int64]ChunkText, len(ids))
	for len(ids) > 0 {
		part := ids[:min(len(ids), maxTextIDs)]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, "SELECT c.id, c.title, c.headings, "+chunkTextSQL+" FROM chunks c WHERE c.id IN (?"+strings.Repeat(", ?", len(part)-1)+")", args...)
		if err != nil {
			return nil, fmt.Errorf("read chunks to embed: %w", err)
		}
		for rows.Next() {
			var c ChunkText
			if err := rows.Scan(&c.ID, &c.Title, &c.Headings, &c.Body); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read chunks to embed: %w", err)
			}
			out[c.ID] = c
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read chunks to embed: %w", err)
		}
	}
	return out, nil
}

// ChunkCount counts the chunks of the index (every collection).
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM chunks").Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}
