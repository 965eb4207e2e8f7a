// Package ingest turns the files of a collection into indexed documents:
// it walks the folder, normalises text, reads front matter, chunks, and
// syncs the store incrementally by content hash.
//
// It owns the sync and Indexes, the one rule for "does this collection
// index this path"; it must not write user files (package note does) or
// run SQL (it calls store's batches).
package ingest

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/links"
	"gopkg.in/yaml.v3"
)

// Normalize returns src as clean UTF-8 with LF line ends and no BOM, and
// the number of invalid bytes replaced by U+FFFD. A NUL byte counts as
// invalid too: it is no text, and PostgreSQL's text cannot hold it, so
// both stores index the same content.
func Normalize(src []byte) (string, int) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	invalid := 0
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				invalid++
				b.WriteRune(utf8.RuneError)
			} else if c == '\r' {
				b.WriteByte('\n')
				if i+1 < len(src) && src[i+1] == '\n' {
					i++
				}
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			invalid++
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		b.Write(src[i : i+size])
		i += size
	}
	return b.String(), invalid
}

// FrontMatter is the metadata a document may declare in YAML front matter.
type FrontMatter struct {
	Title string
	Tags  []string
	Lang  string
	// Aliases are other names links may call the note by.
	Aliases []string
	// Declares is what a governing note governs (`governs`) and its place
	// among them (`system`, `subsystems`).
	Declares links.Declarations
}

// SplitFrontMatter separates a leading "---" YAML block from the body. It
// returns the parsed fields, the body offset in bytes, and the number of
// lines before the body. Malformed YAML is treated as body text.
func SplitFrontMatter(text string) (FrontMatter, int) {
	var fm FrontMatter
	if !strings.HasPrefix(text, "---\n") {
		return fm, 0
	}
	rest := text[4:]
	end := -1
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			end = off
			if nl >= 0 {
				off += nl + 1
			} else {
				off = len(rest)
			}
			if end > MaxFrontMatter || flowDepth(rest[:end]) > maxFlowDepth {
				return FrontMatter{}, 0 // a YAML bomb, not metadata
			}
			var raw map[string]any
			if err := yaml.Unmarshal([]byte(rest[:end]), &raw); err != nil {
				return FrontMatter{}, 0
			}
			fm.Title = str(raw["title"])
			fm.Lang = strings.ToLower(str(raw["lang"]))
			if fm.Lang == "" {
				fm.Lang = strings.ToLower(str(raw["language"]))
			}
			fm.Tags = tags(raw["tags"])
			fm.Aliases = links.AliasesOf(raw)
			fm.Declares = links.DeclarationsOf(raw)
			return fm, 4 + off
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return FrontMatter{}, 0
}

// MaxFrontMatter bounds the YAML front matter gno parses: yaml.v3 checks
// duplicate keys in quadratic time (400k "k: v" lines never finished) and
// real metadata is a few hundred bytes. A larger block is body text.
const MaxFrontMatter = 64 << 10

// maxFlowDepth bounds "[" / "{" nesting in front matter; yaml.v3 takes
// seconds on 50k levels.
const maxFlowDepth = 64

// flowDepth is the deepest flow-collection nesting in s, ignoring quotes
// (an overestimate only makes gno skip pathological front matter).
func flowDepth(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// MaxTitleBytes bounds a document title: it is stored with every chunk
// and indexed, so a megabyte "# ..." line must not be copied into each.
const MaxTitleBytes = 512

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case nil:
		return ""
	default:
		return strings.TrimSpace(strings.Trim(strings.ReplaceAll(yamlString(t), "\n", " "), " "))
	}
}

func yamlString(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

// tags accepts a YAML list or a comma/space separated string, and returns
// normalised tags: lowercase, '#' stripped, unique.
func tags(v any) []string {
	var raw []string
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			raw = append(raw, str(x))
		}
	case string:
		raw = strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' })
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		t := NormalizeTag(r)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// NormalizeTag lowercases a tag and strips a leading '#' and spaces.
func NormalizeTag(t string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#")))
}

// Title picks a document title: front matter, else the first heading, else
// the file name without extension.
func Title(fm FrontMatter, body, rel string) string {
	if fm.Title != "" {
		return clip(fm.Title, MaxTitleBytes)
	}
	for _, line := range strings.SplitN(body, "\n", 200) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "# ") {
			return clip(strings.TrimSpace(strings.TrimRight(t[2:], "# ")), MaxTitleBytes)
		}
	}
	base := path.Base(rel)
	return strings.TrimSuffix(base, path.Ext(base))
}

// Mime returns the MIME type gno reports for a file extension.
func Mime(ext string) string {
	if f, ok := convert.ForExt(ext, true); ok {
		return f.Mime
	}
	return "text/plain"
}

// isBinary reports data that is not text: a NUL byte in its head.
func isBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
}
