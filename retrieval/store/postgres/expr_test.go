package postgres

import (
	"testing"

	"github.com/gnosearch/gno/retrieval/query"
)

// FuzzParseExpr: every expression the query package renders parses back,
// its phrases the quoted strings it holds; any other text is an error,
// never a panic.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{`zebra "striped horse" -africa`, `数据库 检索`, `"全文" -"検索"`, `a b c`, `"x""y"`, `(("a"`, `"a" NOT`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parseExpr(s) // arbitrary text: an error at most
		q := query.Parse(s)
		for _, expr := range []string{q.MatchExpr(), q.SegmentExpr(), q.SegExcludeExpr(), q.AsYouType(true).MatchExpr()} {
			if expr == "" {
				continue
			}
			e, err := parseExpr(expr)
			if err != nil {
				t.Fatalf("%q renders %q, which does not parse: %v", s, expr, err)
			}
			if _, ok := e.tsquery(); !ok && len(e.phrases(nil)) == 0 {
				t.Fatalf("%q: an expression without phrases", expr)
			}
		}
	})
}

// TestParseExpr: operators, their precedence, escapes and prefixes.
func TestParseExpr(t *testing.T) {
	e, err := parseExpr(`("a b" OR ("a b" AND ("c" OR "d"*))) NOT ("e""f")`)
	if err != nil {
		t.Fatal(err)
	}
	ps := e.phrases(nil)
	if len(ps) != 5 || ps[3].text != "d" || !ps[3].prefix || ps[4].text != `e"f` {
		t.Fatalf("phrases %+v", ps)
	}
	for i, toks := range [][]string{{"a", "b"}, {"a", "b"}, {"c"}, {"d"}, {"e", "f"}} {
		ps[i].tokens = toks
	}
	got, ok := e.tsquery()
	want := `((('a' <-> 'b') | (('a' <-> 'b') & ('c' | 'd':*))) & !('e' <-> 'f'))`
	if !ok || got != want {
		t.Errorf("tsquery\n%s, want\n%s", got, want)
	}
	for _, bad := range []string{`"a`, `("a"`, `"a" AND`, `a`, `"a")`} {
		if _, err := parseExpr(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
