package apidoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A package's changelog, read for `gno packages diff` (what changed
// between two versions). It is not stored with the units: README
// filtering drops changelog sections from search on purpose (their
// version numbers and issue links outrank the API), and a diff reads
// the one file of the one version it needs.

// ChangelogEntry is one version's section of a changelog.
type ChangelogEntry struct {
	// Version as the heading writes it, without a leading "v"
	// ("1.2.0", "2.0.0-rc.1").
	Version string `json:"version"`
	// Title is the heading's whole text ("[1.2.0] - 2024-01-02").
	Title string `json:"title"`
	// Text is the section's body, without its heading.
	Text string `json:"text"`
}

// Changelog is a package version's changelog, parsed.
type Changelog struct {
	// File is the file it was read from, relative to the package
	// ("CHANGELOG.md"), or "METADATA" for a Python package whose long
	// description carries it.
	File string `json:"file"`
	// Entries in the file's order (usually newest first).
	Entries []ChangelogEntry `json:"entries"`
	// Known is false when no version section was recognised: the format
	// is unknown and Entries is empty.
	Known bool `json:"known"`
}

// maxChangelogBytes bounds the changelog read: the longest real ones
// (Django's, CPython's NEWS) are a few MB; beyond, the newest entries
// come first and the rest is cut.
const maxChangelogBytes = 4 << 20

// changelogNames are the file names looked for, case-insensitively, in
// the package folder and its docs/ folder, in order of preference.
var changelogNames = []string{"changelog", "changes", "history", "news", "releases", "release-notes", "release_notes"}

// changelogExts are the extensions a changelog file may carry.
var changelogExts = []string{"", ".md", ".markdown", ".rst", ".txt", ".adoc"}

// ReadChangelog finds and parses the changelog the package version ships
// (CHANGELOG.md, CHANGES.rst, HISTORY.md, NEWS…, at its root or under
// docs/; for a Python wheel, a changelog section of its METADATA
// description). It returns nil, nil when the package ships none. Symlinks
// are not followed: nothing outside the package is read.
func ReadChangelog(p Package) (*Changelog, error) {
	if p.Dir == "" || p.Stdlib {
		return nil, nil
	}
	if p.Ecosystem == "python" {
		// A wheel's folder is site-packages (or gno's copy of one): only
		// the dist's own METADATA belongs to it.
		return pythonChangelog(p.Dir, p.Name, p.Version), nil
	}
	for _, dir := range []string{"", "docs", "doc"} {
		if dir != "" {
			// A docs folder that is a link could lead anywhere.
			if fi, err := os.Lstat(filepath.Join(p.Dir, dir)); err != nil || !fi.IsDir() {
				continue
			}
		}
		ents, err := os.ReadDir(filepath.Join(p.Dir, dir))
		if err != nil {
			continue
		}
		if name := pickChangelog(ents); name != "" {
			rel := filepath.ToSlash(filepath.Join(dir, name))
			text, err := readCapped(filepath.Join(p.Dir, dir, name), maxChangelogBytes)
			if err != nil {
				return nil, fmt.Errorf("changelog %s: %w", rel, err)
			}
			c := ParseChangelog(text)
			c.File = rel
			return c, nil
		}
	}
	return nil, nil
}

// pickChangelog chooses the changelog among a folder's regular files.
func pickChangelog(ents []os.DirEntry) string {
	best, bestRank := "", len(changelogNames)*len(changelogExts)
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		low := strings.ToLower(e.Name())
		for i, n := range changelogNames {
			ext, ok := strings.CutPrefix(low, n)
			if j := slices.Index(changelogExts, ext); ok && j >= 0 && i*len(changelogExts)+j < bestRank {
				best, bestRank = e.Name(), i*len(changelogExts)+j
			}
		}
	}
	return best
}

// readCapped reads a regular file up to max bytes, cut at a line end.
func readCapped(path string, max int64) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return "", err
	}
	if int64(len(b)) == max {
		if i := bytes.LastIndexByte(b, '\n'); i > 0 {
			b = b[:i+1]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// pythonChangelog looks for a changelog section in a wheel's METADATA
// description (many projects append their HISTORY to the README there).
func pythonChangelog(dir, name, version string) *Changelog {
	ents, _ := os.ReadDir(dir)
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(s)) }
	want := norm(name + "-" + version + ".dist-info")
	for _, e := range ents {
		if !e.IsDir() || norm(e.Name()) != want {
			continue
		}
		m := filepath.Join(dir, e.Name(), "METADATA")
		text, err := readCapped(m, maxChangelogBytes)
		if err != nil {
			continue
		}
		// The body follows the first blank line of the headers.
		_, body, ok := strings.Cut(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n")
		if !ok {
			continue
		}
		c := ParseChangelog(changelogSection(body))
		if c.Known {
			c.File = filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(m)), "METADATA"))
			return c
		}
	}
	return nil
}

