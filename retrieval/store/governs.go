package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/gnosearch/gno/retrieval/links"
)

// governsSchema keeps what governing notes declare in their front matter
// (links.Declarations): one row per `governs` glob (kind 0, with the
// collection it reads, resolved, and why it was refused if it was), per
// `system` parent (kind 1) and per `subsystems` child (kind 2), written
// with the note in the same transaction, so the declarations are as
// current as the index (schema 5).
const governsSchema = `
CREATE TABLE IF NOT EXISTS governs(
	doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	kind INTEGER NOT NULL,
	collection TEXT NOT NULL,
	value TEXT NOT NULL,
	problem TEXT NOT NULL DEFAULT '',
	PRIMARY KEY(doc_id, seq)) WITHOUT ROWID;
`

// The kinds of a governs row.
const (
	declGoverns = iota
	declSystem
	declSubsystem
)

// putGoverns stores the declarations of document id inside the batch.
func (b *Batch) putGoverns(ctx context.Context, id int64, d *Document, existed bool) error {
	if existed {
		if _, err := b.exec(ctx, "DELETE FROM governs WHERE doc_id = ?", id); err != nil {
			return err
		}
	}
	seq := 0
	add := func(kind int, collection, value, problem string) error {
		_, err := b.exec(ctx, "INSERT INTO governs(doc_id, seq, kind, collection, value, problem) VALUES(?,?,?,?,?,?)", id, seq, kind, collection, value, problem)
		seq++
		return err
	}
	for _, g := range d.Declares.Governs {
		c := g.Collection
		if c == "" {
			c = d.Collection
		}
		if err := add(declGoverns, c, g.Glob, g.Problem); err != nil {
			return err
		}
	}
	if d.Declares.System != "" {
		if err := add(declSystem, "", d.Declares.System, ""); err != nil {
			return err
		}
	}
	for _, s := range d.Declares.Subsystems {
		if err := add(declSubsystem, "", s, ""); err != nil {
			return err
		}
	}
	return nil
}

// GoverningNote is a note that declares what it governs or where it sits
// among governing notes. Its Governs globs carry their collection resolved
// (never "").
type GoverningNote struct {
	ID                  int64
	Collection, RelPath string
	Title, Hash         string
	ChangedGen          int64
	Declares            links.Declarations
}

// GoverningNotes returns every note with declarations, by collection and
// path.
func (s *Store) GoverningNotes(ctx context.Context) ([]*GoverningNote, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT d.id, d.collection, d.rel_path, d.title, d.hash, d.changed_gen, g.kind, g.collection, g.value, g.problem
		FROM governs g JOIN documents d ON d.id = g.doc_id ORDER BY d.collection, d.rel_path, g.seq`)
	if err != nil {
		return nil, fmt.Errorf("read governing notes: %w", err)
	}
	defer rows.Close()
	var out []*GoverningNote
	for rows.Next() {
		var n GoverningNote
		var kind int
		var col, val, problem string
		if err := rows.Scan(&n.ID, &n.Collection, &n.RelPath, &n.Title, &n.Hash, &n.ChangedGen, &kind, &col, &val, &problem); err != nil {
			return nil, fmt.Errorf("read governing notes: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].ID != n.ID {
			out = append(out, &n)
		}
		cur := out[len(out)-1]
		switch kind {
		case declGoverns:
			cur.Declares.Governs = append(cur.Declares.Governs, links.Govern{Collection: col, Glob: val, Problem: problem})
		case declSystem:
			cur.Declares.System = val
		case declSubsystem:
			cur.Declares.Subsystems = append(cur.Declares.Subsystems, val)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read governing notes: %w", err)
	}
	return out, nil
}

// backfillGoverns reads the declarations of every Markdown document
// already in an index from an older schema. Only documents that open with
// front matter are read, and only their first frontMatterPrefix
// characters: declarations past ingest's front-matter limit are not read
// anyway, so a large corpus is not loaded whole.
func backfillGoverns(ctx context.Context, tx *sql.Tx) error {
	return eachMarkdown(ctx, tx, true, func(b *Batch, id int64, collection, content string) error {
		d := Document{Collection: collection, Declares: links.Declared(content)}
		return b.putGoverns(ctx, id, &d, false)
	})
}

// frontMatterPrefix is how many characters of a document hold all the
// front matter links.Declared reads (64 KiB, with room for its closing
// line).
const frontMatterPrefix = 65600

// markdownPage is how many documents an upgrade's backfill reads at once
// (a variable so a test can page through a few).
var markdownPage = 500

// eachMarkdown calls fn for every Markdown document of the index with a
// batch over tx (an upgrade's backfill), reading them a page at a time
// in id order; frontMatter reads only documents opening with "---", and
// only their first frontMatterPrefix characters. Each page's rows are
// read first: a statement must not run while a query over the same
// tables is open.
func eachMarkdown(ctx context.Context, tx *sql.Tx, frontMatter bool, fn func(b *Batch, id int64, collection, content string) error) error {
	q := "SELECT d.id, d.collection, c.content FROM documents d JOIN contents c ON c.doc_id = d.id WHERE d.mime = 'text/markdown' AND d.id > ? ORDER BY d.id LIMIT ?"
	if frontMatter {
		q = "SELECT d.id, d.collection, substr(c.content, 1, " + strconv.Itoa(frontMatterPrefix) + ") FROM documents d JOIN contents c ON c.doc_id = d.id" +
			" WHERE d.mime = 'text/markdown' AND substr(c.content, 1, 3) = '---' AND d.id > ? ORDER BY d.id LIMIT ?"
	}
	type row struct {
		id           int64
		col, content string
	}
	b := &Batch{tx: tx}
	defer func() {
		for _, st := range b.stmts {
			st.Close()
		}
	}()
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, q, after, markdownPage)
		if err != nil {
			return err
		}
		var docs []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.col, &r.content); err != nil {
				rows.Close()
				return err
			}
			docs = append(docs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range docs {
			if err := fn(b, r.id, r.col, r.content); err != nil {
				return err
			}
		}
		if len(docs) < markdownPage {
			return nil
		}
		after = docs[len(docs)-1].id
	}
}
