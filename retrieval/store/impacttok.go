package store

import (
	"context"
	"database/sql"
	"sync"
)

// tokenizer turns a query's words into the word index's tokens exactly as
// FTS5 does, with FTS5 itself: an in-memory table with the word index's
// tokenizer, whose instance table lists the tokens of what is put in.
type tokenizer struct {
	mu sync.Mutex
	db *sql.DB
}

// tokens returns the tokens of each word, in order.
func (t *tokenizer) tokens(ctx context.Context, words []string) ([][]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.db == nil {
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		t.db = db
	}
	conn, err := t.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// Each connection to :memory: is a database of its own: a connection
	// the pool replaced starts empty.
	for _, q := range []string{
		"CREATE VIRTUAL TABLE IF NOT EXISTS tok USING fts5(w, tokenize='" + WordTokenizer + "')",
		"CREATE VIRTUAL TABLE IF NOT EXISTS tok_inst USING fts5vocab(tok, instance)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	if _, err := conn.ExecContext(ctx, "DELETE FROM tok"); err != nil {
		return nil, err
	}
	for i, w := range words {
		if _, err := conn.ExecContext(ctx, "INSERT INTO tok(rowid, w) VALUES(?, ?)", i+1, w); err != nil {
			return nil, err
		}
	}
	rows, err := conn.QueryContext(ctx, "SELECT doc, term FROM tok_inst ORDER BY doc, offset")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([][]string, len(words))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			return nil, err
		}
		if doc >= 1 && doc <= len(words) {
			out[doc-1] = append(out[doc-1], term)
		}
	}
	return out, rows.Err()
}

// close closes the tokenizer's database, if it was opened.
func (t *tokenizer) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.db == nil {
		return nil
	}
	err := t.db.Close()
	t.db = nil
	return err
}
