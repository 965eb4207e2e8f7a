package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/segment"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5/pgtype"
	_ "modernc.org/sqlite" // the tokenizer is SQLite's own FTS5
)

// Tokens.
//
// Postgres's text search parsers and stemmers are not SQLite's (its
// english config is Snowball, with stop words; its parser cuts words
// differently), and a search must mean the same on both backends. So the
// words are cut by the very tokenizers of the SQLite index: an in-memory
// SQLite database holds an FTS5 table per index (the word index's
// store.WordTokenizer, the segmented index's
// segment.Tokenizer over segment.Text), and fts5vocab reads back each
// token with its column and offset. The Postgres store keeps them as a
// tsvector whose lexemes are those tokens, so candidate finding (GIN) and
// BM25 see exactly the words SQLite's FTS5 sees.

// The two indexes, as the ix column of the statistics names them.
const (
	ixWords = 0
	ixSeg   = 1
)

// columns of a chunk, in FTS5's order, with the base position each gets
// in the tsvector (phrases match within a column, never across) and its
// weight letter (the BM25 column weight).
var colBase = [3]int{1, 1001, 2001}

const colWeights = "ABD"

// colWeight is each column's BM25 weight (SQLite's bm25Weights).
var colWeight = [3]float64{2, 1.5, 1}

// maxPos is the largest tsvector position.
const maxPos = 16383

// tokenizer cuts text into FTS5's tokens.
type tokenizer struct {
	mu sync.Mutex
	db *sql.DB
}

func newTokenizer() (*tokenizer, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	// One connection: an in-memory database is one per connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE w USING fts5(title, headings, body, content='', contentless_delete=1, tokenize='` + store.WordTokenizer + `')`,
		`CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance')`,
		`CREATE VIRTUAL TABLE s USING fts5(title, headings, body, content='', contentless_delete=1, tokenize="` + segment.Tokenizer + `")`,
		`CREATE VIRTUAL TABLE sv USING fts5vocab(s, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("start the tokenizer: %w", err)
		}
	}
	return &tokenizer{db: db}, nil
}

func (t *tokenizer) Close() error { return t.db.Close() }

// row is one chunk's three columns.
type row [3]string

// token is one token of a row: its column and offset there.
type token struct {
	term     string
	col, off int
}

// fts5Tokens returns the tokens of each row in index ix as FTS5 cuts them
// (the segmented index's rows must already be segment.Text); tokenize
// (lexeme.go) is what the store uses.
func (t *tokenizer) fts5Tokens(ctx context.Context, ix int, rows []row) ([][]token, error) {
	out := make([][]token, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	table, vocab := "w", "wv"
	if ix == ixSeg {
		table, vocab = "s", "sv"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, "INSERT INTO "+table+"(rowid, title, headings, body) VALUES(?, ?, ?, ?)")
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	for i, r := range rows {
		if _, err := ins.ExecContext(ctx, i+1, r[0], r[1], r[2]); err != nil {
			return nil, fmt.Errorf("tokenize: %w", err)
		}
	}
	ins.Close()
	// The column as a number and the term as bytes, kept as a string
	// once per run of equal terms (the vocabulary comes in term order):
	// a sync reads a row per token, so each allocation counts.
	res, err := tx.QueryContext(ctx, "SELECT doc, CASE col WHEN 'title' THEN 0 WHEN 'headings' THEN 1 ELSE 2 END, offset, term FROM "+vocab)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	var raw sql.RawBytes
	prev := ""
	for res.Next() {
		var doc int
		var tk token
		if err := res.Scan(&doc, &tk.col, &tk.off, &raw); err != nil {
			res.Close()
			return nil, fmt.Errorf("tokenize: %w", err)
		}
		if string(raw) != prev {
			prev = string(raw)
		}
		tk.term = prev
		out[doc-1] = append(out[doc-1], tk)
	}
	res.Close()
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+"("+table+") VALUES('delete-all')"); err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	for _, ts := range out {
		slices.SortFunc(ts, func(a, b token) int {
			if a.col != b.col {
				return a.col - b.col
			}
			return a.off - b.off
		})
	}
	return out, nil
}

// terms tokenizes one query string (a quoted FTS5 string) as the body of
// index ix: its tokens in order.
func (t *tokenizer) terms(ctx context.Context, ix int, s string) ([]string, error) {
	if ix == ixSeg {
		// A query string of the segmented index is already its grams
		// (query.SegmentExpr); the index's text went through segment.Text,
		// which normalises the same way.
		s = segment.Normalize(s)
	}
	toks, err := t.tokenize(ctx, ix, []row{{"", "", s}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(toks[0]))
	for i, tk := range toks[0] {
		out[i] = tk.term
	}
	return out, nil
}

// tsvector turns tokens into a tsvector: each term with its positions
// (the column's base plus the offset, at most 256, increasing), weighted
// by column. It also returns the row's length (its number of tokens, as
// FTS5 counts them for BM25), its distinct terms in byte order and each
// one's frequency weighted by column (BM25's f, the postings' wf).
func tsvector(toks []token) (tsv pgtype.TSVector, length int, terms []string, wf []float64) {
	tsv.Valid = true
	if len(toks) == 0 {
		return tsv, 0, nil, nil
	}
	byTerm := map[string][]pgtype.TSVectorPosition{}
	freq := map[string]float64{}
	for _, tk := range toks {
		freq[tk.term] += colWeight[tk.col]
		pos := min(colBase[tk.col]+tk.off, maxPos)
		if tk.col < 2 {
			pos = min(pos, colBase[tk.col+1]-1)
		}
		ps := byTerm[tk.term]
		// tsvector keeps at most 256 positions of a lexeme (BM25's
		// frequency saturates long before), each once: the tokens come
		// in position order, so a repeat (a clamped position) is the
		// last one.
		if len(ps) < 256 && (len(ps) == 0 || int(ps[len(ps)-1].Position) != pos) {
			byTerm[tk.term] = append(ps, pgtype.TSVectorPosition{Position: uint16(pos), Weight: pgtype.TSVectorWeight(colWeights[tk.col])})
		}
	}
	terms = make([]string, 0, len(byTerm))
	for term := range byTerm {
		terms = append(terms, term)
	}
	sort.Strings(terms)
	wf = make([]float64, len(terms))
	tsv.Lexemes = make([]pgtype.TSVectorLexeme, len(terms))
	for i, t := range terms {
		wf[i] = freq[t]
		tsv.Lexemes[i] = pgtype.TSVectorLexeme{Word: t, Positions: byTerm[t]}
	}
	return tsv, len(toks), terms, wf
}

// quoteLexeme quotes a term for a tsvector or tsquery literal.
func quoteLexeme(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
