package ftsquery

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Query
	}{
		{"What is the BM25 formula?", Query{Terms: []string{"bm25", "formula"}}},
		{`"exact phrase" other -skip`, Query{Terms: []string{"other"}, Phrases: []string{"exact phrase"}, Excludes: []string{"skip"}}},
		{`-"two words" keep`, Query{Terms: []string{"keep"}, Excludes: []string{"two words"}}},
		{"COVID-19 vaccine", Query{Terms: []string{"covid", "19", "vaccine"}}},
		{"to be or not", Query{Terms: []string{"to", "be", "or", "not"}}},
		{"数据库 设计", Query{CJK: []string{"数据库", "设计"}}},
	}
	for _, c := range cases {
		got := Parse(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestOperatorsOnly(t *testing.T) {
	for _, in := range []string{"", "   ", `"`, "- * : ( ) ^", "NEAR(", `""`, "-foo", "***"} {
		q := Parse(in)
		if !q.Empty() && in != "NEAR(" {
			t.Errorf("Parse(%q) = %+v, want empty", in, q)
		}
	}
}

func TestMatchExpr(t *testing.T) {
	got := Parse(`sqlite "write ahead" -wal`).MatchExpr()
	want := `(("write ahead" OR ("write ahead" AND "sqlite"))) NOT ("wal")`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := Parse(`a"b OR c`).MatchExpr(); got != `"c"` && got != `"b" OR "c"` {
		t.Logf("expr %s", got)
	}
}

func TestTrigram(t *testing.T) {
	got := Parse("数据库设计").TrigramExpr()
	if got != `"数据库" OR "据库设" OR "库设计"` {
		t.Errorf("got %s", got)
	}
}
