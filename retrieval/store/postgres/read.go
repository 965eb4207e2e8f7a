package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// where renders a store.Filter as SQL over documents aliased d, its
// arguments numbered from next.
func where(f store.Filter, next int) (string, []any) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(next+len(args)-1)
	}
	if len(f.Collections) > 0 {
		conds = append(conds, "d.collection = ANY("+arg(f.Collections)+")")
	}
	if f.Lang != "" {
		l := strings.ToLower(f.Lang)
		conds = append(conds, "(d.lang = "+arg(l)+" OR starts_with(d.lang, "+arg(l+"-")+"))")
	}
	if len(f.TagsAny) > 0 {
		tags := make([]string, len(f.TagsAny))
		for i, t := range f.TagsAny {
			tags[i] = strings.ToLower(t)
		}
		conds = append(conds, "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id AND t.tag = ANY("+arg(tags)+"))")
	}
	for _, t := range f.TagsAll {
		conds = append(conds, "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id AND t.tag = "+arg(strings.ToLower(t))+")")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// Chunks reads chunks by id.
func (s *Store) Chunks(ctx context.Context, ids []int64) (map[int64]*store.ChunkRow, error) {
	out := make(map[int64]*store.ChunkRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := s.each(ctx, "SELECT id, doc_id, seq, headings, body, start_line, end_line FROM chunks WHERE id = ANY($1)", []any{ids}, func(r pgx.Rows) error {
		c := &store.ChunkRow{}
		if err := r.Scan(&c.ID, &c.DocID, &c.Seq, &c.Headings, &c.Body, &c.StartLine, &c.EndLine); err != nil {
			return err
		}
		out[c.ID] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	return out, nil
}

const metaCols = "id, collection, rel_path, hash, title, lang, mime, size, mtime_ns, line_count, changed_gen"

// metaTags reads a document's tags beside its metadata, in the same
// statement (one round trip to the server, not two).
const metaTags = `, coalesce((SELECT array_agg(t.tag ORDER BY t.tag COLLATE "C") FROM tags t WHERE t.doc_id = documents.id), '{}')`

// metas reads documents' metadata (q selects metaCols, then metaTags
// when tags is set).
func (s *Store) metas(ctx context.Context, tags bool, q string, args ...any) ([]*store.DocMeta, error) {
	var out []*store.DocMeta
	err := s.each(ctx, q, args, func(r pgx.Rows) error {
		m := &store.DocMeta{}
		dest := []any{&m.ID, &m.Collection, &m.RelPath, &m.Hash, &m.Title, &m.Lang, &m.Mime, &m.Size, &m.MtimeNS, &m.LineCount, &m.ChangedGen}
		if tags {
			dest = append(dest, &m.Tags)
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if len(m.Tags) == 0 {
			m.Tags = nil
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// Docs reads the metadata of documents by id, with their tags.
func (s *Store) Docs(ctx context.Context, ids []int64) (map[int64]*store.DocMeta, error) {
	out := map[int64]*store.DocMeta{}
	if len(ids) == 0 {
		return out, nil
	}
	ms, err := s.metas(ctx, true, "SELECT "+metaCols+metaTags+" FROM documents WHERE id = ANY($1)", ids)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// metaOne is metas of one document, with its tags; store.ErrNotFound
// without one.
func (s *Store) metaOne(ctx context.Context, what, q string, args ...any) (*store.DocMeta, error) {
	ms, err := s.metas(ctx, true, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", what, err)
	}
	if len(ms) == 0 {
		return nil, store.ErrNotFound
	}
	return ms[0], nil
}

// DocByPath finds a document by collection and relative path.
func (s *Store) DocByPath(ctx context.Context, collection, rel string) (*store.DocMeta, error) {
	if !storable(collection, rel) {
		// No document can have a name PostgreSQL cannot store.
		return nil, store.ErrNotFound
	}
	return s.metaOne(ctx, collection+"/"+rel, "SELECT "+metaCols+metaTags+" FROM documents WHERE collection = $1 AND rel_path = $2", collection, rel)
}

// DocByHashPrefix finds a document whose content hash starts with prefix.
func (s *Store) DocByHashPrefix(ctx context.Context, prefix string) (*store.DocMeta, error) {
	if !storable(prefix) {
		return nil, store.ErrNotFound
	}
	return s.metaOne(ctx, "#"+prefix, "SELECT "+metaCols+metaTags+" FROM documents WHERE hash >= $1 AND hash < $2 ORDER BY collection, rel_path LIMIT 1", prefix, prefix+"g")
}

// Content reads a document's normalised text; store.ErrNotFound when it
// is gone.
func (s *Store) Content(ctx context.Context, id int64) (string, error) {
	var c string
	err := s.one(ctx, "SELECT content FROM contents WHERE doc_id = $1", []any{id}, &c)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read document %d: %w", id, err)
	}
	return c, nil
}

// List returns documents of the given collections (all if nil) whose path
// starts with prefix, ordered by collection and path.
func (s *Store) List(ctx context.Context, collections []string, prefix string, limit, offset int) ([]*store.DocMeta, error) {
	if !storable(append([]string{prefix}, collections...)...) {
		return nil, nil
	}
	q := "SELECT " + metaCols + " FROM documents WHERE true"
	var args []any
	if collections != nil {
		args = append(args, collections)
		q += " AND collection = ANY($1)"
	}
	if prefix != "" {
		args = append(args, prefix)
		q += " AND starts_with(rel_path, $" + strconv.Itoa(len(args)) + ")"
	}
	// C collation: the order of SQLite's BINARY, whatever the database's.
	q += ` ORDER BY collection COLLATE "C", rel_path COLLATE "C"`
	if limit > 0 {
		args = append(args, limit, offset)
		q += " LIMIT $" + strconv.Itoa(len(args)-1) + " OFFSET $" + strconv.Itoa(len(args))
	}
	// SQLite's List leaves tags out; so does this one.
	out, err := s.metas(ctx, false, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// ListAfter returns up to limit documents of collection whose id is above
// afterID, in id order (keyset pages: each row read once).
func (s *Store) ListAfter(ctx context.Context, collection string, afterID int64, limit int) ([]*store.DocMeta, error) {
	out, err := s.metas(ctx, false, "SELECT "+metaCols+" FROM documents WHERE collection = $1 AND id > $2 ORDER BY id LIMIT $3", collection, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// Stats counts documents, chunks and vectors of model per collection.
func (s *Store) Stats(ctx context.Context, model string) (map[string]*store.CollectionStats, error) {
	out := map[string]*store.CollectionStats{}
	err := s.each(ctx, `SELECT d.collection, count(DISTINCT d.id), count(c.id), count(v.chunk_id)
		FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id LEFT JOIN vectors v ON v.chunk_id = c.id AND v.model = $1
		GROUP BY d.collection`, []any{model}, func(r pgx.Rows) error {
		st := &store.CollectionStats{}
		if err := r.Scan(&st.Name, &st.Docs, &st.Chunks, &st.Embedded); err != nil {
			return err
		}
		out[st.Name] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index stats: %w", err)
	}
	return out, nil
}

// FilterDocs returns the ids of documents passing f.
func (s *Store) FilterDocs(ctx context.Context, f store.Filter) (map[int64]bool, error) {
	w, args := where(f, 1)
	out, err := s.ids(ctx, "SELECT d.id FROM documents d WHERE true"+w, args...)
	if err != nil {
		return nil, fmt.Errorf("filter documents: %w", err)
	}
	return out, nil
}

// strs reads a column of strings.
func (s *Store) strs(ctx context.Context, q string, args ...any) ([]string, error) {
	var out []string
	err := s.each(ctx, q, args, func(r pgx.Rows) error {
		var v string
		err := r.Scan(&v)
		out = append(out, v)
		return err
	})
	return out, err
}

// CollectionNames lists the collections that have indexed documents.
func (s *Store) CollectionNames(ctx context.Context) ([]string, error) {
	// A loose index scan over documents' unique (collection, rel_path),
	// in the index's own collation (a COLLATE "C" there made every step
	// a scan of all the documents: 27 ms a search at 100k documents,
	// bench/RESULTS.md), then sorted here in byte order, as SQLite's.
	out, err := s.strs(ctx, `WITH RECURSIVE c(n) AS (
		SELECT min(collection) FROM documents
		UNION ALL SELECT (SELECT min(collection) FROM documents WHERE collection > c.n) FROM c WHERE c.n IS NOT NULL)
	SELECT n FROM c WHERE n IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// LangCounts counts documents per language ("" for undetermined).
func (s *Store) LangCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := s.each(ctx, "SELECT lang, count(*) FROM documents GROUP BY lang", nil, func(r pgx.Rows) error {
		var l string
		var n int
		err := r.Scan(&l, &n)
		out[l] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count languages: %w", err)
	}
	return out, nil
}

// ChangedSince lists documents changed after generation since, by path.
func (s *Store) ChangedSince(ctx context.Context, collection string, since int64) ([]store.ChangedDoc, error) {
	var out []store.ChangedDoc
	err := s.each(ctx, `SELECT collection, rel_path, hash, added_gen, changed_gen FROM documents
		WHERE changed_gen > $1 AND ($2 = '' OR collection = $2) ORDER BY collection COLLATE "C", rel_path COLLATE "C"`, []any{since, collection}, func(r pgx.Rows) error {
		var c store.ChangedDoc
		err := r.Scan(&c.Collection, &c.RelPath, &c.Hash, &c.AddedGen, &c.ChangedGen)
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	return out, nil
}

// RemovedSince lists documents removed after generation since, oldest
// first.
func (s *Store) RemovedSince(ctx context.Context, collection string, since int64) ([]store.RemovedDoc, error) {
	var out []store.RemovedDoc
	err := s.each(ctx, `SELECT collection, rel_path, hash, gen FROM removed
		WHERE gen > $1 AND ($2 = '' OR collection = $2) ORDER BY gen, collection COLLATE "C", rel_path COLLATE "C"`, []any{since, collection}, func(r pgx.Rows) error {
		var c store.RemovedDoc
		err := r.Scan(&c.Collection, &c.RelPath, &c.Hash, &c.Gen)
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	return out, nil
}

// SkipStates returns the recorded conversion failures of a collection.
func (s *Store) SkipStates(ctx context.Context, collection string) (map[string]store.SkipState, error) {
	out := map[string]store.SkipState{}
	err := s.each(ctx, "SELECT rel_path, hash, size, mtime_ns, reason, detail FROM skipped WHERE collection = $1", []any{collection}, func(r pgx.Rows) error {
		var st store.SkipState
		var rel string
		err := r.Scan(&rel, &st.Hash, &st.Size, &st.MtimeNS, &st.Reason, &st.Detail)
		out[rel] = st
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read skipped files of %s: %w", collection, err)
	}
	return out, nil
}

// SkipCounts counts the recorded conversion failures by reason.
func (s *Store) SkipCounts(ctx context.Context, collection string) (map[string]int, error) {
	out := map[string]int{}
	err := s.each(ctx, "SELECT reason, count(*) FROM skipped WHERE collection = $1 GROUP BY reason", []any{collection}, func(r pgx.Rows) error {
		var reason string
		var n int
		err := r.Scan(&reason, &n)
		out[reason] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count skipped files of %s: %w", collection, err)
	}
	return out, nil
}

// TagCounts lists tags with document counts, most used first.
func (s *Store) TagCounts(ctx context.Context, collection, prefix string) ([]store.TagCount, error) {
	if !storable(collection, prefix) {
		return nil, nil
	}
	var out []store.TagCount
	err := s.each(ctx, `SELECT t.tag, count(*) FROM tags t JOIN documents d ON d.id = t.doc_id
		WHERE ($1 = '' OR d.collection = $1) AND starts_with(t.tag, $2)
		GROUP BY t.tag ORDER BY count(*) DESC, t.tag COLLATE "C"`, []any{collection, prefix}, func(r pgx.Rows) error {
		var t store.TagCount
		err := r.Scan(&t.Tag, &t.Count)
		out = append(out, t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	return out, nil
}

// AddUserTag puts a user tag on a document (a no-op when it has it).
func (s *Store) AddUserTag(ctx context.Context, doc int64, tag string) error {
	err := s.fenced(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO tags(doc_id, tag, "user") VALUES($1, $2, true) ON CONFLICT DO NOTHING`, doc, tag)
		return err
	})
	if err != nil {
		return fmt.Errorf("tag document %d: %w", doc, err)
	}
	return nil
}

// RemoveTag removes a tag from a document, reporting whether it had it.
func (s *Store) RemoveTag(ctx context.Context, doc int64, tag string) (bool, error) {
	var n int64
	err := s.fenced(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM tags WHERE doc_id = $1 AND tag = $2", doc, tag)
		n = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("untag document %d: %w", doc, err)
	}
	return n > 0, nil
}

// RestoreUserTags puts user tags back on the documents at their paths.
func (s *Store) RestoreUserTags(ctx context.Context, tags []store.UserTag) error {
	if len(tags) == 0 {
		return nil
	}
	// One transaction: all of them or none.
	return s.fenced(ctx, func(tx pgx.Tx) error {
		for _, t := range tags {
			if _, err := tx.Exec(ctx, `INSERT INTO tags(doc_id, tag, "user") SELECT id, $1, true FROM documents
			WHERE collection = $2 AND rel_path = $3 ON CONFLICT (doc_id, tag) DO UPDATE SET "user" = true`, t.Tag, t.Collection, t.RelPath); err != nil {
				return fmt.Errorf("rebuild: restore tag %s on %s/%s: %w", t.Tag, t.Collection, t.RelPath, err)
			}
		}
		return nil
	})
}

// DocTags returns every document's tags, sorted, by document id.
func (s *Store) DocTags(ctx context.Context) (map[int64][]string, error) {
	return s.readTags(ctx, "", nil)
}

// DocTagsOf is DocTags of the documents ids only.
func (s *Store) DocTagsOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	if len(ids) == 0 {
		return map[int64][]string{}, nil
	}
	return s.readTags(ctx, "WHERE doc_id = ANY($1)", []any{ids})
}

// readTags reads the (document, tag) rows where selects.
func (s *Store) readTags(ctx context.Context, where string, args []any) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := s.each(ctx, `SELECT doc_id, tag FROM tags `+where+` ORDER BY doc_id, tag COLLATE "C"`, args, func(r pgx.Rows) error {
		var id int64
		var tag string
		err := r.Scan(&id, &tag)
		out[id] = append(out[id], tag)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read tags: %w", err)
	}
	return out, nil
}

// DocCount counts the documents of a collection.
func (s *Store) DocCount(ctx context.Context, collection string) (int, error) {
	var n int
	if err := s.one(ctx, "SELECT count(*) FROM documents WHERE collection = $1", []any{collection}, &n); err != nil {
		return 0, fmt.Errorf("count documents of %s: %w", collection, err)
	}
	return n, nil
}
