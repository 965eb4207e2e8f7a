package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// StateList is the indexed state of every document of a collection in
// byte order of the relative path, packed: the paths in one byte slice
// and a fixed-size record per document. An unchanged sync merges it with
// its walk (sorted the same way) instead of building a map of every path:
// no string and no map entry per document (bench/RESULTS.md, issue 30).
// The hash is left out, as DocStates leaves it: DocStatesOf reads it for
// the few files that changed.
type StateList struct {
	paths []byte
	recs  []stateRec
}

type stateRec struct {
	end          int // end of the path in paths; it starts at the previous end
	id           int64
	size, mtimeN int64
}

// Len is the number of documents.
func (l *StateList) Len() int { return len(l.recs) }

// rel is the i-th path as bytes of the packed slice (not copied).
func (l *StateList) rel(i int) []byte {
	start := 0
	if i > 0 {
		start = l.recs[i-1].end
	}
	return l.paths[start:l.recs[i].end]
}

// Rel is the i-th document's relative path.
func (l *StateList) Rel(i int) string { return string(l.rel(i)) }

// Compare compares the i-th path with rel as strings.Compare does,
// without a copy of the path.
func (l *StateList) Compare(i int, rel string) int {
	b := l.rel(i)
	switch {
	case string(b) == rel: // the conversions in comparisons do not allocate
		return 0
	case string(b) < rel:
		return -1
	}
	return 1
}

// State is the i-th document's state (Hash is "").
func (l *StateList) State(i int) DocState {
	r := l.recs[i]
	return DocState{ID: r.id, Size: r.size, MtimeNS: r.mtimeN}
}

// Add appends a document's state; a backend fills the list with it and
// calls Sort at the end.
func (l *StateList) Add(rel []byte, st DocState) { addState(l, rel, st) }

// addState is Add of a path as bytes or as a string (the driver's own).
func addState[T []byte | string](l *StateList, rel T, st DocState) {
	l.paths = append(l.paths, rel...)
	l.recs = append(l.recs, stateRec{end: len(l.paths), id: st.ID, size: st.Size, mtimeN: st.MtimeNS})
}

// Sort puts the list in byte order of the paths when it is not already:
// a database's order (a collation) is checked, never trusted.
func (l *StateList) Sort() {
	sorted := true
	for i := 1; i < len(l.recs) && sorted; i++ {
		sorted = bytes.Compare(l.rel(i-1), l.rel(i)) < 0
	}
	if sorted {
		return
	}
	type row struct {
		rel string
		st  DocState
	}
	rows := make([]row, len(l.recs))
	for i := range rows {
		rows[i] = row{l.Rel(i), l.State(i)}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.rel, b.rel) })
	l.paths, l.recs = l.paths[:0], l.recs[:0]
	for _, r := range rows {
		l.Add([]byte(r.rel), r.st)
	}
}