// changelogSection is the part of a description from its first
// changelog heading on ("Changelog", "Release History"…); "" when none.
func changelogSection(text string) string {
	lines := strings.Split(text, "\n")
	for _, h := range headings(lines) {
		t := strings.ToLower(strings.Trim(h.text, "[]*_ :"))
		for _, w := range []string{"changelog", "change log", "changes", "history", "release history", "release notes", "news", "what's new"} {
			if t == w {
				return strings.Join(lines[h.line:], "\n")
			}
		}
	}
	return ""
}

// heading is one heading line of a Markdown or reStructuredText text.
type heading struct {
	line  int    // index of the heading's text line
	end   int    // index of the first line after it (underline included)
	text  string // its text, without # marks
	level int    // 1-6 for ATX; 10+ for setext, by underline character
}

// setextRank orders underline characters as reStructuredText documents
// usually use them; Markdown's setext has only = and -.
var setextRank = map[byte]int{'=': 0, '-': 1, '~': 2, '^': 3, '*': 4, '+': 5, '#': 6, '"': 7, '`': 8, '.': 9, '_': 10, ':': 11, '\'': 12}

// headings finds ATX (#) and setext/rst (underlined, optionally
// overlined) headings, outside fenced code.
func headings(lines []string) []heading {
	var hs []heading
	fence := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if len(l)-len(t) < 4 && strings.HasPrefix(t, "#") {
			n := len(t) - len(strings.TrimLeft(t, "#"))
			rest := t[n:]
			if n <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				hs = append(hs, heading{line: i, end: i + 1, text: strings.TrimSpace(strings.TrimRight(rest, "# ")), level: n})
				continue
			}
		}
		if t == "" || i+1 >= len(lines) || l != t {
			continue
		}
		u := strings.TrimRight(lines[i+1], " \t\r")
		if c, ok := underline(u); ok && utf8.RuneCountInString(u) >= min(3, utf8.RuneCountInString(t)) {
			if _, isLine := underline(t); isLine {
				continue // an overline: the title is on the next line
			}
			h := heading{line: i, end: i + 2, text: t, level: 10 + setextRank[c]}
			// An rst overline above the title makes it a different level.
			if i > 0 && strings.TrimRight(lines[i-1], " \t\r") == u {
				h.level += 20
			}
			hs = append(hs, h)
			i++
		}
	}
	return hs
}

// underline reports whether s is one punctuation character repeated (at
// least 3), and which.
func underline(s string) (byte, bool) {
	if len(s) < 3 {
		return 0, false
	}
	c := s[0]
	if _, ok := setextRank[c]; !ok {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != c {
			return 0, false
		}
	}
	return c, true
}

// versionInHeading finds the version a heading names: "[1.2.0] - date",
// "v1.2.0 (date)", "Version 1.2", "cobra 1.8.1 / 2024-06-01",
// "[v2.0.0](https://…)", "Release 3.1.0"; "" when none. A version needs
// a dot ("1.2") unless written after "version"/"release"/"v".
var versionInHeading = regexp.MustCompile(`(?i)^(?:[^\s\d]*[\s@/-]+){0,3}?(?:\[|\()?(?:(?:version|release|rel\.?|ver\.?)\s*:?\s*)?(v)?(\d+(?:\.\d+){0,3}(?:[-.+]?(?:alpha|beta|rc|pre|preview|dev|post|a|b|c)\.?\d*)?(?:[-+][0-9a-z][0-9a-z.\-]*)?)(?:\]|\)|\s|:|,|$)`)

// headingVersion extracts a version from a heading's text.
func headingVersion(text string) string {
	t := strings.Trim(strings.TrimSpace(text), "*_`")
	m := versionInHeading.FindStringSubmatchIndex(t)
	if m == nil {
		return ""
	}
	v := t[m[4]:m[5]]
	prefix := strings.ToLower(t[:m[4]])
	if !strings.Contains(v, ".") && m[2] < 0 && !strings.Contains(prefix, "version") && !strings.Contains(prefix, "release") {
		return ""
	}
	// A date ("2024-01-02") or a year alone is not a version.
	if isDateLike(v) {
		return ""
	}
	return v
}

