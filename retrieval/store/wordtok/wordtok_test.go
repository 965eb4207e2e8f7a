package wordtok_test

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gnosearch/gno/retrieval/segment"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/wordtok"
	_ "modernc.org/sqlite"
)

// TestSpecs: the tokenizers are the indexes' own settings.
func TestSpecs(t *testing.T) {
	if wordtok.Words.Spec() != store.WordTokenizer {
		t.Errorf("Words is %q, the word index's tokenizer %q", wordtok.Words.Spec(), store.WordTokenizer)
	}
	if wordtok.Segmented.Spec() != segment.Tokenizer {
		t.Errorf("Segmented is %q, the segmented index's tokenizer %q", wordtok.Segmented.Spec(), segment.Tokenizer)
	}
}

// fts5 is FTS5 itself: one in-memory table per tokenizer, whose instance
// vocabulary lists each token of what is put in.
type fts5 struct {
	mu sync.Mutex
	db *sql.DB
}

var (
	refOnce sync.Once
	ref     *fts5
	refErr  error
)

func reference(t testing.TB) *fts5 {
	t.Helper()
	refOnce.Do(func() {
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			refErr = err
			return
		}
		db.SetMaxOpenConns(1)
		for i, tk := range []*wordtok.Tokenizer{wordtok.Words, wordtok.Segmented} {
			name := "t" + string(rune('a'+i))
			for _, q := range []string{
				"CREATE VIRTUAL TABLE " + name + " USING fts5(body, tokenize=\"" + tk.Spec() + "\")",
				"CREATE VIRTUAL TABLE " + name + "v USING fts5vocab(" + name + ", 'instance')",
			} {
				if _, err := db.Exec(q); err != nil {
					refErr = err
					return
				}
			}
		}
		ref = &fts5{db: db}
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return ref
}

// tokens returns FTS5's tokens of each text by tokenizer tk.
func (f *fts5) tokens(t testing.TB, tk *wordtok.Tokenizer, texts []string) [][]string {
	t.Helper()
	name := "ta"
	if tk == wordtok.Segmented {
		name = "tb"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i, s := range texts {
		if _, err := tx.Exec("INSERT INTO "+name+"(rowid, body) VALUES(?, ?)", i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.Query("SELECT doc, offset, coalesce(term, '') FROM " + name + "v ORDER BY doc, offset")
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc, off int
		var term string
		if err := rows.Scan(&doc, &off, &term); err != nil {
			t.Fatal(err)
		}
		if off != len(out[doc-1]) {
			t.Fatalf("text %d: FTS5 offset %d after %d tokens", doc, off, len(out[doc-1]))
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	return out
}

// same fails t where the Go tokenizers cut texts differently from FTS5.
func same(t testing.TB, texts []string) {
	t.Helper()
	f := reference(t)
	for _, tk := range []*wordtok.Tokenizer{wordtok.Words, wordtok.Segmented} {
		want := f.tokens(t, tk, texts)
		for i, s := range texts {
			got := tk.Tokens(s)
			if !slices.Equal(got, want[i]) {
				for j := range min(len(got), len(want[i])) {
					if got[j] != want[i][j] {
						t.Fatalf("%s: %q: token %d is %q, FTS5's %q", tk.Spec(), s, j, got[j], want[i][j])
					}
				}
				t.Fatalf("%s: %q: %d tokens, FTS5 %d (%q)", tk.Spec(), s, len(got), len(want[i]), want[i])
			}
		}
	}
}

// edge are texts at the tokenizer's edges: diacritics, combining marks,
// CJK, Thai, emoji, malformed UTF-8, NUL, case folding, stemming.
var edge = []string{
	"", " ", "a", "Hello, World!", "running runs ran easily happiness relational conditional",
	"caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky",
	"relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti",
	"triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll",
	"aed ied yes ys eed ing ying bed xing",
	"Ünïcödé façade naïve résumé Crème Brûlée ÆØÅ ß ẞ İstanbul ǅ ǈ Ω ΣΑΣ σας",
	"e\u0301 a\u0300\u0301b \u0301\u0301 x\u0301y \u0308",
	"日本語のテキスト 花火大会 中文分词 한국어 텍스트",
	"ภาษาไทย เป็นภาษา", "ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာ",
	"emoji 😀 text 👍🏽 family 👨‍👩‍👧 flag 🇫🇷",
	"nul\x00byte a\x00b", "bad \xff\xfe utf8 \xc3 \xa0x \xaax \x80\x81", "\xed\xa0\x80 surrogate \xef\xbf\xbe",
	"\xf0\x80\x80\x80\x80\x80\x80x overlong \xc0\xaf \xe0\x80\xaf", "\xf4\x90\x80\x80 past max \xf7\xbf\xbf\xbf",
	"𐐀𐐁 Deseret 𐐨", "Ꭰ Cherokee ꭰ", "ﬀ ﬁ ﬂ ligatures", "ǰ ΐ ẖ", "Ⅻ ⅻ ① ⑴",
	"ａｂｃ ＡＢＣ full width", "\u00a0nbsp\u2000space\u3000ideo", "tab\tnew\nline\rret",
	"x" + string(make([]byte, 70)) + "y", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzing",
	"\u0e01\u0e34\u0e19 \u0e19\u0e49\u0e33", "Ⓐ ⓐ 🄰", "İi̇ ı", "Ǆ ǆ ǅ",
}

func TestEdges(t *testing.T) { same(t, edge) }

// TestEveryCharacter: each code point alone, between letters and after a
// space, as both tokenizers cut it.
func TestEveryCharacter(t *testing.T) {
	if os.Getenv("GNO_WORDTOK_EVERY") == "" {
		t.Skip("a million code points, minutes (gentables probed each already): set GNO_WORDTOK_EVERY=1")
	}
	var texts []string
	flush := func() {
		same(t, texts)
		texts = texts[:0]
	}
	for c := rune(0); c <= 0x10FFFF; c++ {
		s := string(c)
		if c >= 0xD800 && c <= 0xDFFF {
			s = string([]byte{0xED, byte(0xA0 | (c>>6)&0x1F), byte(0x80 | c&0x3F)})
		}
		texts = append(texts, "ab"+s+"cd "+s+"ing "+s)
		if len(texts) == 4096 {
			flush()
		}
	}
	flush()
}

// evalTexts returns the titles and texts of an evaluation corpus, or
// skips.
func evalTexts(t *testing.T, name string) []string {
	dir := os.Getenv("GNO_EVAL_DIR")
	if dir == "" {
		dir = "/work/shared/eval"
	}
	fh, err := os.Open(filepath.Join(dir, name, "corpus.jsonl"))
	if err != nil {
		t.Skipf("no %s corpus (set GNO_EVAL_DIR): %v", name, err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Title, d.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEvalCorpora: SciFact, Cranfield and CMRC token for token, the CMRC
// texts also after segmentation (as the segmented index gets them).
func TestEvalCorpora(t *testing.T) {
	if testing.Short() {
		t.Skip("whole corpora")
	}
	for _, name := range []string{"scifact", "cranfield", "cmrc2018-zh"} {
		t.Run(name, func(t *testing.T) {
			texts := evalTexts(t, name)
			if name == "cmrc2018-zh" {
				for _, s := range texts[:len(texts):len(texts)] {
					texts = append(texts, segment.Text(s))
				}
			}
			for i := 0; i < len(texts); i += 2000 {
				same(t, texts[i:min(i+2000, len(texts))])
			}
		})
	}
}

// FuzzTokens: any text, both tokenizers, FTS5's tokens exactly.
func FuzzTokens(f *testing.F) {
	for _, s := range edge {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same(t, []string{s, segment.Text(s)})
	})
}

// BenchmarkWords: English prose through the word index's tokenizer.
func BenchmarkWords(b *testing.B) {
	s := strings.Repeat("Several lines of evidence indicate that proteins regulate cells in mice; relational conditional hopping. ", 40)
	b.SetBytes(int64(len(s)))
	var dst []string
	for b.Loop() {
		dst = wordtok.Words.Append(dst[:0], s)
	}
}

// TestTablesFromLinkedSQLite fails when the linked SQLite is not the one the
// character tables were generated from: a new SQLite may change FTS5's
// Unicode tables, and the default corpora would only catch the characters
// they contain.
func TestTablesFromLinkedSQLite(t *testing.T) {
	var version string
	if err := reference(t).db.QueryRow("SELECT sqlite_version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != wordtok.SQLiteVersion {
		t.Fatalf("tables.go was generated from SQLite %s but SQLite %s is linked: run `go generate ./retrieval/store/wordtok` and commit tables.go", wordtok.SQLiteVersion, version)
	}
}
