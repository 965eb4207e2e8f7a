package qmd

import (
	"slices"
	"testing"
)

func TestParseSearch(t *testing.T) {
	out := `[
  {"docid": "#4299a8", "score": 0, "file": "qmd://scifact/123.md", "line": 3, "title": "T"},
  {"docid": "#4c9ece", "score": 0, "file": "qmd://scifact/sub/456.md"}
]`
	ids, err := ParseSearch([]byte(out))
	if err != nil || !slices.Equal(ids, []string{"123", "456"}) {
		t.Fatalf("ids = %v, %v", ids, err)
	}
	for _, empty := range []string{"[]", "No results found.", ""} {
		if ids, err := ParseSearch([]byte(empty)); err != nil || len(ids) != 0 {
			t.Fatalf("%q: ids = %v, %v", empty, ids, err)
		}
	}
	if _, err := ParseSearch([]byte("[{broken")); err == nil {
		t.Fatal("want an error for broken JSON")
	}
}
