package apidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func versions(c *Changelog) string {
	var vs []string
	for _, e := range c.Entries {
		vs = append(vs, e.Version)
	}
	return strings.Join(vs, " ")
}

func TestParseChangelogFormats(t *testing.T) {
	cases := []struct{ name, text, want, firstBody string }{
		{"keep a changelog", "# Changelog\n\nAll notable changes.\n\n## [Unreleased]\n\n## [1.2.0] - 2024-01-02\n### Added\n- `Foo`\n\n## [1.1.0] - 2023-12-01\n### Fixed\n- bar\n\n[1.2.0]: https://x\n", "1.2.0 1.1.0", "### Added\n- `Foo`"},
		{"v and date", "# History\n\n## v2.0.0 (2024-05-01)\n\n* break\n\n## v1.9.3 (2024-04-01)\n\n* fix\n", "2.0.0 1.9.3", "* break"},
		{"rst setext", "Changelog\n=========\n\n1.2.0 (2024-01-02)\n------------------\n\n- new thing\n\n1.1.0\n-----\n\n- old thing\n", "1.2.0 1.1.0", "- new thing"},
		{"version word", "# Version 1.2\n\nText.\n\n# Version 1.1\n\nOld.\n", "1.2 1.1", "Text."},
		{"linked", "## [v3.1.0](https://github.com/x/y/compare/v3.0.0...v3.1.0) (2024-02-02)\n\n- a\n\n## [v3.0.0](https://x) (2024-01-01)\n\n- b\n", "3.1.0 3.0.0", "- a"},
		{"package prefixed", "# tokio 1.40.0 (August 30th, 2024)\n\nx\n\n# 1.39.3 (August 17th, 2024)\n\ny\n", "1.40.0 1.39.3", "x"},
		{"pre-release", "## 2.0.0-rc.1\n\nrc\n\n## 1.0.0\n\none\n", "2.0.0-rc.1 1.0.0", "rc"},
		{"rst overline", "=====\n1.2.0\n=====\n\nnew\n\n=====\n1.1.0\n=====\n\nold\n", "1.2.0 1.1.0", "new"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseChangelog(c.text)
			if !got.Known || versions(got) != c.want {
				t.Fatalf("versions %q (known %v), want %q", versions(got), got.Known, c.want)
			}
			if got.Entries[0].Text != c.firstBody {
				t.Errorf("first body %q, want %q", got.Entries[0].Text, c.firstBody)
			}
		})
	}
}

// An unknown format is a note, never a crash or a guess.
func TestParseChangelogUnknown(t *testing.T) {
	for _, text := range []string{"", "just some text\nwith lines\n", "* 2024-01-02: fixed things\n* 2023-12-01: more\n", "## Added\n- x\n## Fixed\n- y\n", "```\n## 1.2.0\n```\n"} {
		c := ParseChangelog(text)
		if c.Known || len(c.Entries) != 0 {
			t.Errorf("%q: known %v, entries %q", text, c.Known, versions(c))
		}
	}
}

func TestEntriesBetween(t *testing.T) {
	c := ParseChangelog("## 2.0.0\na\n## 1.10.0\nb\n## 1.9.0\nc\n## 1.2.0\nd\n")
	var got []string
	for _, e := range c.EntriesBetween("v1.9.0", "v2.0.0") {
		got = append(got, e.Version)
	}
	if strings.Join(got, " ") != "2.0.0 1.10.0" {
		t.Fatalf("between: %v", got)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.10.0", "1.9.0", 1}, {"v1.2.0", "1.2.0", 0}, {"1.2.0-rc.1", "1.2.0", -1}, {"2.0.0b2", "2.0.0", -1}, {"1.2", "1.2.0", 0}, {"0.27.2", "0.28.0", -1}, {"1.0.post1", "1.0", 0}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestReadChangelogFinds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "History.md"), []byte("## 1.0.0\nfirst\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte("## 1.1.0\nsecond\n"), 0o644)
	c, err := ReadChangelog(Package{Ecosystem: "npm", Dir: dir})
	if err != nil || c == nil || c.File != "CHANGELOG.md" || versions(c) != "1.1.0" {
		t.Fatalf("got %+v, %v", c, err)
	}
	// A symlink is never followed out of the package.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "secret"), []byte("## 9.9.9\n"), 0o644)
	dir2 := t.TempDir()
	os.Symlink(filepath.Join(other, "secret"), filepath.Join(dir2, "CHANGES.md"))
	if c, err := ReadChangelog(Package{Ecosystem: "npm", Dir: dir2}); c != nil || err != nil {
		t.Fatalf("symlink followed: %+v, %v", c, err)
	}
	// Nor is a docs folder that is a link.
	os.WriteFile(filepath.Join(other, "CHANGELOG.md"), []byte("## 9.9.9\nsecret\n"), 0o644)
	dir3 := t.TempDir()
	os.Symlink(other, filepath.Join(dir3, "docs"))
	if c, err := ReadChangelog(Package{Ecosystem: "npm", Dir: dir3}); c != nil || err != nil {
		t.Fatalf("docs link followed: %+v, %v", c, err)
	}
}

// A wheel carries no changelog file: its METADATA description may hold
// one (many projects append their HISTORY); only the dist's own
// METADATA is read, never a neighbour's in site-packages.
func TestReadChangelogPythonMetadata(t *testing.T) {
	site := t.TempDir()
	write := func(dist, body string) {
		os.MkdirAll(filepath.Join(site, dist), 0o755)
		os.WriteFile(filepath.Join(site, dist, "METADATA"), []byte("Metadata-Version: 2.1\nName: x\n\n"+body), 0o644)
	}
	write("my_pkg-2.0.0.dist-info", "# my-pkg\n\nIntro.\n\n## Changelog\n\n### 2.0.0\n\n- new\n\n### 1.0.0\n\n- first\n")
	write("other-1.0.dist-info", "## Changelog\n\n### 9.0.0\n\n- not mine\n")
	c, err := ReadChangelog(Package{Ecosystem: "python", Name: "my-pkg", Version: "2.0.0", Dir: site})
	if err != nil || c == nil || !c.Known || versions(c) != "2.0.0 1.0.0" || !strings.HasSuffix(c.File, "METADATA") {
		t.Fatalf("got %+v, %v", c, err)
	}
	if c, _ := ReadChangelog(Package{Ecosystem: "python", Name: "absent", Version: "1.0", Dir: site}); c != nil {
		t.Fatalf("read a neighbour's: %+v", c)
	}
}

// An unknown format read from a file is Known false with no entries.
func TestReadChangelogUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "NEWS"), []byte("Changes\n\n* 2024-03-01 faster\n* 2024-01-10 first\n"), 0o644)
	c, err := ReadChangelog(Package{Ecosystem: "rust", Dir: dir})
	if err != nil || c == nil || c.Known || len(c.Entries) != 0 || c.File != "NEWS" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestDeprecatedAttr(t *testing.T) {
	for a, want := range map[string]string{
		`#[deprecated]`:                                    "Deprecated.",
		`#[deprecated = "use bar"]`:                        "Deprecated: use bar",
		`#[deprecated(since = "1.2.0", note = "use bar")]`: "Deprecated since 1.2.0: use bar",
		`#[ deprecated ( note = "x" ) ]`:                   "Deprecated: x",
		`#[deprecated_safe]`:                               "",
		`#[doc = "deprecated"]`:                            "",
	} {
		got, ok := deprecatedAttr(a)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", a, got, ok, want)
		}
	}
}
