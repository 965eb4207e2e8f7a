package postgres

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// What governing notes declare in their front matter, as SQLite keeps it
// (store/governs.go): one row per governs glob (kind 0, its collection
// resolved, why it was refused if it was), per system parent (1) and per
// subsystems child (2), written with the note in its batch.

// putGoverns queues the declarations of d, replacing its earlier ones.
func (b *batch) putGoverns(d *store.Document) {
	b.queue("DELETE FROM governs WHERE doc_id = ("+byPath+")", d.Collection, d.RelPath)
	var kinds []int32
	var cols, values, problems []string
	add := func(kind int32, col, value, problem string) {
		kinds, cols, values, problems = append(kinds, kind), append(cols, col), append(values, value), append(problems, problem)
	}
	for _, g := range d.Declares.Governs {
		c := g.Collection
		if c == "" {
			c = d.Collection
		}
		add(0, c, g.Glob, g.Problem)
	}
	if d.Declares.System != "" {
		add(1, "", d.Declares.System, "")
	}
	for _, s := range d.Declares.Subsystems {
		add(2, "", s, "")
	}
	if len(kinds) == 0 {
		return
	}
	b.queue(`INSERT INTO governs(doc_id, seq, kind, collection, value, problem)
		SELECT d.id, u.n - 1, u.k, u.c, u.v, u.p FROM documents d, unnest($3::int[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS u(k, c, v, p, n)
		WHERE d.collection = $1 AND d.rel_path = $2`, d.Collection, d.RelPath, kinds, cols, values, problems)
}

// GoverningNotes returns every note with declarations, by collection and
// path.
func (s *Store) GoverningNotes(ctx context.Context) ([]*store.GoverningNote, error) {
	var out []*store.GoverningNote
	err := s.each(ctx, `SELECT d.id, d.collection, d.rel_path, d.title, d.hash, d.changed_gen, g.kind, g.collection, g.value, g.problem
		FROM governs g JOIN documents d ON d.id = g.doc_id ORDER BY d.collection COLLATE "C", d.rel_path COLLATE "C", g.seq`, nil, func(r pgx.Rows) error {
		var n store.GoverningNote
		var kind int
		var col, val, problem string
		if err := r.Scan(&n.ID, &n.Collection, &n.RelPath, &n.Title, &n.Hash, &n.ChangedGen, &kind, &col, &val, &problem); err != nil {
			return err
		}
		if len(out) == 0 || out[len(out)-1].ID != n.ID {
			out = append(out, &n)
		}
		cur := out[len(out)-1]
		switch kind {
		case 0:
			cur.Declares.Governs = append(cur.Declares.Governs, links.Govern{Collection: col, Glob: val, Problem: problem})
		case 1:
			cur.Declares.System = val
		case 2:
			cur.Declares.Subsystems = append(cur.Declares.Subsystems, val)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read governing notes: %w", err)
	}
	return out, nil
}
