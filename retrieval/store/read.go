package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Filter restricts candidates before any top-k is taken.
type Filter struct {
	Collections []string
	Lang        string
	TagsAny     []string
	TagsAll     []string
}

// Empty reports whether the filter lets everything through.
func (f Filter) Empty() bool {
	return len(f.Collections) == 0 && f.Lang == "" && len(f.TagsAny) == 0 && len(f.TagsAll) == 0
}

// where renders the filter as SQL over documents aliased d.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if len(f.Collections) > 0 {
		conds = append(conds, "d.collection IN ("+placeholders(len(f.Collections))+")")
		for _, c := range f.Collections {
			args = append(args, c)
		}
	}
	if f.Lang != "" {
		conds = append(conds, "(d.lang = ? OR d.lang LIKE ? || '-%')")
		l := strings.ToLower(f.Lang)
		args = append(args, l, l)
	}
	if len(f.TagsAny) > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id AND t.tag IN ("+placeholders(len(f.TagsAny))+"))")
		for _, t := range f.TagsAny {
			args = append(args, strings.ToLower(t))
		}
	}
	for _, t := range f.TagsAll {
		conds = append(conds, "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id AND t.tag = ?)")
		args = append(args, strings.ToLower(t))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// inChunks calls fn with each run of up to chunk ids as the placeholders
// of an IN list and their arguments, stopping at its first error. The
// ids are sorted and each taken once (in a copy): an IN list is a set,
// but an id in two runs would be read twice.
func inChunks(ids []int64, chunk int, fn func(in string, args []any) error) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	for lo := 0; lo < len(ids); lo += chunk {
		part := ids[lo:min(lo+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if err := fn(placeholders(len(part)), args); err != nil {
			return err
		}
	}
	return nil
}

// idSet runs a query of one integer column and returns its values as a
// set (document or chunk ids); errors come back unwrapped, for the caller
// to name.
func (s *Store) idSet(ctx context.Context, query string, args ...any) (map[int64]bool, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// texts reads a column of strings.
func (s *Store) texts(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ChunkRow is a stored chunk.
type ChunkRow struct {
	ID        int64
	DocID     int64
	Seq       int
	Headings  string
	Body      string
	StartLine int
	EndLine   int
}

// Chunks reads chunks by id.
func (s *Store) Chunks(ctx context.Context, ids []int64) (map[int64]*ChunkRow, error) {
	out := make(map[int64]*ChunkRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return readIn(ctx, s, func(ctx context.Context) (map[int64]*ChunkRow, error) {
		rows, err := s.db.QueryContext(ctx, "SELECT id, doc_id, seq, headings, body, start_line, end_line, start_byte, end_byte FROM chunks WHERE id IN ("+placeholders(len(ids))+") ORDER BY id", args...) // by document, for chunkBodies
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		defer rows.Close()
		var refs []sliceRef
		for rows.Next() {
			c := &ChunkRow{}
			var start, end int
			if err := rows.Scan(&c.ID, &c.DocID, &c.Seq, &c.Headings, &c.Body, &c.StartLine, &c.EndLine, &start, &end); err != nil {
				return nil, fmt.Errorf("read chunks: %w", err)
			}
			if r, ok := refFor(c.DocID, c.Body, start, end, &c.Body); ok {
				refs = append(refs, r)
			}
			out[c.ID] = c
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		rows.Close()
		return out, s.chunkBodies(ctx, refs)
	})
}

// DocMeta is a document's metadata, without its content.
type DocMeta struct {
	ID         int64
	Collection string
	RelPath    string
	Hash       string
	Title      string
	Lang       string
	Mime       string
	Size       int64
	MtimeNS    int64
	LineCount  int
	ChangedGen int64
	Tags       []string
}

const metaCols = "id, collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, changed_gen"

func scanMeta(sc interface{ Scan(...any) error }) (*DocMeta, error) {
	m := &DocMeta{}
	err := sc.Scan(&m.ID, &m.Collection, &m.RelPath, &m.Hash, &m.Title, &m.Lang, &m.Mime, &m.Size, &m.MtimeNS, &m.LineCount, &m.ChangedGen)
	return m, err
}

// Docs reads the metadata of documents by id, with their tags, in one
// snapshot.
func (s *Store) Docs(ctx context.Context, ids []int64) (map[int64]*DocMeta, error) {
	return readIn(ctx, s, func(ctx context.Context) (map[int64]*DocMeta, error) { return s.docs(ctx, ids) })
}

func (s *Store) docs(ctx context.Context, ids []int64) (map[int64]*DocMeta, error) {
	out := map[int64]*DocMeta{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+metaCols+" FROM documents d WHERE id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		m, err := scanMeta(rows)
		if err != nil {
			return nil, err
		}
		out[m.ID] = m
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.fillTags(ctx, out)
}

func (s *Store) fillTags(ctx context.Context, docs map[int64]*DocMeta) error {
	if len(docs) == 0 {
		return nil
	}
	args := make([]any, 0, len(docs))
	for id := range docs {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT doc_id, tag FROM tags WHERE doc_id IN ("+placeholders(len(args))+") ORDER BY tag", args...)
	if err != nil {
		return fmt.Errorf("read tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return err
		}
		docs[id].Tags = append(docs[id].Tags, tag)
	}
	return rows.Err()
}

// ErrNotFound is returned when no document matches.
var ErrNotFound = errors.New("document not found")

// DocByPath finds a document by collection and relative path.
func (s *Store) DocByPath(ctx context.Context, collection, rel string) (*DocMeta, error) {
	return readIn(ctx, s, func(ctx context.Context) (*DocMeta, error) { return s.docByPath(ctx, collection, rel) })
}

func (s *Store) docByPath(ctx context.Context, collection, rel string) (*DocMeta, error) {
	m, err := scanMeta(s.db.QueryRowContext(ctx, "SELECT "+metaCols+" FROM documents WHERE collection = ? AND rel_path = ?", collection, rel))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("find %s/%s: %w", collection, rel, err)
	}
	return m, s.fillTags(ctx, map[int64]*DocMeta{m.ID: m})
}

// DocByHashPrefix finds a document whose content hash starts with prefix.
func (s *Store) DocByHashPrefix(ctx context.Context, prefix string) (*DocMeta, error) {
	return readIn(ctx, s, func(ctx context.Context) (*DocMeta, error) { return s.docByHashPrefix(ctx, prefix) })
}

func (s *Store) docByHashPrefix(ctx context.Context, prefix string) (*DocMeta, error) {
	m, err := scanMeta(s.db.QueryRowContext(ctx, "SELECT "+metaCols+" FROM documents WHERE hash >= ? AND hash < ? ORDER BY collection, rel_path LIMIT 1", prefix, prefix+"g"))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("find #%s: %w", prefix, err)
	}
	return m, s.fillTags(ctx, map[int64]*DocMeta{m.ID: m})
}

// Content reads a document's normalised text; ErrNotFound when it is
// gone.
func (s *Store) Content(ctx context.Context, id int64) (string, error) {
	var c string
	err := s.db.QueryRowContext(ctx, "SELECT content FROM contents WHERE doc_id = ?", id).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read document %d: %w", id, err)
	}
	return c, nil
}

// List returns documents of the given collections (all if nil) whose path
// starts with prefix, ordered by collection and path.
func (s *Store) List(ctx context.Context, collections []string, prefix string, limit, offset int) ([]*DocMeta, error) {
	q := "SELECT " + metaCols + " FROM documents WHERE 1=1"
	var args []any
	if collections != nil {
		q += " AND collection IN (" + placeholders(max(len(collections), 1)) + ")"
		for _, c := range collections {
			args = append(args, c)
		}
		if len(collections) == 0 {
			args = append(args, "")
		}
	}
	if prefix != "" {
		q += " AND substr(rel_path, 1, ?) = ?"
		args = append(args, len(prefix), prefix)
	}
	q += " ORDER BY collection, rel_path"
	if limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return s.listMetas(ctx, q, args...)
}

// ListAfter returns up to limit documents of collection whose id is above
// afterID, in id order: pages by key, so a copy of millions of documents
// reads each row once (pages by offset read all the rows before theirs).
func (s *Store) ListAfter(ctx context.Context, collection string, afterID int64, limit int) ([]*DocMeta, error) {
	return s.listMetas(ctx, "SELECT "+metaCols+" FROM documents WHERE collection = ? AND id > ? ORDER BY id LIMIT ?", collection, afterID, limit)
}

// listMetas runs a query of metaCols and scans its documents.
func (s *Store) listMetas(ctx context.Context, q string, args ...any) ([]*DocMeta, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var out []*DocMeta
	for rows.Next() {
		m, err := scanMeta(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CollectionStats counts a collection's documents, chunks and embedded
// chunks (for model).
type CollectionStats struct {
	Name     string
	Docs     int
	Chunks   int
	Embedded int
}

// Stats counts documents, chunks and vectors of model per collection.
func (s *Store) Stats(ctx context.Context, model string) (map[string]*CollectionStats, error) {
	out := map[string]*CollectionStats{}
	rows, err := s.db.QueryContext(ctx, `SELECT d.collection, count(DISTINCT d.id), count(c.id), count(v.chunk_id)
		FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id LEFT JOIN vectors v ON v.chunk_id = c.id AND v.model = ?
		GROUP BY d.collection`, model)
	if err != nil {
		return nil, fmt.Errorf("index stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		st := &CollectionStats{}
		if err := rows.Scan(&st.Name, &st.Docs, &st.Chunks, &st.Embedded); err != nil {
			return nil, err
		}
		out[st.Name] = st
	}
	return out, rows.Err()
}

// FilterDocs returns the ids of documents passing f.
func (s *Store) FilterDocs(ctx context.Context, f Filter) (map[int64]bool, error) {
	where, args := f.where()
	out, err := s.idSet(ctx, "SELECT d.id FROM documents d WHERE 1=1"+where, args...)
	if err != nil {
		return nil, fmt.Errorf("filter documents: %w", err)
	}
	return out, nil
}

// CollectionNames lists the collections that have indexed documents.
func (s *Store) CollectionNames(ctx context.Context) ([]string, error) {
	// A loose index scan: one index seek per collection instead of reading
	// every document's entry.
	out, err := s.texts(ctx, `WITH RECURSIVE c(n) AS (
		SELECT min(collection) FROM documents
		UNION ALL SELECT (SELECT min(collection) FROM documents WHERE collection > c.n) FROM c WHERE c.n IS NOT NULL)
	SELECT n FROM c WHERE n IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	return out, nil
}

// LangCounts counts documents per language ("" for undetermined).
func (s *Store) LangCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT lang, count(*) FROM documents GROUP BY lang")
	if err != nil {
		return nil, fmt.Errorf("count languages: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var l string
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			return nil, err
		}
		out[l] = n
	}
	return out, rows.Err()
}
