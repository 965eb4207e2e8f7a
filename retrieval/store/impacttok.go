package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/gnosearch/gno/retrieval/store/wordtok"
)

// tokenizer turns a query's words into the word index's tokens exactly as
// FTS5 does: wordtok.Words is WordTokenizer in Go, proven token for token
// against FTS5 (it asked an in-memory FTS5 table before, a round of SQL
// per question). The changed rows of the block-max delta (rowPostings)
// are still cut by FTS5 itself, in an in-memory table, with their
// columns and counts exactly as the word index stores them.
type tokenizer struct {
	mu sync.Mutex
	db *sql.DB
}

// errEmptyToken: a word cut to an empty token (a run of combining marks)
// is left to FTS5, as before (the old tokenizer could not read it back).
var errEmptyToken = errors.New("an empty token")

// tokens returns the tokens of each word, in order.
func (t *tokenizer) tokens(ctx context.Context, words []string) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]string, len(words))
	for i, w := range words {
		ts := wordtok.Words.Tokens(w)
		for _, x := range ts {
			if x == "" {
				return nil, errEmptyToken
			}
		}
		out[i] = ts
	}
	return out, nil
}

// conn opens the tokenizer's database if needed and returns a connection;
// the caller holds t.mu and closes the connection.
func (t *tokenizer) conn(ctx context.Context) (*sql.Conn, error) {
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
	// Each connection to :memory: is a database of its own (a connection
	// the pool replaced starts empty): rowPostings creates its tables.
	return conn, nil
}

// rowText is a chunk's row of the word index: its id and columns.
type rowText struct {
	id                    int64
	title, headings, body string
}

// rowPostings tokenizes chunks' rows as the word index does, with FTS5
// itself, and returns each token's postings (ascending rows, the
// weighted frequency doubled as in the impacts table) and each row's
// token count.
func (t *tokenizer) rowPostings(ctx context.Context, rows []rowText) (map[string][]impactPosting, map[int64]int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	conn, err := t.conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	for _, q := range []string{
		"CREATE VIRTUAL TABLE IF NOT EXISTS tok3 USING fts5(title, headings, body, tokenize='" + WordTokenizer + "')",
		"CREATE VIRTUAL TABLE IF NOT EXISTS tok3_inst USING fts5vocab(tok3, instance)",
		"DELETE FROM tok3",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, nil, err
		}
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DELETE FROM tok3")
	for _, r := range rows {
		if _, err := conn.ExecContext(ctx, "INSERT INTO tok3(rowid, title, headings, body) VALUES(?, ?, ?, ?)", r.id, r.title, r.headings, r.body); err != nil {
			return nil, nil, err
		}
	}
	// By token, then row: as the word index's own instance table.
	rs, err := conn.QueryContext(ctx, "SELECT term, doc, col FROM tok3_inst")
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	colIdx := map[string]int{"title": 0, "headings": 1, "body": 2}
	post := map[string][]impactPosting{}
	counts := map[int64]int64{}
	for rs.Next() {
		var term, col string
		var row int64
		if err := rs.Scan(&term, &row, &col); err != nil {
			return nil, nil, err
		}
		c, ok := colIdx[col]
		if !ok {
			return nil, nil, fmt.Errorf("word index column %q", col)
		}
		counts[row]++
		ps := post[term]
		if n := len(ps); n > 0 && ps[n-1].row == row {
			ps[n-1].f2 += colWeights2[c]
		} else {
			post[term] = append(ps, impactPosting{row, colWeights2[c]})
		}
	}
	return post, counts, rs.Err()
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
