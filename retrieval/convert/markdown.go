package convert

import (
	"bytes"
	"encoding/xml"
	"strings"

	"golang.org/x/net/html/charset"
)

// xmlUnmarshal decodes XML in any declared charset. encoding/xml expands
// no custom entities, so "billion laughs" documents cost nothing.
func xmlUnmarshal(data []byte, v any) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charset.NewReaderLabel
	return d.Decode(v)
}

func newXMLDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charset.NewReaderLabel
	d.Strict = false
	return d
}

// attr returns the value of the attribute with local name local.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// escapeLine keeps a line of extracted text from turning into Markdown
// structure: a leading '#', fence, HTML tag, quote, or a setext
// underline would otherwise change headings and chunking.
func escapeLine(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t == "" {
		return ""
	}
	switch t[0] {
	case '#', '<', '>', '|':
		return `\` + t
	case '`', '~':
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			return `\` + t
		}
	case '=', '-', '*', '_', '+':
		if strings.Trim(t, "=-*_+ ") == "" || (len(t) > 1 && t[1] == ' ') {
			return `\` + t
		}
	}
	if i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && i < 10 && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t') {
		return t[:i] + `\` + t[i:]
	}
	return t
}

// escapeText escapes every line of a block of extracted text and drops
// control characters other than tab and newline.
func escapeText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || r == 0xfffe || r == 0xffff {
			return -1
		}
		return r
	}, strings.ReplaceAll(s, "\r\n", "\n"))
	lines := strings.Split(strings.ReplaceAll(s, "\r", "\n"), "\n")
	for i, l := range lines {
		lines[i] = escapeLine(strings.TrimRight(l, " \t"))
	}
	return strings.Join(lines, "\n")
}

// cell makes text safe for one table cell: one line, pipes escaped.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// writeTable writes rows as a GFM table, the first row as the header. Rows
// are padded to the widest; empty rows are dropped, and an empty table
// writes nothing.
func writeTable(b *strings.Builder, rows [][]string) {
	kept := rows[:0:0]
	for _, r := range rows {
		for _, c := range r {
			if strings.TrimSpace(c) != "" {
				kept = append(kept, r)
				break
			}
		}
	}
	rows = kept
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return
	}
	for i, r := range rows {
		b.WriteByte('|')
		for j := 0; j < width; j++ {
			v := ""
			if j < len(r) {
				v = cell(r[j])
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteByte('\n')
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
}

// blocks joins Markdown blocks with one blank line between them.
type blocks struct{ b strings.Builder }

func (m *blocks) add(s string) {
	s = strings.Trim(s, "\n")
	if s == "" {
		return
	}
	if m.b.Len() > 0 {
		m.b.WriteString("\n\n")
	}
	m.b.WriteString(s)
}

func (m *blocks) String() string {
	if m.b.Len() == 0 {
		return ""
	}
	return m.b.String() + "\n"
}
