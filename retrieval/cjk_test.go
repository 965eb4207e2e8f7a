package retrieval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/query"
)

// cjkCorpus holds notes in scripts written without spaces between words
// (and Korean, whose words carry attached particles), with English notes
// beside them.
var cjkCorpus = map[string]string{
	"hanabi.txt":    "隅田川の花火大会は七月に開催される。\n",
	"tokyo.txt":     "東京タワーの近くでSQLiteの勉強会をした。\n",
	"kana.txt":      "コーヒーとケーキのセット。\n",
	"zh.txt":        "北京是中国的首都，也是数据库会议的举办地。\n",
	"ko.txt":        "서울에서 데이터베이스 모임이 열렸습니다.\n",
	"th.txt":        "ภาษาไทยเขียนติดกันโดยไม่มีช่องว่าง\n",
	"sqlite.txt":    "SQLite keeps the whole database in one file.\n",
	"fullwidth.txt": "ＳＱＬｉｔｅ　の　ＷＡＬ　モード。\n",
}

func uris(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URI
	}
	return out
}

func TestShortCJKTerms(t *testing.T) {
	e, _ := newEngine(t, cjkCorpus)
	update(t, e)
	cases := []struct {
		query string
		first string // the document that must rank first
		n     int    // how many results at most (0: any)
	}{
		{"花火", "hanabi.txt", 1},     // two characters, Japanese (the example)
		{"花", "hanabi.txt", 1},      // one character
		{"東京", "tokyo.txt", 1},      // two characters
		{"月", "hanabi.txt", 1},      // one character at the end of a word
		{"る", "hanabi.txt", 1},      // one character ending a run
		{"首都", "zh.txt", 1},         // Chinese
		{"北", "zh.txt", 1},          // Chinese, one character
		{"中国的首都", "zh.txt", 1},      // a longer run
		{"서울", "ko.txt", 1},         // Korean word with a particle attached in the note (서울에서)
		{"모임", "ko.txt", 1},         // Korean, particle 이 attached
		{"ไทย", "th.txt", 1},        // Thai, no spaces in the note
		{"ช่องว่าง", "th.txt", 1},   // Thai with combining marks
		{"ｺｰﾋｰ", "kana.txt", 1},     // half-width katakana query, full-width note
		{"コーヒー", "kana.txt", 1},     // ー inside the word
		{"東京，タワー。", "tokyo.txt", 1}, // full-width punctuation in the query
		{"ＷＡＬ", "fullwidth.txt", 1}, // full-width Latin query
		{"WAL モード", "fullwidth.txt", 1},
	}
	for _, c := range cases {
		rs := search(t, e, c.query)
		if len(rs) == 0 || rs[0].URI != "gno://notes/"+c.first || (c.n > 0 && len(rs) > c.n) {
			t.Errorf("search %q: %v, want %s first (at most %d)", c.query, uris(rs), c.first, c.n)
		}
	}
}

func TestMixedScriptQuery(t *testing.T) {
	e, _ := newEngine(t, cjkCorpus)
	update(t, e)
	// Both words: the Japanese note with both ranks first, the English
	// note with only "sqlite" is still found.
	rs := search(t, e, "東京 sqlite")
	got := uris(rs)
	if len(rs) < 2 || got[0] != "gno://notes/tokyo.txt" {
		t.Fatalf("mixed: %v", got)
	}
	found := false
	for _, u := range got {
		found = found || u == "gno://notes/sqlite.txt"
	}
	if !found {
		t.Errorf("mixed query lost the English-only match: %v", got)
	}
	// A quoted CJK phrase is required and exact; an excluded one removes.
	if rs := search(t, e, `"花火大会"`); len(rs) != 1 || rs[0].URI != "gno://notes/hanabi.txt" {
		t.Errorf("phrase: %v", uris(rs))
	}
	if rs := search(t, e, `"火大会"`); len(rs) != 1 {
		t.Errorf("phrase inside a run: %v", uris(rs))
	}
	if rs := search(t, e, `"花大"`); len(rs) != 0 {
		t.Errorf("non-adjacent phrase matched: %v", uris(rs))
	}
	if rs := search(t, e, `sqlite -"東京"`); len(rs) == 0 || slices.Contains(uris(rs), "gno://notes/tokyo.txt") {
		t.Errorf("exclusion: %v", uris(rs))
	}
}

