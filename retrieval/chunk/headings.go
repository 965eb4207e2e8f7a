package chunk

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Heading is one heading of a Markdown text.
type Heading struct {
	Level int
	// Text is the heading's plain text, as a [[Note#Heading]] link names it.
	Text string
	// Line is the 1-based line the heading starts on.
	Line int
}

// Headings lists the headings of a Markdown text in order, parsed the way
// chunking parses them (so not the "#" lines of code blocks). Front matter
// is left to the caller.
func Headings(src string) []Heading {
	b := []byte(src)
	doc := md.Parser().Parse(text.NewReader(b))
	var out []Heading
	line, off := 1, 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		start := h.Lines().At(0).Start
		for ; off < start && off < len(b); off++ {
			if b[off] == '\n' {
				line++
			}
		}
		if t := headingText(h, b); t != "" {
			out = append(out, Heading{Level: h.Level, Text: t, Line: line})
		}
	}
	return out
}
