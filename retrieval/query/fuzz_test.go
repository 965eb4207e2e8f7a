package query

import (
	"database/sql"
	"testing"
	"unicode"
	"unicode/utf8"

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
	for _, s := range []string{`"exact" -not`, `NEAR(a b)`, `a:b*`, `((`, `"unbalanced`, `-`, `数据库设计`, `花`, `"東京 sqlite" -"大阪"`, `ｶﾀｶﾅ`, `^x`, `a AND OR NOT b`, `--version -x -- ---y`} {
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

// FuzzSegmentRoundTrip indexes arbitrary text the way the store does and
// checks that every one- and two-character piece of its unspaced runs,
// searched as a query, finds it: the index and query sides of package
// segment must agree whatever the text.
func FuzzSegmentRoundTrip(f *testing.F) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE s USING fts5(body, tokenize="` + segment.Tokenizer + `")`); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"隅田川の花火大会は七月", "東京タワーとSQLite", "서울에서 만나요", "ภาษาไทยที่นี่", "ｶﾀｶﾅ、ＡＢＣ", "スーパー々"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 200 {
			return
		}
		if _, err := db.Exec(`DELETE FROM s; INSERT INTO s(body) VALUES (?)`, segment.Text(s)); err != nil {
			t.Fatal(err)
		}
		for _, run := range segment.Runs(s) {
			rs := []rune(run)
			for i := range rs {
				for n := 1; n <= 2 && i+n <= len(rs); n++ {
					piece := string(rs[i : i+n])
					if unicode.In(rs[i], unicode.Mn, unicode.Mc) || (i+n < len(rs) && unicode.In(rs[i+n], unicode.Mn, unicode.Mc)) {
						continue // a piece cut inside a character
					}
					expr := Parse(piece).SegmentExpr()
					if expr == "" {
						continue
					}
					var c int
					if err := db.QueryRow(`SELECT count(*) FROM s WHERE s MATCH ?`, expr).Scan(&c); err != nil {
						t.Fatalf("%q: %s: %v", piece, expr, err)
					}
					if c != 1 {
						t.Fatalf("text %q: piece %q (%s) not found in %q", s, piece, expr, segment.Text(s))
					}
				}
			}
		}
	})
}
