package convert

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// DOCX converts a Word document: paragraphs, headings (by style name or
// outline level), list items (indented by level) and tables. No Go library
// reads DOCX text with styles and tables without pulling in a document
// model we do not need, so this is a small streaming reader of
// word/document.xml and word/styles.xml.
func DOCX(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	a, err := openOOXML(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	styles, err := a.read("word/styles.xml", true)
	if err != nil {
		return nil, err
	}
	body, err := a.read("word/document.xml", false)
	if err != nil {
		return nil, err
	}
	links, err := a.externalLinks("word/document.xml")
	if err != nil {
		return nil, err
	}
	w := &docxWriter{headings: docxHeadingStyles(styles), links: links}
	if err := w.run(ctx, body); err != nil {
		return nil, err
	}
	return &Doc{Markdown: w.out.String(), Title: coreTitle(a)}, nil
}

// docxHeadingStyles maps paragraph style ids to heading levels: "Title"
// is 1, "heading N" is N, else the style's outline level.
func docxHeadingStyles(data []byte) map[string]int {
	out := map[string]int{"Title": 1}
	for i := 1; i <= 9; i++ {
		out["Heading"+strconv.Itoa(i)] = i
	}
	if data == nil {
		return out
	}
	var s struct {
		Style []struct {
			ID   string `xml:"styleId,attr"`
			Type string `xml:"type,attr"`
			Name struct {
				Val string `xml:"val,attr"`
			} `xml:"name"`
			Outline *struct {
				Val string `xml:"val,attr"`
			} `xml:"pPr>outlineLvl"`
		} `xml:"style"`
	}
	if xmlUnmarshal(data, &s) != nil {
		return out
	}
	for _, st := range s.Style {
		name := strings.ToLower(st.Name.Val)
		switch {
		case name == "title":
			out[st.ID] = 1
		case strings.HasPrefix(name, "heading "):
			if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && n >= 1 {
				out[st.ID] = n
			}
		case st.Outline != nil:
			if n, err := strconv.Atoi(st.Outline.Val); err == nil && n >= 0 && n < 9 {
				out[st.ID] = n + 1
			}
		}
	}
	return out
}

type docxWriter struct {
	headings map[string]int
	links    map[string]string // relationship id to external URL
	linkURL  string            // URL of the open hyperlink
	linkAt   int               // paragraph text offset where it opened
	out      blocks
	// paragraph state
	text  strings.Builder
	style string
	list  bool
	ilvl  int
	inT   bool
	// table state: a stack, since cells may hold tables
	tables [][][]string
	prev   string // kind of the last block: "list" keeps items together
}

func (w *docxWriter) run(ctx context.Context, body []byte) error {
	d := newXMLDecoder(body)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return &Error{Reason: ReasonTimeout, Err: ctx.Err()}
		}
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fail(ReasonCorrupt, "word/document.xml: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			w.start(t)
		case xml.EndElement:
			w.end(t.Name.Local)
		case xml.CharData:
			if w.inT {
				w.text.Write(t)
			}
		}
	}
}

func (w *docxWriter) start(t xml.StartElement) {
	switch t.Name.Local {
	case "p":
		w.text.Reset()
		w.style, w.list, w.ilvl = "", false, 0
	case "pStyle":
		w.style = attr(t, "val")
	case "numPr":
		w.list = true
	case "ilvl":
		w.ilvl, _ = strconv.Atoi(attr(t, "val"))
	case "t":
		w.inT = true
	case "hyperlink":
		w.linkURL, w.linkAt = w.links[attr(t, "id")], w.text.Len()
	case "tab":
		w.text.WriteByte('\t')
	case "br", "cr":
		w.text.WriteByte(' ')
	case "tbl":
		w.tables = append(w.tables, nil)
	case "tr":
		if k := len(w.tables) - 1; k >= 0 {
			w.tables[k] = append(w.tables[k], nil)
		}
	case "tc":
		if k := len(w.tables) - 1; k >= 0 && len(w.tables[k]) > 0 {
			r := len(w.tables[k]) - 1
			w.tables[k][r] = append(w.tables[k][r], "")
		}
	}
}

func (w *docxWriter) end(local string) {
	switch local {
	case "t":
		w.inT = false
	case "hyperlink":
		if w.linkURL != "" && w.text.Len() > w.linkAt {
			s := w.text.String()
			w.text.Reset()
			label := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s[w.linkAt:])
			w.text.WriteString(s[:w.linkAt] + "[" + label + "](" + w.linkURL + ")")
		}
		w.linkURL = ""
	case "p":
		w.paragraph()
	case "tbl":
		k := len(w.tables) - 1
		if k < 0 {
			return
		}
		rows := w.tables[k]
		w.tables = w.tables[:k]
		if k > 0 {
			// A nested table becomes text of the enclosing cell.
			var parts []string
			for _, r := range rows {
				parts = append(parts, strings.Join(r, " "))
			}
			w.appendCell(strings.Join(parts, "; "))
			return
		}
		var b strings.Builder
		writeTable(&b, rows)
		w.out.add(b.String())
		w.prev = "table"
	}
}

func (w *docxWriter) appendCell(s string) {
	k := len(w.tables) - 1
	if k < 0 || len(w.tables[k]) == 0 {
		return
	}
	row := w.tables[k][len(w.tables[k])-1]
	if len(row) == 0 {
		return
	}
	if row[len(row)-1] != "" {
		row[len(row)-1] += " "
	}
	row[len(row)-1] += s
}

func (w *docxWriter) paragraph() {
	text := strings.TrimSpace(strings.Join(strings.Fields(w.text.String()), " "))
	w.text.Reset()
	if len(w.tables) > 0 {
		if text != "" {
			w.appendCell(text)
		}
		return
	}
	if text == "" {
		return
	}
	if lvl := w.headings[w.style]; lvl > 0 {
		w.out.add(strings.Repeat("#", min(lvl, 6)) + " " + text)
		w.prev = "heading"
		return
	}
	if w.list {
		item := strings.Repeat("  ", min(w.ilvl, 8)) + "- " + text
		if w.prev == "list" {
			w.out.b.WriteString("\n" + item)
		} else {
			w.out.add(item)
		}
		w.prev = "list"
		return
	}
	w.out.add(escapeLine(text))
	w.prev = "p"
}

// coreTitle reads dc:title from docProps/core.xml, if any.
func coreTitle(a *archive) string {
	data, err := a.read("docProps/core.xml", true)
	if err != nil || data == nil {
		return ""
	}
	var c struct {
		Title string `xml:"title"`
	}
	if xmlUnmarshal(data, &c) != nil {
		return ""
	}
	return strings.TrimSpace(c.Title)
}
