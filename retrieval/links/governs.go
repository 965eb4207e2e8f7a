package links

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Governing notes: a note declares in its front matter what it governs
// (`governs:` globs) and where it sits (`system:` its parent, `subsystems:`
// its children), as NotarAI's specs do:
//
//	governs: [src/auth/**, "code:docs/auth/*.md"]
//	system: "[[System]]"
//	subsystems: ["[[Auth]]", billing.md]
//
// These are the explicit form of "this note describes those files"; a link
// is the implicit one. Govern.Matches is the one rule for "does this note
// govern this path".

// Declarations are what a note's front matter says it governs and where it
// sits among the other governing notes.
type Declarations struct {
	Governs []Govern
	// System names the parent note (a wikilink or path), "" when none.
	System string
	// Subsystems name the notes this one is the parent of.
	Subsystems []string
}

// Govern is one `governs` glob.
type Govern struct {
	// Collection is the collection the glob reads ("" for the note's own).
	Collection string
	// Glob is the pattern, slash-separated and relative to that
	// collection's root (doublestar syntax: ** crosses folders).
	Glob string
	// Problem says why the glob was refused ("" when it is usable): a
	// refused glob is kept so that answers can name it, and matches
	// nothing.
	Problem string
}

// MaxGoverns bounds the globs one note may declare; more are refused.
const MaxGoverns = 256

// DeclarationsOf reads the declarations of parsed front matter.
func DeclarationsOf(raw map[string]any) Declarations {
	var d Declarations
	for i, g := range stringList(raw["governs"]) {
		if i == MaxGoverns {
			d.Governs = append(d.Governs, Govern{Glob: g, Problem: "more than 256 governs globs"})
			break
		}
		d.Governs = append(d.Governs, ParseGovern(g))
	}
	if s := stringList(raw["system"]); len(s) > 0 {
		d.System = s[0]
	}
	d.Subsystems = stringList(raw["subsystems"])
	return d
}

// Declared reads the declarations of a note's text (front matter parsed
// here); malformed front matter declares nothing.
func Declared(text string) Declarations {
	end, _ := frontMatterEnd(text)
	if end == 0 || end > 64<<10 {
		return Declarations{}
	}
	first := strings.IndexByte(text, '\n') + 1
	block := text[first:end]
	if i := strings.LastIndex(strings.TrimRight(block, "\r\n"), "\n"); i >= 0 {
		block = block[:i+1]
	} else {
		return Declarations{}
	}
	if strings.Count(block, "[")+strings.Count(block, "{") > 64 {
		return Declarations{} // a YAML bomb, not metadata (see ingest)
	}
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(block), &raw); err != nil {
		return Declarations{}
	}
	return DeclarationsOf(raw)
}

// stringList accepts a YAML string or list of strings; wikilink brackets
// stay (the caller resolves names).
func stringList(v any) []string {
	var out []string
	add := func(x any) {
		if s, ok := x.(string); ok {
			if s = strings.TrimSpace(s); s != "" && len(s) <= maxTarget {
				out = append(out, s)
			}
		}
	}
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			add(x)
		}
	default:
		add(t)
	}
	return out
}

// ParseGovern reads one `governs` entry: `glob` (the note's collection) or
// `COLLECTION:glob`. A glob that could reach outside its collection (an
// absolute path, a drive letter, a `..` segment, a backslash) or that is
// not a valid pattern is refused: Problem says why.
func ParseGovern(s string) Govern {
	g := Govern{Glob: s}
	if c, rest, ok := strings.Cut(s, ":"); ok && collectionName(c) && len(c) > 1 {
		g.Collection, g.Glob = strings.ToLower(c), rest
	}
	switch {
	case g.Glob == "":
		g.Problem = "empty glob"
	case strings.HasPrefix(g.Glob, "/") || strings.HasPrefix(s, "/"):
		g.Problem = "an absolute path escapes the collection; write the glob relative to the collection root"
	case len(g.Glob) >= 2 && g.Glob[1] == ':' || strings.Contains(s, `:\`):
		g.Problem = "an absolute path escapes the collection; write the glob relative to the collection root"
	case strings.ContainsRune(g.Glob, '\\'):
		g.Problem = "use / between folders (a backslash is not a folder separator in a glob)"
	case hasDotDot(g.Glob):
		g.Problem = "a .. segment escapes the collection; write the glob relative to the collection root"
	case !doublestar.ValidatePattern(g.Glob):
		g.Problem = "not a valid glob"
	}
	if g.Problem == "" {
		g.Glob = strings.TrimPrefix(path.Clean(g.Glob), "./")
	}
	return g
}

// Matches reports whether the glob governs the file rel (slash-separated,
// relative to its collection's root) of collection; own is the governing
// note's collection. It is the one rule for "which notes govern this
// path".
func (g Govern) Matches(own, collection, rel string) bool {
	if g.Problem != "" {
		return false
	}
	c := g.Collection
	if c == "" {
		c = own
	}
	if c != collection {
		return false
	}
	ok, _ := doublestar.Match(g.Glob, rel)
	return ok
}

// String is the entry as written (COLLECTION:glob when it names one).
func (g Govern) String() string {
	if g.Collection != "" {
		return g.Collection + ":" + g.Glob
	}
	return g.Glob
}

func hasDotDot(glob string) bool {
	for _, seg := range strings.Split(glob, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// collectionName reports a string that can be a collection name (letters,
// digits, '.', '_', '-', at most 64), as config.ValidName checks.
func collectionName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// NameOf strips the brackets of a wikilink-style name ("[[System]]" →
// "System"), and its alias and heading, for resolution.
func NameOf(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
	}
	if i := strings.IndexByte(s, '|'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
