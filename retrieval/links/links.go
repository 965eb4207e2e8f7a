// Package links finds the links between notes in Markdown text: Obsidian
// [[wikilinks]] (with |alias, #heading and ^block parts), ![[embeds]],
// relative Markdown links [text](path.md) and gno:// links.
//
// Links inside code spans, fenced code blocks and YAML front matter are not
// links. Each link keeps its 1-based line and its byte range in the text,
// so a rename can rewrite it in place.
//
// The scanner is written by hand, line by line, rather than on top of a
// full Markdown parse: wikilinks are not CommonMark, and a second goldmark
// parse of every document would cost about as much as chunking does.
//
// It owns link syntax and resolution by name; it must not import anything
// of gno or read files.
package links

import (
	"net/url"
	"path"
	"strings"
)

// Kind is the syntax a link was written in.
type Kind uint8

// Link kinds.
const (
	Wiki     Kind = iota // [[target#heading|alias]]
	Embed                // ![[target]]
	Markdown             // [text](path.md#fragment)
	URI                  // [text](gno://collection/path) or a bare gno:// URI
)

var kindNames = [...]string{"wiki", "embed", "markdown", "uri"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// ParseKind is the inverse of Kind.String; unknown names give Wiki.
func ParseKind(s string) Kind {
	for i, n := range kindNames {
		if n == s {
			return Kind(i)
		}
	}
	return Wiki
}

// Link is one link found in a text.
type Link struct {
	Kind Kind
	// Target is the note named, as written but URL-decoded (Markdown
	// links), without fragment or alias. Empty for a link to a heading
	// of the same note ([[#Heading]]).
	Target string
	// Fragment is the heading or ^block after '#', without the '#'.
	Fragment string
	// Alias is the display text: |alias of a wikilink, [text] of a
	// Markdown link.
	Alias string
	// Line is the 1-based line of the link.
	Line int
	// Start and End are the byte range of the whole link in the text.
	Start, End int
	// TargetStart and TargetEnd are the byte range of the target as it is
	// written (still URL-encoded in a Markdown link).
	TargetStart, TargetEnd int
}

// maxTarget bounds a target: longer ones are prose, not file names.
const maxTarget = 1024

// Extract returns the links of a Markdown text in order. It accepts LF or
// CRLF line ends and skips a leading YAML front matter block.
func Extract(text string) []Link {
	var out []Link
	off, line := 0, 1
	if fmEnd, fmLines := frontMatterEnd(text); fmEnd > 0 {
		off, line = fmEnd, 1+fmLines
	}
	var fence string // the open fence's marker run, "" outside a fence
	for off < len(text) {
		nl := strings.IndexByte(text[off:], '\n')
		end := len(text)
		next := len(text)
		if nl >= 0 {
			end = off + nl
			next = end + 1
		}
		l := strings.TrimSuffix(text[off:end], "\r")
		if f := fenceMarker(l); f != "" {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), f[:1])) == "":
				fence = ""
			}
		} else if fence == "" {
			out = scanLine(out, text, off, off+len(l), line)
		}
		off = next
		line++
	}
	return out
}

// frontMatterEnd returns the byte offset just past a leading front matter
// block ("---" ... "---" or "..."), and the number of lines it spans; 0
// when there is none.
func frontMatterEnd(text string) (int, int) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return 0, 0
	}
	off, lines := len(first)+1, 1
	for {
		nl := strings.IndexByte(rest, '\n')
		l := rest
		if nl >= 0 {
			l = rest[:nl]
		}
		lines++
		if t := strings.TrimRight(l, " \t\r"); t == "---" || t == "..." {
			if nl < 0 {
				return off + len(l), lines
			}
			return off + nl + 1, lines
		}
		if nl < 0 {
			return 0, 0 // never closed: not front matter
		}
		off += nl + 1
		rest = rest[nl+1:]
	}
}

