package retrieval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// damaged turns an error from a damaged index file into one that says the
// way out; other errors pass through.
func damaged(path string, err error) error {
	if !store.IsCorrupt(err) {
		return err
	}
	return gnoerr.Wrap(gnoerr.Unavailable, err, "index %s is damaged; rebuild it from your files with `gno update --rebuild`", path)
}

// Check runs the full consistency check of the index (`gno doctor`): the
// SQLite and FTS5 integrity checks and that no document is half-indexed.
// It returns the problems found; err is for an index that cannot be read.
func (e *Engine) Check(ctx context.Context) ([]string, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	problems, err := st.Check(ctx)
	if err != nil {
		return nil, damaged(e.Paths.DBFile, err)
	}
	return problems, nil
}

// quickCheckBudget bounds the integrity check `gno status` runs, so status
// stays fast on a large index; doctor runs the full check.
const quickCheckBudget = 300 * time.Millisecond

// quickCheck runs SQLite's quick_check within quickCheckBudget. It returns
// a problem, or "" when the index is sound or too large to check in time.
func quickCheck(ctx context.Context, st *store.Store) string {
	ctx, cancel := context.WithTimeout(ctx, quickCheckBudget)
	defer cancel()
	var msg string
	err := st.DB().QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&msg)
	switch {
	case err != nil && ctx.Err() != nil:
		return ""
	case err != nil:
		return err.Error()
	case msg != "ok":
		return msg
	}
	return ""
}

// salvaged is what a rebuild keeps from a damaged index: the user's own
// tags (they exist nowhere else) and the generation, so change-feed
// readers never see it go backwards.
type salvaged struct {
	gen  int64
	tags [][3]string // collection, rel_path, tag
}

// salvage reads what it can from the old database, ignoring errors: the
// file may be damaged anywhere.
func salvage(ctx context.Context, path string) salvaged {
	var s salvaged
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return s
	}
	defer db.Close()
	var g string
	if db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'generation'").Scan(&g) == nil {
		s.gen, _ = strconv.ParseInt(g, 10, 64)
	}
	rows, err := db.QueryContext(ctx, "SELECT d.collection, d.rel_path, t.tag FROM tags t JOIN documents d ON d.id = t.doc_id WHERE t.user = 1")
	if err != nil {
		return s
	}
	defer rows.Close()
	for rows.Next() {
		var t [3]string
		if rows.Scan(&t[0], &t[1], &t[2]) == nil {
			s.tags = append(s.tags, t)
		}
	}
	return s
}

// moveAside replaces the index with an empty one: the database (and its
// WAL) is kept as index.sqlite.damaged for inspection, the vector exports
// are deleted. The caller holds the writer lock.
func (e *Engine) moveAside(ctx context.Context) (salvaged, error) {
	e.vec.close()
	e.mu.Lock()
	if e.st != nil {
		e.st.Close()
		e.st = nil
	}
	e.mu.Unlock()
	s := salvage(ctx, e.Paths.DBFile)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		p := e.Paths.DBFile + suffix
		if err := os.Rename(p, e.Paths.DBFile+".damaged"+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return s, fmt.Errorf("rebuild: move %s aside: %w", p, err)
		}
	}
	exports, _ := filepath.Glob(filepath.Join(e.Paths.IndexDir, "vectors-*.hnsw*"))
	for _, p := range exports {
		os.Remove(p)
	}
	return s, nil
}

// restoreTags puts the salvaged user tags back on the rebuilt documents.
func restoreTags(ctx context.Context, st *store.Store, s salvaged) error {
	for _, t := range s.tags {
		if _, err := st.DB().ExecContext(ctx, `INSERT INTO tags(doc_id, tag, user) SELECT id, ?, 1 FROM documents
			WHERE collection = ? AND rel_path = ? ON CONFLICT DO UPDATE SET user = 1`, t[2], t[0], t[1]); err != nil {
			return fmt.Errorf("rebuild: restore tag %s on %s/%s: %w", t[2], t[0], t[1], err)
		}
	}
	return nil
}
