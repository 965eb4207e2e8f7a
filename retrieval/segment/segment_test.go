package segment

import (
	"reflect"
	"testing"
)

func TestText(t *testing.T) {
	cases := map[string]string{
		"隅田川の花火大会":     " 隅田 田川 川の の花 花火 火大 大会 会 ",
		"東京 sqlite":    " 東京 京  sqlite",
		"SQLiteの勉強会":   "SQLite の勉 勉強 強会 会 ",
		"ＳＱＬｉｔｅ":       "SQLite",       // NFKC: full-width Latin
		"ｶﾀｶﾅ":         " カタ タカ カナ ナ ", // NFKC: half-width katakana
		"花":            " 花 ",
		"english only": "english only",
		"東京，大阪。":       " 東京 京 , 大阪 阪 。", // full-width comma folds to ','
	}
	for in, want := range cases {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGrams(t *testing.T) {
	cases := map[string][]string{
		"花火大会": {"花火", "火大", "大会", "会"},
		"花":    {"花"},
		"ไทย":  {"ไท", "ทย", "ย"},
		"ที่":  {"ที่"}, // a base with two combining marks is one character
		"":     nil,
	}
	for in, want := range cases {
		if got := Grams(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Grams(%q) = %q, want %q", in, got, want)
		}
	}
	if got := QueryGrams("花火大会"); !reflect.DeepEqual(got, []string{"花火", "火大", "大会"}) {
		t.Errorf("QueryGrams: %q", got)
	}
}

func TestRunsAndHas(t *testing.T) {
	if got := Runs("abc 東京タワー、서울에서 ok ภาษาไทย"); !reflect.DeepEqual(got, []string{"東京タワー", "서울에서", "ภาษาไทย"}) {
		t.Errorf("Runs: %q", got)
	}
	if Has("plain ascii é ü") || !Has("x東") || !Has("ー") {
		t.Error("Has")
	}
}
