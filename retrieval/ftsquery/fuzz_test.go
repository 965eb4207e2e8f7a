package ftsquery

import (
	"database/sql"
	"testing"

	"github.com/gnosearch/gno/retrieval/segment"

	_ "modernc.org/sqlite"
)

// FuzzParse feeds arbitrary text through the parser and a real FTS5 table:
// whatever the user types, the rendered expression must be valid FTS5.
func FuzzParse(f *testing.F) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE w USING fts5(body, tokenize='porter unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE g USING fts5(body, tokenize="` + segment.Tokenizer + `");
		INSERT INTO w VALUES ('the quick brown fox'); INSERT INTO g VALUES ('数据 据库 库设 设计 计');`); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`"exact" -not`, `NEAR(a b)`, `a:b*`, `((`, `"unbalanced`, `-`, `数据库设计`, `花`, `"東京 sqlite" -"大阪"`, `ｶﾀｶﾅ`, `^x`, `a AND OR NOT b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		if e := q.MatchExpr(); e != "" {
			if _, err := db.Exec(`SELECT count(*) FROM w WHERE w MATCH ?`, e); err != nil {
				t.Fatalf("Parse(%q).MatchExpr() = %s: %v", s, e, err)
			}
		}
		if e := q.SegmentExpr(); e != "" {
			if _, err := db.Exec(`SELECT count(*) FROM g WHERE g MATCH ?`, e); err != nil {
				t.Fatalf("Parse(%q).SegmentExpr() = %s: %v", s, e, err)
			}
		}
	})
}