// isDateLike reports a token that reads as a date rather than a
// version: 2024-01-02, 2024.01.02 with a four-digit year first.
func isDateLike(v string) bool {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '.' })
	if len(parts) == 3 && len(parts[0]) == 4 && len(parts[1]) == 2 && len(parts[2]) == 2 {
		y, err := strconv.Atoi(parts[0])
		return err == nil && y >= 1990 && y <= 2100
	}
	return false
}

// ParseChangelog splits a changelog into its version sections. The
// entry level is the heading level most used by headings naming a
// version (Keep a Changelog's "## [1.2.0]", "## v1.2.0 (date)", rst's
// underlined "1.2.0", "# Version 1.2"…); an entry runs to the next
// heading of that level or above. A text with no such heading is an
// unknown format: Known false and no entries, never an error.
func ParseChangelog(text string) *Changelog {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	hs := headings(lines)
	count := map[int]int{}
	for _, h := range hs {
		if headingVersion(h.text) != "" {
			count[h.level]++
		}
	}
	level, best := 0, 0
	for l, n := range count {
		if n > best || n == best && l < level {
			level, best = l, n
		}
	}
	c := &Changelog{Entries: []ChangelogEntry{}}
	if best == 0 {
		return c
	}
	c.Known = true
	for i, h := range hs {
		if h.level != level {
			continue
		}
		v := headingVersion(h.text)
		if v == "" {
			continue
		}
		end := len(lines)
		for _, n := range hs[i+1:] {
			if n.level == level || rankAbove(n.level, level) {
				end = n.line
				if n.level >= 30 { // an rst overline sits one line above
					end--
				}
				break
			}
		}
		body := strings.Join(lines[min(h.end, end):max(end, h.end)], "\n")
		c.Entries = append(c.Entries, ChangelogEntry{Version: v, Title: h.text, Text: strings.Trim(body, "\n")})
	}
	return c
}

// rankAbove reports whether heading level a ranks above b: ATX by its
// number; a setext or rst heading above any ATX one of level ≥ 2 is not
// decided here (mixed styles are rare), so only the same family counts.
func rankAbove(a, b int) bool {
	if (a < 10) != (b < 10) {
		return false
	}
	if a < 10 {
		return a < b
	}
	return false // rst levels are ordered by first use, not by character
}

// CompareVersions orders two version strings the way the ecosystems'
// release numbers mostly agree: numeric parts compared as numbers, a
// leading "v" ignored, a pre-release (1.2.0-rc.1, 1.2.0rc1, 1.2.0b2)
// before its release; what cannot be compared falls back to text.
func CompareVersions(a, b string) int {
	na, pa := splitVersion(a)
	nb, pb := splitVersion(b)
	for i := 0; i < max(len(na), len(nb)); i++ {
		x, y := 0, 0
		if i < len(na) {
			x = na[i]
		}
		if i < len(nb) {
			y = nb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case pa == pb:
		return 0
	case pa == "":
		return 1
	case pb == "":
		return -1
	}
	return strings.Compare(pa, pb)
}

// splitVersion returns a version's numeric release parts and the rest
// (its pre-release tag, lowercased; "" for a release). A "+build" or a
// Python ".postN" / "-N" revision counts as a release.
func splitVersion(v string) ([]int, string) {
	v = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(v), "v"), "V")
	v, _, _ = strings.Cut(v, "+")
	var nums []int
	i := 0
	for i < len(v) {
		j := i
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		if j == i {
			break
		}
		n, _ := strconv.Atoi(v[i:min(j, i+9)])
		nums = append(nums, n)
		i = j
		if i < len(v) && v[i] == '.' && i+1 < len(v) && v[i+1] >= '0' && v[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	rest := strings.ToLower(strings.TrimLeft(v[i:], ".-_"))
	if strings.HasPrefix(rest, "post") {
		rest = ""
	}
	return nums, rest
}

// EntriesBetween returns the entries of versions after from up to and
// including to (from < v ≤ to), in the changelog's order.
func (c *Changelog) EntriesBetween(from, to string) []ChangelogEntry {
	var out []ChangelogEntry
	for _, e := range c.Entries {
		if CompareVersions(e.Version, from) > 0 && CompareVersions(e.Version, to) <= 0 {
			out = append(out, e)
		}
	}
	return out
}
