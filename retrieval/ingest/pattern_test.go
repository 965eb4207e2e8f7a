package ingest

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestAnyFileEndingMatchesLikeDoublestar checks the walk's shortcut for
// "**/*.ext" patterns answers as the matcher does.
func TestAnyFileEndingMatchesLikeDoublestar(t *testing.T) {
	patterns := []string{"**/*.md", "**/*.tar.gz", "**/*_test.go", "**/*.MD", "**/*ü.txt", "**/*.md/x", "**/*.[mM]d", "*.md", "**/a*.md"}
	paths := []string{"a.md", ".md", "x/.md", "x/y/z.md", "x.md/y", "x.md/y.md", "a.MD", "a.mdx", "a.md.bak",
		"dir/b.tar.gz", "b.gz", "x_test.go", "test.go", "ü.txt", "a/bü.txt", "a b/c d.md", "a\\b.md", "md", "a/md"}
	for _, g := range patterns {
		for _, p := range paths {
			want, err := doublestar.Match(g, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := included([]string{g}, p); got != want {
				t.Errorf("included(%q, %q) = %v, doublestar says %v", g, p, got, want)
			}
		}
	}
	if _, ok := anyFileEnding("**/*.[mM]d"); ok {
		t.Error("a pattern with a class took the shortcut")
	}
	if s, ok := anyFileEnding("**/*.md"); !ok || s != ".md" {
		t.Errorf("anyFileEnding(**/*.md) = %q, %v", s, ok)
	}
}
