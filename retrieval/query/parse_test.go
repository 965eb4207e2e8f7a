package query

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Keywords
	}{
		{"What is the BM25 formula?", Keywords{Terms: []string{"bm25", "formula"}}},
		{`"exact phrase" other -skip`, Keywords{Terms: []string{"other"}, Phrases: []string{"exact phrase"}, Excludes: []string{"skip"}}},
		{`-"two words" keep`, Keywords{Terms: []string{"keep"}, Excludes: []string{"two words"}}},
		{"add a --version flag to a click program", Keywords{Terms: []string{"add", "version", "flag", "click", "program"}}},
		{"--dry-run -v", Keywords{Terms: []string{"dry", "run"}, Excludes: []string{"v"}}},
		{"COVID-19 vaccine", Keywords{Terms: []string{"covid", "19", "vaccine"}}},
		{"to be or not", Keywords{Terms: []string{"to", "be", "or", "not"}}},
		{"数据库 设计", Keywords{CJK: []string{"数据库", "设计"}}},
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

func TestSegmentExpr(t *testing.T) {
	cases := map[string]string{
		"数据库设计":        `"数据" OR "据库" OR "库设" OR "设计"`,
		"花火":           `"花火"`,
		"花":            `"花"*`,
		"東京 sqlite":    `"sqlite" OR "東京"`,
		"ＳＱＬｉｔｅ　東京":    `"sqlite" OR "東京"`,                                                // full-width letters and space: NFKC
		"ﾄｳｷｮｳ":        `"トウ" OR "ウキ" OR "キョ" OR "ョウ"`,                                    // half-width katakana
		"東京，大阪。":       `"東京" OR "大阪"`,                                                    // full-width punctuation splits runs
		`"花火大会" 東京`:    `("花火 火大 大会" OR ("花火 火大 大会" AND ("花火" OR "火大" OR "大会" OR "東京")))`, // a phrase of consecutive grams; its grams also rank
		`東京 -"大阪"`:     `("東京") NOT ("大阪")`,
		"서울에서":         `"서울" OR "울에" OR "에서"`,
		"ภาษาไทย":      `"ภา" OR "าษ" OR "ษา" OR "าไ" OR "ไท" OR "ทย"`,
		"english only": `"english" OR "only"`,
		"スーパー":         `"スー" OR "ーパ" OR "パー"`, // ー belongs to the run
	}
	for in, want := range cases {
		if got := Parse(in).SegmentExpr(); got != want {
			t.Errorf("Parse(%q).SegmentExpr() = %s, want %s", in, got, want)
		}
	}
}

func TestAsYouType(t *testing.T) {
	for _, c := range []struct {
		text    string
		partial bool
		want    string
	}{
		{"fox den", true, `"fox"`}, // "den" is being typed
		{"fox den ", false, `"fox" AND "den"`},
		{"fo", true, `"fo"`},                 // alone, it is all there is
		{`"red fox" hun`, true, `"red fox"`}, // phrases stay required
		{`"red fox" hunt`, false, `"red fox" AND "hunt"`},
		{"fox -cat hills ", false, `("fox" AND "hills") NOT ("cat")`},
		{"the fox", false, `"fox"`}, // stop words stay out
	} {
		if got := Parse(c.text).AsYouType(c.partial).MatchExpr(); got != c.want {
			t.Errorf("%q (partial %v): %s, want %s", c.text, c.partial, got, c.want)
		}
	}
}
