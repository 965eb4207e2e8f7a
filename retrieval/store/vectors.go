package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// The vectors table holds one embedding per chunk for one model at a time;
// ver is the meta vectors_version at insertion, so a persisted vector
// graph knows which rows arrived after it was saved.

// ChunkText is a chunk waiting for a vector: what the embedder reads.
type ChunkText struct {
	ID       int64
	Title    string
	Headings string
	Body     string
}

// DropVectors deletes every stored vector except those of keepModel (all
// of them when keepModel is ""): vectors of another model are stale. It
// moves vectors_version in the same transaction: a cache keyed by the
// write state (a server's vector count, a loaded graph) sees the drop
// even when no PutVectors follows (an embed killed before its first
// batch). No row carries the new version, so a graph loading the rows
// since its own version adds nothing, and finds the drop by its count.
func (s *Store) DropVectors(ctx context.Context, keepModel string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("clear stale vectors: %w", err)
	}
	defer tx.Rollback()
	if keepModel == "" {
		_, err = tx.ExecContext(ctx, "DELETE FROM vectors")
	} else {
		_, err = tx.ExecContext(ctx, "DELETE FROM vectors WHERE model != ?", keepModel)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, bumpVectorsVersion)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("clear stale vectors: %w", err)
	}
	return nil
}

// bumpVectorsVersion moves meta's vectors_version on by one.
const bumpVectorsVersion = `INSERT INTO meta(key, value) VALUES('vectors_version', '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`

// Unembedded lists the chunks that have no vector, optionally within one
// collection, leaving out the collections in except.
func (s *Store) Unembedded(ctx context.Context, collection string, except ...string) ([]ChunkText, error) {
	where, args := unembeddedWhere(collection, except)
	return readIn(ctx, s, func(ctx context.Context) ([]ChunkText, error) {
		rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.title, c.headings, c.body, c.start_byte, c.end_byte FROM chunks c JOIN documents d ON d.id = c.doc_id`+where+` ORDER BY c.id`, args...)
		if err != nil {
			return nil, fmt.Errorf("find chunks to embed: %w", err)
		}
		defer rows.Close()
		var out []ChunkText
		type ref struct {
			i          int
			start, end int
		}
		var sliced []ref
		for rows.Next() {
			var c ChunkText
			var start, end int
			if err := rows.Scan(&c.ID, &c.Title, &c.Headings, &c.Body, &start, &end); err != nil {
				return nil, fmt.Errorf("find chunks to embed: %w", err)
			}
			if c.Body == "" && end > start {
				sliced = append(sliced, ref{len(out), start, end})
			}
			out = append(out, c)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("find chunks to embed: %w", err)
		}
		rows.Close()
		// The texts are filled once out stops growing: the references
		// point into it.
		refs := make([]sliceRef, len(sliced))
		for i, r := range sliced {
			refs[i] = sliceRef{doc: DocOfChunk(out[r.i].ID), start: r.start, end: r.end, dst: &out[r.i].Body}
		}
		return out, s.chunkBodies(ctx, refs)
	})
}

// UnembeddedCount counts the chunks Unembedded would list.
func (s *Store) UnembeddedCount(ctx context.Context, collection string, except ...string) (int, error) {
	where, args := unembeddedWhere(collection, except)
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id`+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks to embed: %w", err)
	}
	return n, nil
}

func unembeddedWhere(collection string, except []string) (string, []any) {
	q, args := collectionsAnd(collection, except)
	return ` WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)` + q, args
}

// collectionsAnd is the conditions, each after " AND", that keep the
// documents d of collection (all when empty) and not of except.
func collectionsAnd(collection string, except []string) (string, []any) {
	var q string
	var args []any
	if collection != "" {
		q += " AND d.collection = ?"
		args = append(args, collection)
	}
	if len(except) > 0 {
		q += " AND d.collection NOT IN (?" + strings.Repeat(", ?", len(except)-1) + ")"
		for _, c := range except {
			args = append(args, c)
		}
	}
	return q, args
}

// PutVectors stores one batch of vectors of model in one transaction,
// under a new vectors_version; a chunk deleted meanwhile gets none.
func (s *Store) PutVectors(ctx context.Context, model string, ids []int64, vecs [][]float32) error {
	if len(vecs) != len(ids) {
		return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(ids))
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback()
	var ver int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO meta(key, value) VALUES('vectors_version', '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING CAST(value AS INTEGER)`).Scan(&ver); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	for i, id := range ids {
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO vectors(chunk_id, model, ver, vec) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
			id, model, ver, encodeVec(vecs[i]), id); err != nil {
			return fmt.Errorf("store vectors: %w", err)
		}
	}
	return tx.Commit()
}