func TestDetectedLangFilter(t *testing.T) {
	e, _ := newEngine(t, cjkCorpus)
	update(t, e)
	ctx := context.Background()
	for lang, want := range map[string]string{"ja": "gno://notes/tokyo.txt", "zh": "gno://notes/zh.txt", "ko": "gno://notes/ko.txt", "th": "gno://notes/th.txt"} {
		res, err := e.Search(ctx, SearchRequest{Query: "東京 北京 서울 ไทย sqlite", Lang: lang, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || !slices.Contains(uris(res.Results), want) {
			t.Errorf("lang %s: %v, want %s", lang, uris(res.Results), want)
		}
		for _, r := range res.Results {
			if r.Lang != lang {
				t.Errorf("lang %s: result %s has lang %q", lang, r.URI, r.Lang)
			}
		}
	}
}

var zhNotes = map[string]string{
	"db.txt":    "数据库使用倒排索引进行全文检索。\n",
	"cook.txt":  "红烧肉需要慢火炖两个小时。\n",
	"train.txt": "高速列车从北京开往上海。\n",
	"en.txt":    "An inverted index maps words to the documents that hold them.\n",
}

func TestForeignQuerySkipsVectors(t *testing.T) {
	dir := installedModels(t)
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, zhNotes)
	e.Paths.ModelsDir = dir
	ctx := context.Background()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error { c.Models.Embed = models.DefaultEmbedder; return nil }); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	if _, err := e.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	bm, err := e.Search(ctx, SearchRequest{Query: "倒排索引", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "倒排索引", Limit: 10}, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if q.Meta.VectorsUsed || q.Meta.Mode != "bm25_only" || len(q.Meta.Notes) == 0 || !strings.Contains(q.Meta.Notes[0], "does not cover the query's language (zh)") {
		t.Fatalf("English embedder fused into a Chinese query: %+v", q.Meta)
	}
	if strings.Join(uris(q.Results), " ") != strings.Join(uris(bm.Results), " ") {
		t.Errorf("query %v, search %v: without vectors the ranking must be BM25's", uris(q.Results), uris(bm.Results))
	}
	en, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "inverted index", Limit: 10}, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if !en.Meta.VectorsUsed {
		t.Errorf("English query lost its vectors: %+v", en.Meta)
	}
}

func TestAutoEmbedderForChineseIndex(t *testing.T) {
	dir := installedModels(t)
	const zh = "bge-small-zh-v1.5-q"
	if _, err := (models.Cache{Dir: dir}).Installed(zh); err != nil {
		t.Skipf("%s not installed (make models): %v", zh, err)
	}
	t.Setenv("GNO_MODELS_DIR", dir)
	e, _ := newEngine(t, zhNotes)
	e.Paths.ModelsDir = dir
	ctx := context.Background()
	update(t, e)
	if got := e.models.EmbedModel(); got != zh {
		t.Fatalf("embedder for a Chinese index: %s, want %s", got, zh)
	}
	r, err := e.Embed(ctx, EmbedOptions{})
	if err != nil || r.Model != zh {
		t.Fatalf("embed: %+v %v", r, err)
	}
	q, err := e.Query(ctx, QueryRequest{SearchRequest: SearchRequest{Query: "火车去上海", Limit: 10}, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Meta.VectorsUsed || len(q.Results) == 0 || q.Results[0].URI != "gno://notes/train.txt" {
		t.Errorf("Chinese query with a Chinese embedder: %v %+v", uris(q.Results), q.Meta)
	}
	// A name in config wins over the automatic choice.
	if err := e.UpdateConfig(ctx, func(c *config.Config) error { c.Models.Embed = models.DefaultEmbedder; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := e.models.EmbedModel(); got != models.DefaultEmbedder {
		t.Errorf("configured embedder ignored: %s", got)
	}
}

// An index made before the segmented table existed (schema 1) gets it
// filled on open, so short CJK words are found without a rebuild.
func TestUpgradeFillsSegmentedIndex(t *testing.T) {
	e, _ := newEngine(t, cjkCorpus)
	update(t, e)
	ctx := context.Background()
	db := rawDB(t, e)
	for _, q := range []string{"DROP TRIGGER chunks_ad_seg", "DROP TABLE chunks_seg", "PRAGMA user_version = 1"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	e2, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if rs := search(t, e2, "花火"); len(rs) != 1 || rs[0].URI != "gno://notes/hanabi.txt" {
		t.Fatalf("after upgrade: %v", uris(rs))
	}
	// Deleting a chunk also deletes it from the filled table.
	write(t, e2.Config().Collections[0].Path, "hanabi.txt", "夏の夜。\n")
	update(t, e2)
	if rs := search(t, e2, "花火"); len(rs) != 0 {
		t.Fatalf("stale segmented rows: %v", uris(rs))
	}
}

func TestCJKSnippetMarksGrams(t *testing.T) {
	body := strings.Repeat("これは関係のない前置きの文章です。", 20) + "隅田川の花火大会は七月に開催される。"
	got := makeSnippet(body, query.Parse("花火大会"))
	if !strings.Contains(got, "\x01花火大会\x02") {
		t.Errorf("snippet %q does not mark 花火大会", got)
	}
}
