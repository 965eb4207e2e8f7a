package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Check verifies that the index is whole: SQLite's own integrity check,
// the FTS5 word index against the chunks it mirrors, and that no document
// is half-indexed (every document has its content, its chunks are numbered
// without gaps, no chunk, tag, vector or link list outlives its document,
// every link list decodes). It returns
// the problems found, empty for a healthy index; err is for a database that
// cannot be read at all.
//
// A sync commits each document with its chunks in one transaction, so any
// problem here means a bug or a damaged file, never an interrupted sync.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	var problems []string
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, fmt.Errorf("check index %s: %w", s.path, err)
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return nil, fmt.Errorf("check index %s: %w", s.path, err)
		}
		if msg != "ok" {
			problems = append(problems, "integrity: "+msg)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check index %s: %w", s.path, err)
	}
	if len(problems) > 0 {
		return problems, nil // the queries below would read damaged pages
	}
	// FTS5 checks its index's structure (contentless since schema 6: it
	// has no text to compare the postings with).
	if _, err := s.db.ExecContext(ctx, "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)"); err != nil {
		problems = append(problems, "word index damaged: "+err.Error())
	}
	for _, q := range consistencyQueries {
		var n int64
		if err := s.db.QueryRowContext(ctx, q.sql).Scan(&n); err != nil {
			return problems, fmt.Errorf("check index %s (%s): %w", s.path, q.what, err)
		}
		if n > 0 {
			problems = append(problems, fmt.Sprintf("%d %s", n, q.what))
		}
	}
	bad, err := s.badLinkRows(ctx)
	if err != nil {
		return problems, fmt.Errorf("check index %s (links): %w", s.path, err)
	}
	if bad > 0 {
		problems = append(problems, fmt.Sprintf("%d documents with undecodable links", bad))
	}
	return problems, nil
}

// badLinkRows counts link lists that do not decode.
func (s *Store) badLinkRows(ctx context.Context) (int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT links FROM doc_links")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	bad := 0
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return 0, err
		}
		if _, err := decodeLinks(b); err != nil {
			bad++
		}
	}
	return bad, rows.Err()
}

// consistencyQueries each count rows that break one invariant.
var consistencyQueries = []struct{ what, sql string }{
	{"documents without content", "SELECT count(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM contents c WHERE c.doc_id = d.id)"},
	{"contents without a document", "SELECT count(*) FROM contents c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = c.doc_id)"},
	{"chunks without a document", "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = c.doc_id)"},
	{"chunks whose id does not encode their document and sequence", "SELECT count(*) FROM chunks WHERE id != (doc_id << 16 | seq)"},
	{"documents whose chunk sequence has gaps", `SELECT count(*) FROM (SELECT doc_id FROM chunks GROUP BY doc_id HAVING max(seq) + 1 != count(*))`},
	{"chunks outside their document's text", `SELECT count(*) FROM chunks c JOIN contents t ON t.doc_id = c.doc_id
		WHERE c.start_byte < 0 OR c.end_byte < c.start_byte OR c.end_byte > length(CAST(t.content AS BLOB))`},
	{"vectors without a chunk", "SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)"},
	{"tags without a document", "SELECT count(*) FROM tags t WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = t.doc_id)"},
	{"trigram rows without a chunk", "SELECT count(*) FROM chunks_tri t WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = t.rowid)"},
	{"segmented rows without a chunk", "SELECT count(*) FROM chunks_seg t WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = t.rowid)"},
	{"links of a missing document", "SELECT count(*) FROM doc_links l WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = l.doc_id)"},
}

// IsCorrupt reports whether err comes from a damaged or non-database file,
// the case `gno update --rebuild` recovers from.
func IsCorrupt(err error) bool {
	if err == nil {
		return false
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "malformed") || strings.Contains(m, "not a database") ||
		strings.Contains(m, "sqlite_corrupt") || strings.Contains(m, "(11)") || strings.Contains(m, "(26)")
}

// QuickCheck runs SQLite's quick_check over every b-tree of the index
// within budget. It returns a problem, or "" when the index is sound or
// too large to check in time (status stays fast on a large index; doctor
// runs the full Check).
//
// It names the tables one by one, leaving out the virtual ones: since
// SQLite 3.44 a quick_check of the whole file also runs each FTS5 table's
// own consistency check, which decodes every posting list (what doctor's
// 'integrity-check' does) and took the whole 300 ms budget of `gno status`
// on SciFact's 41 MB index without finishing, so status burnt a third of
// a second to learn nothing. The b-trees those tables store their index
// in (chunks_fts_data and the rest) are ordinary tables and are checked.
// What a per-table check does not see is a page that no table uses
// (harmless space; doctor reports it).
func (s *Store) QuickCheck(ctx context.Context, budget time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	tables, err := s.btreeTables(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ""
		}
		return err.Error()
	}
	for _, t := range tables {
		msg, err := s.quickCheckTable(ctx, t)
		switch {
		case err != nil && ctx.Err() != nil:
			return ""
		case err != nil:
			return err.Error()
		case msg != "":
			return msg
		}
	}
	return ""
}

// quickCheckTable returns the first problems quick_check finds in one
// table's b-trees, "" for none. (A table name and a row limit cannot both
// be given to the pragma, and its first row only names the database.)
func (s *Store) quickCheckTable(ctx context.Context, table string) (string, error) {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check("`+strings.ReplaceAll(table, `"`, `""`)+`")`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var found []string
	for rows.Next() && len(found) < 3 {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return "", err
		}
		if msg != "ok" && !strings.HasPrefix(msg, "*** in database") {
			found = append(found, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return strings.Join(found, "; "), nil
}

// btreeTables lists the tables stored as b-trees: all but the virtual
// ones (whose shadow tables are listed themselves).
func (s *Store) btreeTables(ctx context.Context) ([]string, error) {
	return s.texts(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY rootpage")
}

// Salvaged is what a rebuild keeps from a damaged index: the user's own
// tags (they exist nowhere else) and the generation, so change-feed
// readers never see it go backwards.
type Salvaged struct {
	Generation int64
	UserTags   []UserTag
}

// Salvage reads what it can from the database file at path, read-only,
// ignoring errors: the file may be damaged anywhere. Its reads wait for
// the file's lock like the store's (another process closing the index
// checkpoints under it): a read answered busy at once lost the user's
// tags.
func Salvage(ctx context.Context, path string) Salvaged {
	var s Salvaged
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma="+busyTimeout)
	if err != nil {
		return s
	}
	defer db.Close()
	var g string
	if db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'generation'").Scan(&g) == nil {
		s.Generation, _ = strconv.ParseInt(g, 10, 64)
	}
	rows, err := db.QueryContext(ctx, "SELECT d.collection, d.rel_path, t.tag FROM tags t JOIN documents d ON d.id = t.doc_id WHERE t.user = 1")
	if err != nil {
		return s
	}
	defer rows.Close()
	for rows.Next() {
		var t UserTag
		if rows.Scan(&t.Collection, &t.RelPath, &t.Tag) == nil {
			s.UserTags = append(s.UserTags, t)
		}
	}
	return s
}
