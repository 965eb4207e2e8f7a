package expand

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gnosearch/gno/inference"
)

func TestParseExpansion(t *testing.T) {
	const q = "how does rust manage memory"
	tests := []struct {
		name    string
		raw     string
		kws     []string
		passage string
		err     string
	}{
		{
			name: "plain json",
			raw:  `{"keywords": ["ownership rules", "borrow checker"], "passage": "Rust uses ownership."}`,
			kws:  []string{"ownership rules", "borrow checker"}, passage: "Rust uses ownership.",
		},
		{
			name: "code fence and thinking",
			raw:  "<think>\nThe user asks about {memory}. I should answer [quickly].\n</think>\n```json\n{\"keywords\": [\"rust heap allocation\"], \"passage\": \"Values are dropped.\"}\n```\n",
			kws:  []string{"rust heap allocation"}, passage: "Values are dropped.",
		},
		{
			name: "dangling close tag (opener was in the template)",
			raw:  `thinking about {"keywords": ["wrong"]} </think> {"keywords": ["drop trait"]}`,
			kws:  []string{"drop trait"},
		},
		{
			name: "prose around json",
			raw:  `Sure! Here you go: {"queries": ["rust raii"], "hyde": "RAII frees memory."} Hope this helps.`,
			kws:  []string{"rust raii"}, passage: "RAII frees memory.",
		},
		{
			name: "keywords as one string",
			raw:  `{"keywords": "rust ownership, borrow checker; lifetimes", "passage": ""}`,
			kws:  []string{"rust ownership", "borrow checker", "lifetimes"},
		},
		{
			name: "bare array",
			raw:  `["stack vs heap", "smart pointers"]`,
			kws:  []string{"stack vs heap", "smart pointers"},
		},
		{
			name:    "qmd line format",
			raw:     "lex: rust ownership\nlex: borrow checker\nvec: how rust frees memory automatically\nhyde: Rust frees memory when the owner goes out of scope.",
			kws:     []string{"rust ownership", "borrow checker", "how rust frees memory automatically"},
			passage: "Rust frees memory when the owner goes out of scope.",
		},
		{
			name: "cleaning, dedupe, echo, cap",
			raw: `{"keywords": ["1. Ownership rules", "- \"ownership rules\"", "How does Rust manage memory?", "Query: how does rust manage memory",
				"keyword queries of 2 to 6 words", "search engine", "borrowing", "lifetimes", "drop", "arenas", ""], "passage": "x"}`,
			kws:     []string{"Ownership rules", "search engine", "borrowing", "lifetimes"},
			passage: "x",
		},
		{
			name: "overlong keyword dropped",
			raw:  `{"keywords": ["` + strings.Repeat("very long keyword ", 10) + `", "short one"]}`,
			kws:  []string{"short one"},
		},
		{name: "prose only", raw: "I think you should look at the Rust book.", err: "not JSON"},
		{name: "empty", raw: "  \n ", err: "empty response"},
		{name: "only thinking", raw: "<think>hmm, the user wants", err: "empty response"},
		{name: "empty fields", raw: `{"keywords": [], "passage": "  "}`, err: "no keywords or passage"},
		{name: "non-string keywords", raw: `{"keywords": [1, 2, {"a": "b"}], "passage": 7}`, err: "no keywords or passage"},
		{
			name: "passage echoes the instructions",
			raw:  `{"keywords": ["how does rust manage memory"], "passage": "` + SystemPrompt + `"}`,
			err:  "echoes",
		},
		{name: "too long", raw: `{"keywords": ["a"], "passage": "` + strings.Repeat("b", 20000) + `"}`, err: "too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exp, err := Parse(tc.raw, q, Limits{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q (got %+v)", err, tc.err, exp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.kws == nil {
				tc.kws = []string{}
			}
			if !reflect.DeepEqual(exp.Keywords, tc.kws) {
				t.Errorf("keywords = %q, want %q", exp.Keywords, tc.kws)
			}
			if exp.Passage != tc.passage {
				t.Errorf("passage = %q, want %q", exp.Passage, tc.passage)
			}
		})
	}
}

func TestParseExpansionLimits(t *testing.T) {
	long := strings.Repeat("Rust frees memory when owners leave scope. ", 100)
	raw := `{"keywords": ["a b", "c d", "e f"], "passage": "` + long + `"}`
	exp, err := Parse(raw, "q", Limits{MaxKeywords: 2, MaxPassageRunes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Keywords) != 2 {
		t.Errorf("keywords = %q, want 2", exp.Keywords)
	}
	if n := utf8.RuneCountInString(exp.Passage); n > 100 || n < 50 {
		t.Errorf("passage has %d runes, want ≤ 100 and cut at a word", n)
	}
	if !strings.HasSuffix(exp.Passage, "scope.") && strings.HasSuffix(exp.Passage, " ") {
		t.Errorf("passage not cut at a word boundary: %q", exp.Passage)
	}
	if _, err := Parse(`{"keywords":["abc"]}`, "q", Limits{MaxResponseBytes: 5}); err == nil {
		t.Error("MaxResponseBytes not enforced")
	}
}

func TestExpansionCacheLRU(t *testing.T) {
	c := NewCache(2)
	c.Put("m", "a", &inference.Expansion{Keywords: []string{"a"}})
	c.Put("m", "b", &inference.Expansion{Keywords: []string{"b"}})
	if _, ok := c.Get("m", "a"); !ok { // a is now most recent
		t.Fatal("a missing")
	}
	c.Put("m", "c", &inference.Expansion{Keywords: []string{"c"}})
	if _, ok := c.Get("m", "b"); ok {
		t.Error("b should have been evicted (least recently used)")
	}
	if _, ok := c.Get("m", "a"); !ok {
		t.Error("a evicted although recently used")
	}
	if _, ok := c.Get("other", "a"); ok {
		t.Error("cache key ignores the model")
	}
	c.Put("m", "a", &inference.Expansion{Passage: "new"})
	if e, _ := c.Get("m", "a"); e.Passage != "new" || c.Len() != 2 {
		t.Errorf("update: %+v len %d", e, c.Len())
	}
	off := NewCache(-1)
	off.Put("m", "a", &inference.Expansion{})
	if off.Len() != 0 {
		t.Error("disabled cache stored an entry")
	}
	var nilCache *Cache
	nilCache.Put("m", "a", &inference.Expansion{})
	if _, ok := nilCache.Get("m", "a"); ok {
		t.Error("nil cache hit")
	}
}