// DocStateList returns the state of every document of a collection in
// path order (StateList). It reads the covering (collection, rel_path,
// size, mtime_ns) index, schema 7: one pass over its entries in the
// order the list needs, no table row touched.
func (s *Store) DocStateList(ctx context.Context, collection string) (*StateList, error) {
	// A collection alone in the index (the usual case) is most of it:
	// two seeks of the (collection, …) index tell, where counting the
	// collection and the table was two passes over it (0.09 s at 1M).
	var others bool
	if err := s.db.QueryRowContext(ctx, "SELECT EXISTS(SELECT 1 FROM documents WHERE collection < ?) OR EXISTS(SELECT 1 FROM documents WHERE collection > ?)", collection, collection).Scan(&others); err != nil {
		return nil, fmt.Errorf("count documents of %s: %w", collection, err)
	}
	n, total := 0, 0
	if others {
		if err := s.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM documents WHERE collection = ?), (SELECT count(*) FROM documents)", collection).Scan(&n, &total); err != nil {
			return nil, fmt.Errorf("count documents of %s: %w", collection, err)
		}
	}
	const q = "SELECT id, rel_path, size, mtime_ns FROM documents WHERE collection = ? ORDER BY rel_path"
	l := &StateList{recs: make([]stateRec, 0, n)}
	mapped := 2*n >= total
	if mapped && s.db.tx(ctx) == nil {
		read, err := s.readStatesDirect(ctx, l, q, collection)
		if err != nil {
			return nil, fmt.Errorf("read documents of %s: %w", collection, err)
		}
		if read {
			l.Sort()
			return l, nil
		}
	}
	rows, done, err := s.queryMapped(ctx, mapped, q, collection)
	if err != nil {
		return nil, fmt.Errorf("read documents of %s: %w", collection, err)
	}
	defer done()
	var rel sql.RawBytes // copied into the list: no string per row
	for rows.Next() {
		var st DocState
		if err := rows.Scan(&st.ID, &rel, &st.Size, &st.MtimeNS); err != nil {
			return nil, fmt.Errorf("read documents of %s: %w", collection, err)
		}
		l.Add(rel, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read documents of %s: %w", collection, err)
	}
	l.Sort()
	return l, nil
}

// readStatesDirect reads the rows (id, rel_path, size, mtime_ns) of q
// into l on a connection of its own, mapped as queryMapped's, through the
// driver's rows: database/sql's Next and Scan per row (its locks, its
// conversions) were a fifth of the read at a million documents
// (bench/RESULTS.md, issue 30). It reports false, having read nothing,
// when the driver cannot be queried directly.
func (s *Store) readStatesDirect(ctx context.Context, l *StateList, q string, args ...any) (bool, error) {
	conn, release, err := s.mappedConn(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	read := false
	err = conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return nil
		}
		read = true
		rows, err := qc.QueryContext(ctx, q, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, 4)
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			id, ok1 := dest[0].(int64)
			size, ok2 := dest[2].(int64)
			mtime, ok3 := dest[3].(int64)
			if !ok1 || !ok2 || !ok3 {
				return fmt.Errorf("a document's state is %T, %T, %T, not integers", dest[0], dest[2], dest[3])
			}
			st := DocState{ID: id, Size: size, MtimeNS: mtime}
			switch rel := dest[1].(type) {
			case string:
				addState(l, rel, st)
			case []byte:
				l.Add(rel, st)
			default:
				return fmt.Errorf("a document's path is %T, not text", dest[1])
			}
		}
	})
	return read, err
}

// mappedConn is a connection of its own whose reads go through a memory
// map (queryMapped); release gives it back as it was.
func (s *Store) mappedConn(ctx context.Context) (*sql.Conn, func(), error) {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	_, merr := conn.ExecContext(ctx, "PRAGMA mmap_size = 4294967296")
	return conn, func() {
		if merr == nil {
			conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = 0")
		}
		conn.Close()
	}, nil
}

// queryMapped runs q. When mapped (a pass over most of the file) and no
// transaction is under way, it runs on a connection of its own that reads
// the pages through a memory map: no page-cache buffer allocated and no
// read call per page (−11 % of an unchanged sync's CPU at 100k,
// bench/RESULTS.md). Only for such passes: a mapped file's pages count in
// a process's RSS, and a daemon's reads keep their cache. done closes the
// rows and gives the connection back as it was.
func (s *Store) queryMapped(ctx context.Context, mapped bool, q string, args ...any) (rows *sql.Rows, done func(), err error) {
	if !mapped || s.db.tx(ctx) != nil {
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, nil, err
		}
		return rows, func() { rows.Close() }, nil
	}
	conn, release, err := s.mappedConn(ctx)
	if err != nil {
		return nil, nil, err
	}
	rows, err = conn.QueryContext(ctx, q, args...)
	if err != nil {
		release()
		return nil, nil, err
	}
	return rows, func() { rows.Close(); release() }, nil
}
