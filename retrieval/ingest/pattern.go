package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// includeSet is a collection's include patterns, prepared once for a
// walk. A pattern that only names file endings — "**/*.md", or the
// default of `gno collection add`, "**/*.{md,markdown,…}" — is checked by
// suffix without the matcher: doublestar per file was a tenth of an
// unchanged sync's CPU at a million files (bench/RESULTS.md, issue 30).
type includeSet struct {
	endings []string // of the patterns that only name endings
	globs   []string // the other patterns, for doublestar
}

func newIncludeSet(patterns []string) includeSet {
	var s includeSet
	for _, g := range patterns {
		if e, ok := fileEndings(g); ok {
			s.endings = append(s.endings, e...)
		} else {
			s.globs = append(s.globs, g)
		}
	}
	return s
}

// match reports whether rel (slash-separated, relative to the root) is
// matched by one of the patterns, as doublestar.Match answers.
func (s includeSet) match(rel string) bool {
	for _, e := range s.endings {
		if strings.HasSuffix(rel, e) {
			return true
		}
	}
	for _, g := range s.globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// globMeta are the characters doublestar reads as more than themselves.
const globMeta = "*?[]{}\\/,"

// fileEndings reports whether g is "**/*" followed by a literal ending
// with no folder separator ("**/*.md"), or by one group of literal
// alternatives with literal text around it ("**/*.{md,txt}"), and returns
// the endings: such a pattern matches exactly the paths with one of them
// (the `*` takes the rest of the file name, `**/` any folders above it).
// Anything else (classes, nested groups, an empty ending, an ending that
// is not UTF-8: the matcher reads runes) is left to the matcher;
// FuzzIncludeSet checks the two agree.
func fileEndings(g string) ([]string, bool) {
	rest, ok := strings.CutPrefix(g, "**/*")
	if !ok || rest == "" {
		return nil, false
	}
	open := strings.IndexByte(rest, '{')
	if open < 0 {
		if strings.ContainsAny(rest, globMeta) {
			return nil, false
		}
		return []string{rest}, utf8.ValidString(rest)
	}
	end := strings.IndexByte(rest, '}')
	if end < open {
		return nil, false
	}
	pre, alts, post := rest[:open], rest[open+1:end], rest[end+1:]
	if strings.ContainsAny(pre, globMeta) || strings.ContainsAny(post, globMeta) || strings.ContainsAny(alts, strings.TrimSuffix(globMeta, ",")) {
		return nil, false
	}
	var out []string
	for _, a := range strings.Split(alts, ",") {
		e := pre + a + post
		if e == "" || !utf8.ValidString(e) {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

func excluded(patterns []string, rel string) bool {
	for _, g := range patterns {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(strings.TrimSuffix(g, "/**"), strings.TrimSuffix(rel, "/")); ok && strings.HasSuffix(g, "/**") {
			return true
		}
	}
	return false
}
