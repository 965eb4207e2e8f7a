package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Vectors live in pgvector's vector type, one per chunk for one model at a
// time, with the vectors_version at insertion (ver) as in SQLite. The
// server searches them itself (vsearch.go: an HNSW index per model), so
// the engine keeps no graph of its own over a Postgres index.

// DropVectors deletes every stored vector except those of keepModel, and
// moves vectors_version in the same transaction, as SQLite's does: the
// engine's cached vector count is keyed by it.
func (s *Store) DropVectors(ctx context.Context, keepModel string) error {
	err := s.fenced(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM vectors WHERE $1 = '' OR model <> $1", keepModel); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES('vectors_version', '1')
			ON CONFLICT(key) DO UPDATE SET value = (meta.value::bigint + 1)::text`)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear stale vectors: %w", err)
	}
	return nil
}

// unembedded is the condition of Unembedded over chunks c and documents d.
const unembedded = ` WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)
	AND ($1 = '' OR d.collection = $1) AND d.collection <> ALL($2)`

// Unembedded lists the chunks that have no vector.
func (s *Store) Unembedded(ctx context.Context, collection string, except ...string) ([]store.ChunkText, error) {
	var out []store.ChunkText
	if except == nil {
		except = []string{}
	}
	err := s.each(ctx, "SELECT c.id, c.title, c.headings, c.body FROM chunks c JOIN documents d ON d.id = c.doc_id"+unembedded+" ORDER BY c.id",
		[]any{collection, except}, func(r pgx.Rows) error {
			var c store.ChunkText
			err := r.Scan(&c.ID, &c.Title, &c.Headings, &c.Body)
			out = append(out, c)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("find chunks to embed: %w", err)
	}
	return out, nil
}

// UnembeddedCount counts the chunks Unembedded would list.
func (s *Store) UnembeddedCount(ctx context.Context, collection string, except ...string) (int, error) {
	if except == nil {
		except = []string{}
	}
	var n int
	if err := s.one(ctx, "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id"+unembedded, []any{collection, except}, &n); err != nil {
		return 0, fmt.Errorf("count chunks to embed: %w", err)
	}
	return n, nil
}

// PutVectors stores one batch of vectors of model in one transaction,
// under a new vectors_version; a chunk deleted meanwhile gets none.
func (s *Store) PutVectors(ctx context.Context, model string, ids []int64, vecs [][]float32) error {
	if len(vecs) != len(ids) {
		return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(ids))
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := s.fence(ctx, tx); err != nil {
		return err
	}
	var ver int64
	if err := tx.QueryRow(ctx, `INSERT INTO meta(key, value) VALUES('vectors_version', '1')
		ON CONFLICT(key) DO UPDATE SET value = (meta.value::bigint + 1)::text RETURNING value::bigint`).Scan(&ver); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	// One statement over arrays (a chunk id twice keeps its last vector).
	vs := make([]pgvector.Vector, len(vecs))
	for i, v := range vecs {
		vs[i] = pgvector.NewVector(v)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO vectors(chunk_id, model, ver, vec)
		SELECT DISTINCT ON (u.id) u.id, $2, $3, u.v FROM unnest($1::bigint[], $4::vector[]) WITH ORDINALITY AS u(id, v, n)
		WHERE EXISTS (SELECT 1 FROM chunks WHERE id = u.id) ORDER BY u.id, u.n DESC
		ON CONFLICT(chunk_id) DO UPDATE SET model = excluded.model, ver = excluded.ver, vec = excluded.vec`, ids, model, ver, vs); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	if len(vecs) > 0 && !s.bulk.putOff(model, len(vecs[0])) {
		if err := ensureVectorIndex(ctx, tx, model, len(vecs[0])); err != nil {
			return fmt.Errorf("index vectors: %w", err)
		}
	}
	if err := s.fence(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	return nil
}

// VectorCount counts the vectors of model and gives their dimension.
//
// The dimension is read from one vector (a model's vectors share it):
// max over every row would detoast the whole table, and the engine asks
// after every write while an embed runs.
func (s *Store) VectorCount(ctx context.Context, model string) (count, dims int, err error) {
	if err := s.one(ctx, "SELECT count(*), coalesce((SELECT vector_dims(vec) FROM vectors WHERE model = $1 LIMIT 1), 0) FROM vectors WHERE model = $1", []any{model}, &count, &dims); err != nil {
		return 0, 0, fmt.Errorf("load vectors: %w", err)
	}
	return count, dims, nil
}

