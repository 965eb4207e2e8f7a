package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Vector search on the server (store.VectorSearcher): each model's vectors
// have an HNSW index of their halfvec (half the size of the float4
// vector, recall within a point of it), cosine distance, partial on the
// model (a dimension is fixed per index, and a model changing leaves the
// old vectors for a while). The index is made by the first PutVectors of
// a model, over the rows already there, then kept by the server with each
// insert. A search asks the index for its best chunks under the filter
// (pgvector's iterative scan goes on past the filtered-out ones), scores
// them exactly from their float4 vectors, and keeps each document's best.

var _ store.VectorSearcher = (*Store)(nil)

// hnswEfSearch is the candidate list of a search (pgvector's default is
// 40): SearchVectors asks for 3k chunks, k mostly 10; past the list the
// iterative scan goes on. On SciFact's 5,281 vectors 64 finds all of the
// exact top 10 among its 30 (bench/RESULTS.md), 1.7 ms a search.
const hnswEfSearch = 64

// vectorIndex names the HNSW index of model's vectors of dims dimensions
// and gives its key expression.
func vectorIndex(model string, dims int) (name, expr string) {
	h := fnv.New64a()
	h.Write([]byte(model))
	return fmt.Sprintf("vectors_hnsw_%d_%x", dims, h.Sum64()), "(vec::halfvec(" + strconv.Itoa(dims) + "))"
}

// quoteLiteral quotes s as an SQL string literal (the model names a
// partial index's predicate, and a search must name it literally for the
// planner to use that index).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ensureVectorIndex makes the HNSW index of model's vectors of dims
// dimensions, if it is not there, in tx.
func ensureVectorIndex(ctx context.Context, tx pgx.Tx, model string, dims int) error {
	if dims <= 0 || dims > 4000 {
		// halfvec's HNSW takes up to 4,000 dimensions; beyond, the
		// search reads the vectors without an index.
		return nil
	}
	name, expr := vectorIndex(model, dims)
	// CREATE INDEX IF NOT EXISTS takes a SHARE lock on vectors even when
	// the index exists, held to the end of the embedding's transaction:
	// a sync deleting chunks (their vectors cascade) would wait for it.
	// Asked first, an existing index costs a catalogue read.
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", pgx.Identifier{name}.Sanitize()).Scan(&exists); err != nil || exists {
		return err
	}
	_, err := tx.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+pgx.Identifier{name}.Sanitize()+" ON vectors USING hnsw ("+expr+
		" halfvec_cosine_ops) WHERE model = "+quoteLiteral(model))
	return err
}

// bulkVectors puts off the HNSW index of a model while a bulk load
// (BeginBulk … EndBulk, as `gno store copy` makes) stores its vectors:
// kept up to date per insert it costs the server about 0.8 ms a vector,
// built once at the end a fraction of that. Until then searches scan the
// vectors (exact, slower); a load that dies before EndBulk leaves the
// index to the next PutVectors, which makes any that is missing.
type bulkVectors struct {
	mu    sync.Mutex
	depth int
	// models are those whose index was put off, with their dimension.
	models map[string]int
}

func (b *bulkVectors) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.depth++
}

// open reports whether a bulk load is under way (a flush then leaves
// its blocks unmerged: mergeBlocks).
func (b *bulkVectors) open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.depth > 0
}

// putOff reports whether the index of model is put off (a bulk load is
// under way), noting it for end.
func (b *bulkVectors) putOff(model string, dims int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.depth == 0 {
		return false
	}
	if b.models == nil {
		b.models = map[string]int{}
	}
	b.models[model] = dims
	return true
}

// end closes one bulk load and returns the models whose index is to be
// built now: those put off, once the last load open ends.
func (b *bulkVectors) end() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.depth > 0 {
		b.depth--
	}
	if b.depth > 0 {
		return nil
	}
	m := b.models
	b.models = nil
	return m
}

// buildDeferred builds the vector indexes a bulk load put off, each in
// its own transaction.
func (s *Store) buildDeferred(ctx context.Context) error {
	for model, dims := range s.bulk.end() {
		err := s.fenced(ctx, func(tx pgx.Tx) error {
			return ensureVectorIndex(ctx, tx, model, dims)
		})
		if err != nil {
			return fmt.Errorf("index vectors: %w", err)
		}
	}
	return nil
}

// SearchVectors returns the best chunk of each of the top k documents
// under f by cosine similarity to q, from the server's HNSW index.
func (s *Store) SearchVectors(ctx context.Context, model string, q []float32, f store.Filter, k int) ([]store.ChunkHit, error) {
	if len(q) == 0 || k <= 0 {
		return nil, nil
	}
	dims := strconv.Itoa(len(q))
	args := []any{pgvector.NewVector(q), k * 3}
	from := "vectors v"
	w, fargs := where(f, len(args)+1)
	if w != "" {
		from += " JOIN documents d ON d.id = v.chunk_id >> 16"
		args = append(args, fargs...)
	}
	// The order is the index's key (vectorIndex) against the query as a
	// halfvec; the score is exact, from the float4 vectors.
	sql := "SELECT v.chunk_id, 1 - (v.vec <=> $1::vector) FROM " + from + " WHERE v.model = " + quoteLiteral(model) + w +
		" ORDER BY (v.vec::halfvec(" + dims + ")) <=> ($1::vector::halfvec(" + dims + ")) LIMIT $2"
	var hits []store.ChunkHit
	err := s.each(ctx, sql, args, func(r pgx.Rows) error {
		var h store.ChunkHit
		if err := r.Scan(&h.ChunkID, &h.Score); err != nil {
			return err
		}
		h.DocID = store.DocOfChunk(h.ChunkID)
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	// Exact scores, best first (ties by chunk), each document's best.
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ChunkID < hits[j].ChunkID
	})
	out := hits[:0]
	seen := map[int64]bool{}
	for _, h := range hits {
		if seen[h.DocID] {
			continue
		}
		seen[h.DocID] = true
		out = append(out, h)
		if len(out) == k {
			break
		}
	}
	return out, nil
}
