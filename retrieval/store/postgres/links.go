package postgres

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// Links as the SQLite store keeps them (store/links.go): one doc_links row
// per document with links or aliases, the links encoded as written
// (store.EncodeLinks), written with the document in its batch. Where a
// link points is resolved when links are read, against the whole document
// set, by the same store.LinkIndex the SQLite store uses, so both answer
// alike; the index is cached per value of the writes counter.

// docLinks are the doc_links rows of a flush's documents, as columns
// (i: the document's place in the flush, from 1).
type docLinks struct {
	i       []int64
	aliases []string
	links   [][]byte
}

// add appends the links and aliases of the flush's document i, if any
// (a document without leaves no row: its earlier one was deleted).
func (l *docLinks) add(i int64, d *store.Document) {
	if len(d.Links) == 0 && len(d.Aliases) == 0 {
		return
	}
	l.i = append(l.i, i)
	l.aliases = append(l.aliases, store.JoinAliases(d.Aliases))
	l.links = append(l.links, store.EncodeLinks(d.Links))
}

// linkIndex returns the resolved links of the index ctx reads (its
// snapshot's, or the committed one), rebuilt when a write has committed
// since it was built.
func (s *Store) linkIndex(ctx context.Context) (*store.LinkIndex, error) {
	writes, err := s.LinkVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	return s.links.Get(writes, func() (*store.LinkIndex, error) { return s.loadLinks(ctx) })
}

// loadLinks reads documents and links in one statement (one snapshot),
// by collection and path in byte order as SQLite orders them, and
// resolves every link.
func (s *Store) loadLinks(ctx context.Context) (*store.LinkIndex, error) {
	idx := store.NewLinkIndex("")
	err := s.each(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'writes'), ''),
		d.id, d.collection, d.rel_path, d.hash, d.title, l.aliases, l.links
		FROM documents d LEFT JOIN doc_links l ON l.doc_id = d.id ORDER BY d.collection COLLATE "C", d.rel_path COLLATE "C"`, nil,
		func(r pgx.Rows) error {
			m := &store.DocMeta{}
			var writes string
			var aliases *string
			var data []byte
			if err := r.Scan(&writes, &m.ID, &m.Collection, &m.RelPath, &m.Hash, &m.Title, &aliases, &data); err != nil {
				return err
			}
			idx.SetWrites(writes)
			return idx.Add(m, aliases, data)
		})
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	idx.Resolve()
	return idx, nil
}

// backfillLinks extracts the links and aliases of every Markdown document
// of an index made before links were stored (schema 1), inside the
// migration's transaction, a page of documents at a time.
func backfillLinks(ctx context.Context, tx pgx.Tx) error {
	const page = 500
	var after int64
	for {
		rows, err := tx.Query(ctx, `SELECT d.id, c.content FROM documents d JOIN contents c ON c.doc_id = d.id
			WHERE d.mime = 'text/markdown' AND d.id > $1 ORDER BY d.id LIMIT $2`, after, page)
		if err != nil {
			return err
		}
		var ids []int64
		var aliases []string
		var data [][]byte
		n := 0
		for rows.Next() {
			var id int64
			var content string
			if err := rows.Scan(&id, &content); err != nil {
				rows.Close()
				return err
			}
			n++
			after = id
			ls, as := links.Extract(content), links.Aliases(content)
			if len(ls) > 0 || len(as) > 0 {
				ids, aliases, data = append(ids, id), append(aliases, store.JoinAliases(as)), append(data, store.EncodeLinks(ls))
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO doc_links(doc_id, aliases, links) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[])
				ON CONFLICT(doc_id) DO UPDATE SET aliases = excluded.aliases, links = excluded.links`, ids, aliases, data); err != nil {
				return err
			}
		}
		if n < page {
			return nil
		}
	}
}