// VectorCount counts the vectors of model and gives their dimension (0
// without any). The count reads only the model index; the width is read
// from the model's first and last vector, and only when those differ (a
// damaged row) from the widest of all, which reads the whole table: 60 ms
// and more at 5,000 chunks, most of what a query with vectors spent before
// its first search.
func (s *Store) VectorCount(ctx context.Context, model string) (count, dims int, err error) {
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM vectors WHERE model = ?", model).Scan(&count); err != nil {
		return 0, 0, fmt.Errorf("load vectors: %w", err)
	}
	if count == 0 {
		return 0, 0, nil
	}
	var first, last int
	if err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT length(vec) FROM vectors WHERE model = ?1 ORDER BY chunk_id LIMIT 1),
		(SELECT length(vec) FROM vectors WHERE model = ?1 ORDER BY chunk_id DESC LIMIT 1)`, model).Scan(&first, &last); err != nil {
		return 0, 0, fmt.Errorf("load vectors: %w", err)
	}
	if first == last {
		return count, first / 4, nil
	}
	if err := s.db.QueryRowContext(ctx, "SELECT coalesce(max(length(vec)), 0) / 4 FROM vectors WHERE model = ?", model).Scan(&dims); err != nil {
		return 0, 0, fmt.Errorf("load vectors: %w", err)
	}
	return count, dims, nil
}

// EachVector calls fn with every vector of model stored after version
// afterVer (-1: all), in no particular order.
func (s *Store) EachVector(ctx context.Context, model string, afterVer int64, fn func(chunk int64, vec []float32)) error {
	rows, err := s.db.QueryContext(ctx, "SELECT chunk_id, vec FROM vectors WHERE model = ? AND ver > ?", model, afterVer)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		fn(id, decodeVec(b))
	}
	return rows.Err()
}

// VectorChunks returns the ids of the chunks that have a vector of model.
func (s *Store) VectorChunks(ctx context.Context, model string) (map[int64]bool, error) {
	live, err := s.idSet(ctx, "SELECT chunk_id FROM vectors WHERE model = ?", model)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	return live, nil
}

// DocVector is one chunk vector of a document.
type DocVector struct {
	Model string
	Vec   []float32
}

// DocVectors returns the vectors of a document's chunks, in chunk order.
func (s *Store) DocVectors(ctx context.Context, doc int64) ([]DocVector, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT model, vec FROM vectors WHERE chunk_id >= ? AND chunk_id < ?", ChunkID(doc, 0), ChunkID(doc+1, 0))
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var out []DocVector
	for rows.Next() {
		var v DocVector
		var b []byte
		if err := rows.Scan(&v.Model, &b); err != nil {
			return nil, err
		}
		v.Vec = decodeVec(b)
		out = append(out, v)
	}
	return out, rows.Err()
}

// VectorModel names the model of the stored vectors ("" without any).
func (s *Store) VectorModel(ctx context.Context) (string, error) {
	var made string
	err := s.db.QueryRowContext(ctx, "SELECT model FROM vectors LIMIT 1").Scan(&made)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return made, err
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// VectorsOf returns the vectors of model stored for chunks, in their
// order (nil for a chunk without one): the exact vectors a search over
// the vector graph's int8 codes re-scores its best candidates with. One
// query of primary-key lookups: about 0.5 ms for 60 chunks.
func (s *Store) VectorsOf(ctx context.Context, model string, chunks []int64) ([][]float32, error) {
	out := make([][]float32, len(chunks))
	if len(chunks) == 0 {
		return out, nil
	}
	at := make(map[int64]int, len(chunks))
	args := make([]any, 0, len(chunks)+1)
	args = append(args, model)
	for i, id := range chunks {
		at[id] = i
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT chunk_id, vec FROM vectors WHERE model = ? AND chunk_id IN (?"+strings.Repeat(", ?", len(chunks)-1)+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
		if i, ok := at[id]; ok {
			out[i] = decodeVec(b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	return out, nil
}
