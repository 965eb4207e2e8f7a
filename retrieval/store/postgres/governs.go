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

// declared are the governs rows of a flush's documents, as columns (i:
// the document's place in the flush, from 1; seq: the row's place in
// its document).
type declared struct {
	i                      []int64
	seq, kinds             []int32
	cols, values, problems []string
}

// add appends the declarations of the flush's document i.
func (g *declared) add(i int64, d *store.Document) {
	var seq int32
	add := func(kind int32, col, value, problem string) {
		g.i, g.seq, g.kinds = append(g.i, i), append(g.seq, seq), append(g.kinds, kind)
		g.cols, g.values, g.problems = append(g.cols, col), append(g.values, value), append(g.problems, problem)
		seq++
	}
	for _, gl := range d.Declares.Governs {
		c := gl.Collection
		if c == "" {
			c = d.Collection
		}
		add(0, c, gl.Glob, gl.Problem)
	}
	if d.Declares.System != "" {
		add(1, "", d.Declares.System, "")
	}
	for _, s := range d.Declares.Subsystems {
		add(2, "", s, "")
	}
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