// fenceMarker returns the backtick or tilde run opening a fenced code line
// (at most three spaces of indent), or "".
func fenceMarker(l string) string {
	i := 0
	for i < len(l) && i < 4 && l[i] == ' ' {
		i++
	}
	if i > 3 || i >= len(l) || (l[i] != '`' && l[i] != '~') {
		return ""
	}
	c := l[i]
	j := i
	for j < len(l) && l[j] == c {
		j++
	}
	if j-i < 3 {
		return ""
	}
	if c == '`' && strings.IndexByte(l[j:], '`') >= 0 {
		return "" // an info string with a backtick is not a fence
	}
	return l[i:j]
}

// scanLine appends the links of text[start:end], one line.
func scanLine(out []Link, text string, start, end, line int) []Link {
	for i := start; i < end; {
		switch c := text[i]; {
		case c == '`':
			i = skipCodeSpan(text, i, end)
		case c == '\\':
			i += 2
		case c == '<' && hasPrefixFold(text[i:end], "<code>"):
			// HTML code, as generated API docs write it, holds no links.
			j := i + len("<code>")
			for j < end && !hasPrefixFold(text[j:end], "</code>") {
				j++
			}
			i = min(j+len("</code>"), end)
		case c == '[' && i+1 < end && text[i+1] == '[':
			embed := i > start && text[i-1] == '!'
			l, next, ok := wikiLink(text, i, end, embed)
			if ok {
				l.Line = line
				out = append(out, l)
			}
			i = next
		case c == '[':
			l, next, ok := mdLink(text, i, end)
			if ok {
				l.Line = line
				out = append(out, l)
			}
			i = next
		case c == 'g' && strings.HasPrefix(text[i:end], "gno://") && (i == start || !isWordByte(text[i-1])):
			j := i
			for j < end && !strings.ContainsRune(" \t<>()[]\"'`", rune(text[j])) {
				j++
			}
			raw := strings.TrimRight(text[i:j], ".,;:!?")
			if t, err := url.PathUnescape(raw); err == nil && len(raw) > len("gno://") {
				out = append(out, Link{Kind: URI, Target: t, Line: line, Start: i, End: i + len(raw), TargetStart: i, TargetEnd: i + len(raw)})
			}
			i += max(len(raw), 1)
		default:
			i++
		}
	}
	return out
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipCodeSpan returns the offset past the code span opening at i, or past
// the backtick run when it never closes (then it is literal text).
func skipCodeSpan(text string, i, end int) int {
	j := i
	for j < end && text[j] == '`' {
		j++
	}
	run := j - i
	for k := j; k < end; {
		if text[k] != '`' {
			k++
			continue
		}
		m := k
		for m < end && text[m] == '`' {
			m++
		}
		if m-k == run {
			return m
		}
		k = m
	}
	return j
}

// wikiLink parses [[...]] at i.
func wikiLink(text string, i, end int, embed bool) (Link, int, bool) {
	closeAt := strings.Index(text[i+2:end], "]]")
	if closeAt < 0 {
		return Link{}, i + 2, false
	}
	inner := text[i+2 : i+2+closeAt]
	next := i + 2 + closeAt + 2
	if inner == "" || strings.Contains(inner, "[[") || len(inner) > maxTarget {
		return Link{}, i + 2, false
	}
	l := Link{Kind: Wiki, Start: i, End: next}
	if embed {
		l.Kind = Embed
		l.Start = i - 1
	}
	body := inner
	if p := strings.IndexByte(body, '|'); p >= 0 {
		l.Alias = strings.TrimSpace(body[p+1:])
		body = body[:p]
		// Inside a Markdown table Obsidian escapes the alias pipe
		// ([[A\|B]], ![[img.png\|100]]): the backslash is not the
		// target's.
		body = strings.TrimSuffix(body, `\`)
	}
	target := body
	if p := strings.IndexByte(body, '#'); p >= 0 {
		l.Fragment = strings.TrimSpace(body[p+1:])
		target = body[:p]
	}
	l.TargetStart = i + 2
	l.TargetEnd = l.TargetStart + len(target)
	l.Target = strings.TrimSpace(target)
	if l.Target == "" && l.Fragment == "" {
		return Link{}, next, false
	}
	return l, next, true
}

// mdLink parses [text](dest) at i, keeping only links that name a local
// file (relative path) or a gno:// document.
func mdLink(text string, i, end int) (Link, int, bool) {
	// The link text may hold code spans and nested brackets (images).
	depth, j := 0, i
	for ; j < end; j++ {
		switch text[j] {
		case '\\':
			j++
		case '`':
			j = skipCodeSpan(text, j, end) - 1
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if j >= end || j+1 >= end || text[j+1] != '(' {
		return Link{}, i + 1, false
	}
	label := text[i+1 : j]
	ds := j + 2
	var dest string
	var destStart, destEnd, next int
	if ds < end && text[ds] == '<' {
		c := strings.IndexByte(text[ds:end], '>')
		if c < 0 {
			return Link{}, i + 1, false
		}
		destStart, destEnd = ds+1, ds+c
		rp := strings.IndexByte(text[ds+c:end], ')')
		if rp < 0 {
			return Link{}, i + 1, false
		}
		next = ds + c + rp + 1
	} else {
		k, paren := ds, 0
		for k < end {
			c := text[k]
			if c == ' ' || c == '\t' {
				break
			}
			if c == '(' {
				paren++
			} else if c == ')' {
				if paren == 0 {
					break
				}
				paren--
			}
			k++
		}
		destStart, destEnd = ds, k
		rp := strings.IndexByte(text[k:end], ')')
		if rp < 0 {
			return Link{}, i + 1, false
		}
		next = k + rp + 1
	}
	dest = text[destStart:destEnd]
	if h := strings.IndexByte(dest, '#'); h >= 0 {
		destEnd = destStart + h // the target ends where the fragment starts
	}
	l := Link{Kind: Markdown, Alias: strings.TrimSpace(label), Start: i, End: next, TargetStart: destStart, TargetEnd: destEnd}
	if i > 0 && text[i-1] == '!' {
		l.Start = i - 1
	}
	if dest == "" || len(dest) > maxTarget {
		return Link{}, next, false
	}
	if strings.HasPrefix(strings.ToLower(dest), "gno://") {
		t, err := url.PathUnescape(dest)
		if err != nil {
			return Link{}, next, false
		}
		l.Kind = URI
		l.Target, l.Fragment = cutFragment(t)
		return l, next, true
	}
	if hasScheme(dest) || strings.HasPrefix(dest, "//") {
		return Link{}, next, false // a web or mail link
	}
	raw, frag := cutFragment(dest)
	t, err := url.PathUnescape(raw)
	if err != nil {
		t = raw
	}
	l.Target, l.Fragment = t, frag
	if frag != "" {
		if f, err := url.PathUnescape(frag); err == nil {
			l.Fragment = f
		}
	}
	return l, next, true
}

func cutFragment(s string) (string, string) {
	t, f, _ := strings.Cut(s, "#")
	return t, f
}

// hasScheme reports a URL scheme such as http: or mailto: (a letter, then
// letters, digits, '+', '-' or '.', then ':').
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return true
		default:
			return false
		}
	}
	return false
}

// noteExts are the extensions of files gno indexes as notes.
var noteExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".txt": true, ".text": true}

// Key is the lookup name of a target: its base name, lowercased, without a
// note extension. Resolution finds candidates by key, so every way of
// naming a note (path, name, alias) meets on it.
func Key(target string) string {
	base := path.Base(strings.ReplaceAll(target, "\\", "/"))
	if base == "." || base == "/" {
		return ""
	}
	if ext := path.Ext(base); noteExts[strings.ToLower(ext)] {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.ToLower(strings.TrimSpace(base))
}

// IsAttachment reports a target that names a file gno does not index as a
// note (an image, a PDF): such links are kept but are not graph edges and
// not "unresolved".
func IsAttachment(target string) bool {
	ext := strings.ToLower(path.Ext(target))
	if len(ext) < 2 || len(ext) > 6 || noteExts[ext] {
		return false
	}
	letter := false
	for _, c := range ext[1:] {
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// IsNoteExt reports whether ext (with its dot, any case) is a note
// extension.
func IsNoteExt(ext string) bool { return noteExts[strings.ToLower(ext)] }
