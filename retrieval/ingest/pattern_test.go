package ingest

import (
	"slices"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/convert"
)

var (
	testPatterns = []string{"**/*.md", "**/*.tar.gz", "**/*_test.go", "**/*.MD", "**/*ü.txt", "**/*.md/x", "**/*.[mM]d", "*.md",
		"**/a*.md", "**/*.{md,txt}", "**/*.{md}", "**/*{.md,.txt}.bak", "**/*.{md,}", "**/*{,}", "**/*.{m{d,x},txt}",
		"**/*.{md,t*t}", "**/*.{md,txt", "**/*.md}", "**/*.{a/b,md}", "**/*.{md,txt}.{gz,bz2}", "**/*", "**/*\\.md",
		convert.DefaultPattern, convert.DefaultCodePattern()}
	testPaths = []string{"a.md", ".md", "x/.md", "x/y/z.md", "x.md/y", "x.md/y.md", "a.MD", "a.mdx", "a.md.bak",
		"dir/b.tar.gz", "b.gz", "x_test.go", "test.go", "ü.txt", "a/bü.txt", "a b/c d.md", "a\\b.md", "md", "a/md",
		"a.txt", "a.txt.bak", "a.md.bak", "a.", "a/b.", "a.mx", "a.md.gz", "a.pdf", "a/b.markdown", "x.go", "a.md,txt"}
)

// TestIncludeSetMatchesLikeDoublestar checks the walk's shortcut for
// patterns that only name file endings answers as the matcher does.
func TestIncludeSetMatchesLikeDoublestar(t *testing.T) {
	for _, g := range testPatterns {
		for _, p := range testPaths {
			want, _ := doublestar.Match(g, p)
			if got := newIncludeSet([]string{g}).match(p); got != want {
				t.Errorf("match(%q, %q) = %v, doublestar says %v", g, p, got, want)
			}
		}
	}
	for _, g := range []string{"**/*.[mM]d", "**/*.{m{d,x},txt}", "**/*.{md,t*t}", "**/*{,}", "**/*.{md,txt}.{gz,bz2}", "**/*"} {
		if e, ok := fileEndings(g); ok {
			t.Errorf("%q took the shortcut (%q)", g, e)
		}
	}
	for g, want := range map[string][]string{"**/*.md": {".md"}, "**/*.{md,txt}": {".md", ".txt"}, "**/*{.md,.txt}.bak": {".md.bak", ".txt.bak"}} {
		if e, ok := fileEndings(g); !ok || !slices.Equal(e, want) {
			t.Errorf("fileEndings(%q) = %q, %v", g, e, ok)
		}
	}
	// The default pattern of a new collection is the one that must not
	// fall back to the matcher.
	if _, ok := fileEndings(convert.DefaultPattern); !ok {
		t.Errorf("the default pattern %q does not take the shortcut", convert.DefaultPattern)
	}
}

// FuzzIncludeSet checks the shortcut against doublestar for any pattern
// and path.
func FuzzIncludeSet(f *testing.F) {
	for i, g := range testPatterns {
		f.Add(g, testPaths[i%len(testPaths)])
	}
	f.Fuzz(func(t *testing.T, g, p string) {
		if !doublestar.ValidatePattern(g) {
			return
		}
		want, _ := doublestar.Match(g, p)
		if got := newIncludeSet([]string{g}).match(p); got != want {
			t.Errorf("match(%q, %q) = %v, doublestar says %v", g, p, got, want)
		}
	})
}
