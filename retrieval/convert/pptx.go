package convert

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PPTX converts a slide deck: a "## Slide N: title" section per slide in
// presentation order, its text as list items, its tables, and its
// speaker notes under "### Notes".
func PPTX(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	a, err := openOOXML(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	pres, err := a.read("ppt/presentation.xml", false)
	if err != nil {
		return nil, err
	}
	var p struct {
		IDs []struct {
			RID string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sldIdLst>sldId"`
	}
	if err := xmlUnmarshal(pres, &p); err != nil {
		return nil, fail(ReasonCorrupt, "ppt/presentation.xml: %v", err)
	}
	rels, err := a.rels("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	if len(p.IDs) > lim.MaxPages {
		return nil, fail(ReasonTooBig, "%d slides, more than %d", len(p.IDs), lim.MaxPages)
	}
	var out blocks
	for i, id := range p.IDs {
		part, ok := rels[id.RID]
		if !ok {
			continue
		}
		xmlData, err := a.read(part, true)
		if err != nil {
			return nil, err
		}
		if xmlData == nil {
			continue
		}
		s, err := readSlide(ctx, xmlData)
		if err != nil {
			return nil, fail(ReasonCorrupt, "%s: %v", part, err)
		}
		head := fmt.Sprintf("## Slide %d", i+1)
		if s.title != "" {
			head += ": " + s.title
		}
		out.add(head)
		out.add(s.body.String())
		srels, err := a.rels(part)
		if err != nil {
			return nil, err
		}
		for _, target := range srels {
			if !strings.Contains(target, "notesSlide") {
				continue
			}
			nd, err := a.read(target, true)
			if err != nil {
				return nil, err
			}
			if nd == nil {
				continue
			}
			n, err := readSlide(ctx, nd)
			if err != nil {
				return nil, fail(ReasonCorrupt, "%s: %v", target, err)
			}
			if notes := n.body.String(); strings.TrimSpace(notes) != "" {
				out.add("### Notes")
				out.add(notes)
			}
		}
	}
	return &Doc{Markdown: out.String(), Title: coreTitle(a)}, nil
}

type slide struct {
	title string
	body  blocks
}

// readSlide collects the text of a slide or notes part. Title
// placeholders give the title; slide images, numbers, dates, headers and
// footers are furniture and dropped.
func readSlide(ctx context.Context, data []byte) (*slide, error) {
	s := &slide{}
	d := newXMLDecoder(data)
	var (
		phType  string // placeholder type of the current shape
		inShape bool
		shape   []string // list items of the current shape
		para    strings.Builder
		lvl     int
		inT     bool
		table   [][]string
		inTable bool
	)
	flushShape := func() {
		switch phType {
		case "title", "ctrTitle":
			t := strings.Join(shape, " ")
			if s.title == "" {
				s.title = t
			} else if t != "" {
				s.body.add(escapeLine(t))
			}
		case "sldImg", "sldNum", "dt", "ftr", "hdr":
		default:
			s.body.add(strings.Join(shape, "\n"))
		}
		shape, phType = nil, ""
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
		}
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				inShape, shape, phType = true, nil, ""
			case "ph":
				phType = attr(t, "type")
				if phType == "" {
					phType = "body"
				}
			case "p":
				para.Reset()
				lvl = 0
			case "pPr":
				lvl, _ = strconv.Atoi(attr(t, "lvl"))
			case "t":
				inT = true
			case "br":
				para.WriteByte(' ')
			case "tbl":
				inTable, table = true, nil
			case "tr":
				table = append(table, nil)
			case "tc":
				if len(table) > 0 {
					table[len(table)-1] = append(table[len(table)-1], "")
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inT = false
			case "p":
				text := strings.Join(strings.Fields(para.String()), " ")
				switch {
				case text == "":
				case inTable && len(table) > 0 && len(table[len(table)-1]) > 0:
					row := table[len(table)-1]
					row[len(row)-1] = strings.TrimSpace(row[len(row)-1] + " " + text)
				case phType == "title" || phType == "ctrTitle":
					shape = append(shape, text)
				default:
					shape = append(shape, strings.Repeat("  ", min(lvl, 8))+"- "+text)
				}
			case "sp":
				if inShape {
					flushShape()
				}
				inShape = false
			case "tbl":
				var b strings.Builder
				writeTable(&b, table)
				s.body.add(b.String())
				inTable, table = false, nil
			}
		case xml.CharData:
			if inT {
				para.Write(t)
			}
		}
	}
	return s, nil
}