// EachVector calls fn with every vector of model stored after version
// afterVer (-1: all).
func (s *Store) EachVector(ctx context.Context, model string, afterVer int64, fn func(chunk int64, vec []float32)) error {
	err := s.each(ctx, "SELECT chunk_id, vec FROM vectors WHERE model = $1 AND ver > $2", []any{model, afterVer}, func(r pgx.Rows) error {
		var id int64
		var v pgvector.Vector
		if err := r.Scan(&id, &v); err != nil {
			return err
		}
		fn(id, v.Slice())
		return nil
	})
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	return nil
}

// VectorChunks returns the ids of the chunks that have a vector of model.
func (s *Store) VectorChunks(ctx context.Context, model string) (map[int64]bool, error) {
	live, err := s.ids(ctx, "SELECT chunk_id FROM vectors WHERE model = $1", model)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	return live, nil
}

// DocVectors returns the vectors of a document's chunks, in chunk order.
func (s *Store) DocVectors(ctx context.Context, doc int64) ([]store.DocVector, error) {
	var out []store.DocVector
	err := s.each(ctx, "SELECT model, vec FROM vectors WHERE chunk_id >= $1 AND chunk_id < $2 ORDER BY chunk_id",
		[]any{store.ChunkID(doc, 0), store.ChunkID(doc+1, 0)}, func(r pgx.Rows) error {
			var d store.DocVector
			var v pgvector.Vector
			if err := r.Scan(&d.Model, &v); err != nil {
				return err
			}
			d.Vec = v.Slice()
			out = append(out, d)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	return out, nil
}

// VectorModel names the model of the stored vectors ("" without any).
func (s *Store) VectorModel(ctx context.Context) (string, error) {
	var m string
	err := s.one(ctx, "SELECT model FROM vectors LIMIT 1", nil, &m)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read vectors: %w", err)
	}
	return m, nil
}

// EmbedQueue lists the chunks that have no vector, without their text,
// with what orders the queue (as the SQLite store's). Postgres answers the
// anti-join from the vectors' primary key; each chunk's share of its
// document's size is computed in the same statement.
func (s *Store) EmbedQueue(ctx context.Context, collection string, except ...string) ([]store.Queued, error) {
	if except == nil {
		except = []string{}
	}
	var out []store.Queued
	err := s.each(ctx, `SELECT c.id, d.collection, d.mtime_ns,
			greatest(1, d.size / count(*) OVER (PARTITION BY d.id))
		FROM chunks c JOIN documents d ON d.id = c.doc_id`+unembedded+" ORDER BY c.id",
		[]any{collection, except}, func(r pgx.Rows) error {
			var q store.Queued
			var bytes int64
			err := r.Scan(&q.ID, &q.Collection, &q.MtimeNS, &bytes)
			q.Bytes = int(bytes)
			out = append(out, q)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("find chunks to embed: %w", err)
	}
	return out, nil
}

// ChunkTexts reads the text of the chunks ids names, by id; a chunk
// deleted meanwhile is absent from the answer.
func (s *Store) ChunkTexts(ctx context.Context, ids []int64) (map[int64]store.ChunkText, error) {
	out := make(map[int64]store.ChunkText, len(ids))
	if ids == nil {
		ids = []int64{}
	}
	err := s.each(ctx, "SELECT id, title, headings, body FROM chunks WHERE id = ANY($1)", []any{ids}, func(r pgx.Rows) error {
		var c store.ChunkText
		if err := r.Scan(&c.ID, &c.Title, &c.Headings, &c.Body); err != nil {
			return err
		}
		out[c.ID] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read chunks to embed: %w", err)
	}
	return out, nil
}

// ChunkCount counts the chunks of the index (every collection).
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := s.one(ctx, "SELECT count(*) FROM chunks", nil, &n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// VectorsOf reads the vectors of model of chunks, in their order (nil for
// a chunk without one): the exact vectors a search over quantised codes
// re-scores its best candidates with.
func (s *Store) VectorsOf(ctx context.Context, model string, chunks []int64) ([][]float32, error) {
	out := make([][]float32, len(chunks))
	if len(chunks) == 0 {
		return out, nil
	}
	at := make(map[int64]int, len(chunks))
	for i, id := range chunks {
		at[id] = i
	}
	err := s.each(ctx, "SELECT chunk_id, vec FROM vectors WHERE model = $1 AND chunk_id = ANY($2)", []any{model, chunks}, func(r pgx.Rows) error {
		var id int64
		var v pgvector.Vector
		if err := r.Scan(&id, &v); err != nil {
			return err
		}
		if i, ok := at[id]; ok {
			out[i] = v.Slice()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	return out, nil
}
