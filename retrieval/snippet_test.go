package retrieval

import (
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/display"
	"github.com/gnosearch/gno/retrieval/query"
)

func TestSnippet(t *testing.T) {
	body := strings.Repeat("filler words here. ", 40) + "The checkpointing of the write-ahead log runs often. " + strings.Repeat("more filler. ", 40)
	s := makeSnippet(body, query.Parse("checkpoint log"))
	if !strings.Contains(s, "\x01checkpointing\x02") || !strings.Contains(s, "\x01log\x02") || !strings.HasPrefix(s, "…") {
		t.Fatalf("snippet: %q", s)
	}
	if n := len([]rune(display.StripMarks(s))); n > snippetRunes+4 {
		t.Fatalf("snippet too long: %d", n)
	}
	if s := makeSnippet("短文本 全文检索使用倒排索引", query.Parse("倒排索引")); !strings.Contains(s, "\x01倒排索引\x02") {
		t.Fatalf("cjk snippet: %q", s)
	}
	if s := makeSnippet("no match at all", query.Parse("zebra")); s != "no match at all" {
		t.Fatalf("no-match snippet: %q", s)
	}
}
