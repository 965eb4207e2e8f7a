package postgres

import (
	"context"
	"database/sql"
	"reflect"
	"slices"
	"testing"

	"github.com/gnosearch/gno/retrieval/segment"
	"github.com/gnosearch/gno/retrieval/store"
	_ "modernc.org/sqlite"
)

// fts5Tokens is what the store did before wordtok: chunks' rows put in
// an in-memory FTS5 table of the index's tokenizer and read back from its
// instance vocabulary, sorted by column and offset. The Go tokenizer must
// give the same tokens with the same columns and offsets.
func fts5Tokens(t *testing.T, ix int, rows []row) [][]token {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	spec := `'` + store.WordTokenizer + `'`
	if ix == ixSeg {
		spec = `"` + segment.Tokenizer + `"`
	}
	for _, q := range []string{
		`CREATE VIRTUAL TABLE w USING fts5(title, headings, body, content='', contentless_delete=1, tokenize=` + spec + `)`,
		`CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range rows {
		if _, err := db.Exec("INSERT INTO w(rowid, title, headings, body) VALUES(?, ?, ?, ?)", i+1, r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := db.Query("SELECT doc, CASE col WHEN 'title' THEN 0 WHEN 'headings' THEN 1 ELSE 2 END, offset, coalesce(term, '') FROM wv")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	out := make([][]token, len(rows))
	for res.Next() {
		var doc int
		var tk token
		if err := res.Scan(&doc, &tk.col, &tk.off, &tk.term); err != nil {
			t.Fatal(err)
		}
		out[doc-1] = append(out[doc-1], tk)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for _, ts := range out {
		slices.SortFunc(ts, func(a, b token) int {
			if a.col != b.col {
				return a.col - b.col
			}
			return a.off - b.off
		})
	}
	return out
}

// TestTokensAsFTS5: the store's rows cut in Go are FTS5's, column and
// offset included, for both indexes.
func TestTokensAsFTS5(t *testing.T) {
	tok, _ := newTokenizer()
	rows := []row{
		{"Running Café keywords", "Intro > Setup", "It's a b\\c; relational conditional hopping.\nNaïve résumé e\u0301 x\u0301y"},
		{"", "", ""},
		{"日本語のテキスト", "花火大会 > 中文", "ภาษาไทย เป็นภาษา 😀 \xff\xfe bad \x00 nul"},
	}
	for ix, rs := range [][]row{rows, {{segment.Text(rows[2][0]), segment.Text(rows[2][1]), segment.Text(rows[2][2])}, {"", "", segment.Text("数据库 e\u0301")}}} {
		want := fts5Tokens(t, ix, rs)
		got, err := tok.cut(context.Background(), ix, rs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rs {
			if len(got[i]) == 0 && len(want[i]) == 0 {
				continue
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("index %d row %d:\n got %v\nwant %v", ix, i, got[i], want[i])
			}
		}
	}
}
