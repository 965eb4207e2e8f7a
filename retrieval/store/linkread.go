package store

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/retrieval/links"
)

// LinkRow is a stored link with the document at its other end (zero
// Other when the link is unresolved).
type LinkRow struct {
	Src, Seq int64
	Kind     links.Kind
	Target   string
	Fragment string
	Alias    string
	Line     int
	Attach   bool
	// Other is the document at the other end: the target of an outgoing
	// link, the source of an incoming one. Nil when unresolved.
	Other *DocMeta
}

const linkCols = "l.src_id, l.seq, l.kind, l.target, l.fragment, l.alias, l.line, l.attach, "

func (s *Store) scanLinks(ctx context.Context, q string, args ...any) ([]LinkRow, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	var out []LinkRow
	for rows.Next() {
		var r LinkRow
		var kind int
		var id *int64
		var m DocMeta
		var col, rel, hash, title *string
		if err := rows.Scan(&r.Src, &r.Seq, &kind, &r.Target, &r.Fragment, &r.Alias, &r.Line, &r.Attach, &id, &col, &rel, &hash, &title); err != nil {
			return nil, err
		}
		r.Kind = links.Kind(kind)
		if id != nil && col != nil {
			m.ID, m.Collection, m.RelPath, m.Hash, m.Title = *id, *col, *rel, *hash, *title
			r.Other = &m
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// LinksFrom returns the links document id makes, in order.
func (s *Store) LinksFrom(ctx context.Context, id int64) ([]LinkRow, error) {
	return s.scanLinks(ctx, "SELECT "+linkCols+"d.id, d.collection, d.rel_path, d.hash, d.title FROM links l LEFT JOIN documents d ON d.id = l.dst_id WHERE l.src_id = ? ORDER BY l.seq", id)
}

// LinksTo returns the links pointing at document id, by source path.
func (s *Store) LinksTo(ctx context.Context, id int64) ([]LinkRow, error) {
	return s.scanLinks(ctx, "SELECT "+linkCols+"d.id, d.collection, d.rel_path, d.hash, d.title FROM links l JOIN documents d ON d.id = l.src_id WHERE l.dst_id = ? ORDER BY d.collection, d.rel_path, l.seq", id)
}

// Unresolved returns links that name no indexed document (attachments
// excepted), with their source as Other, by source path; limit 0 means
// all.
func (s *Store) Unresolved(ctx context.Context, collection string, limit int) ([]LinkRow, error) {
	q := "SELECT " + linkCols + "d.id, d.collection, d.rel_path, d.hash, d.title FROM links l JOIN documents d ON d.id = l.src_id WHERE l.dst_id IS NULL AND l.attach = 0"
	var args []any
	if collection != "" {
		q += " AND d.collection = ?"
		args = append(args, collection)
	}
	q += " ORDER BY d.collection, d.rel_path, l.seq"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.scanLinks(ctx, q, args...)
}

// LinkStats counts links per collection of their source.
type LinkStats struct {
	Links, Unresolved, Attachments int
}

// LinkStats counts the links of each collection.
func (s *Store) LinkStats(ctx context.Context) (map[string]*LinkStats, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT d.collection, count(*), sum(l.dst_id IS NULL AND l.attach = 0), sum(l.attach)
		FROM links l JOIN documents d ON d.id = l.src_id GROUP BY d.collection`)
	if err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	defer rows.Close()
	out := map[string]*LinkStats{}
	for rows.Next() {
		var c string
		var st LinkStats
		if err := rows.Scan(&c, &st.Links, &st.Unresolved, &st.Attachments); err != nil {
			return nil, err
		}
		out[c] = &st
	}
	return out, rows.Err()
}

// LinkGraph returns every document id of the given collections (all when
// none) and every resolved link between two of them, as (src, dst) pairs.
func (s *Store) LinkGraph(ctx context.Context, collections []string) ([]int64, [][2]int64, error) {
	where, args := "", []any{}
	if len(collections) > 0 {
		where = " WHERE collection IN (" + placeholders(len(collections)) + ")"
		for _, c := range collections {
			args = append(args, c)
		}
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM documents"+where, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("read graph: %w", err)
	}
	var nodes []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		nodes = append(nodes, id)
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, "SELECT src_id, dst_id FROM links WHERE dst_id IS NOT NULL AND dst_id != src_id")
	if err != nil {
		return nil, nil, fmt.Errorf("read graph: %w", err)
	}
	defer rows.Close()
	var edges [][2]int64
	for rows.Next() {
		var e [2]int64
		if err := rows.Scan(&e[0], &e[1]); err != nil {
			return nil, nil, err
		}
		edges = append(edges, e)
	}
	return nodes, edges, rows.Err()
}

// Candidates returns, for each key, the documents answering to it by file
// name or alias.
func (s *Store) Candidates(ctx context.Context, keys []string) (map[string][]links.Candidate, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	return candidates(ctx, s.db, args)
}

// DocName is one name a document answers to.
type DocName struct {
	DocID int64
	Name  string
	Alias bool
}

// DocNames returns every file name and alias of the given collections.
func (s *Store) DocNames(ctx context.Context, collections []string) ([]DocName, error) {
	q := "SELECT k.doc_id, k.name, k.alias FROM doc_keys k JOIN documents d ON d.id = k.doc_id"
	var args []any
	if len(collections) > 0 {
		q += " WHERE d.collection IN (" + placeholders(len(collections)) + ")"
		for _, c := range collections {
			args = append(args, c)
		}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	defer rows.Close()
	var out []DocName
	for rows.Next() {
		var n DocName
		if err := rows.Scan(&n.DocID, &n.Name, &n.Alias); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
