package apidoc

import (
	"strings"
	"testing"
	"time"
)

// FuzzChangelog: any text parses (headings, rst underlines, fences) in
// bounded time; every entry's version is found in its heading, its text
// lies within the input, and an unknown format has no entries.
func FuzzChangelog(f *testing.F) {
	for _, s := range []string{
		"# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2024-01-02\n### Added\n- x\n\n## [1.1.0] - 2023-12-01\n- y\n",
		"Changelog\n=========\n\n1.2.0 (2024-01-02)\n------------------\n\n- a\n\n1.1.0\n-----\n\n- b\n",
		"=====\n1.2.0\n=====\n\nnew\n",
		"# Version 1.2\n\ntext\n```\n## 9.9.9\n```\n# Version 1.1\n",
		"no headings at all\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		c := ParseChangelog(src)
		if time.Since(start) > maxFuzzTime {
			t.Fatalf("%v on %d bytes", time.Since(start), len(src))
		}
		if !c.Known && len(c.Entries) != 0 {
			t.Fatalf("unknown format with %d entries", len(c.Entries))
		}
		norm := strings.ReplaceAll(src, "\r\n", "\n")
		for _, e := range c.Entries {
			if e.Version == "" || !strings.Contains(e.Title, e.Version) {
				t.Fatalf("entry %q not in its heading %q", e.Version, e.Title)
			}
			if !strings.Contains(norm, e.Text) {
				t.Fatalf("entry text %q not in the input", e.Text)
			}
		}
		_ = c.EntriesBetween("0", "99999")
		_ = CompareVersions(src, "1.0")
	})
}
