package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/config"
)

// FuzzFrontMatter checks that any file converts without panicking, that
// the body offset stays inside the text, and that chunks cover valid
// byte ranges of the normalised text.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: T\ntags: [a, b/c]\n---\n# Body\n",
		"---\ntags: x\n...\ntext",
		"---\na: &a [1]\nb: [*a, *a]\n---\n",
		"---\n---\n",
		"---\ntitle: [unclosed\n---\n# H\n",
		"---\r\ntitle: crlf\r\n---\r\nbody",
		"# no front matter\n\n- list\n  - nested\n",
		billionLaughs(),
		"---\ngoverns: [src/auth/**, \"code:lib/*.go\", ../**, /etc/x]\nsystem: \"[[S]]\"\nsubsystems: [a.md]\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, off := SplitFrontMatter(s)
		if off < 0 || off > len(s) {
			t.Fatalf("body offset %d outside %d bytes", off, len(s))
		}
		if len(fm.Title) > MaxFrontMatter || len(fm.Tags) > len(s) {
			t.Fatalf("front matter larger than its source")
		}
		for _, g := range fm.Declares.Governs {
			// A glob that could leave its collection is always refused.
			if g.Problem == "" && (strings.HasPrefix(g.Glob, "/") || strings.Contains(g.Glob, "\\") || g.Glob == ".." || strings.HasPrefix(g.Glob, "../") || strings.Contains(g.Glob, "/../") || strings.HasSuffix(g.Glob, "/..")) {
				t.Fatalf("escaping glob %q accepted", g.Glob)
			}
		}
		doc := Convert(config.Collection{Name: "c"}, "n.md", []byte(s), chunk.Options{})
		if !utf8.ValidString(doc.Content) || len(doc.Title) > MaxTitleBytes {
			t.Fatalf("bad content or title")
		}
		for _, c := range doc.Chunks {
			if c.StartByte < 0 || c.EndByte > len(doc.Content) || c.StartByte > c.EndByte {
				t.Fatalf("chunk %d-%d outside %d bytes", c.StartByte, c.EndByte, len(doc.Content))
			}
			if !strings.Contains(doc.Content, c.Text) {
				t.Fatalf("chunk text not in content")
			}
		}
	})
}
