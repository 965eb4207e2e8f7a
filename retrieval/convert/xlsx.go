package convert

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// XLSX converts a workbook: a "## Sheet: name" section and a table per
// sheet, the first row as header, at most Limits.MaxRows rows a sheet
// (the rest is cut with a note). A workbook of more than Limits.MaxCells
// cells is skipped. Values are shown as stored: numbers unformatted,
// formulas by their cached result.
//
// excelize reads the same but was slower and allocated more on the same
// workbooks (README), and adds five modules; a streaming reader of three
// parts also stops at the cell cap instead of loading the sheet first.
func XLSX(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	a, err := openOOXML(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	wb, err := a.read("xl/workbook.xml", false)
	if err != nil {
		return nil, err
	}
	var w struct {
		Sheets []struct {
			Name  string `xml:"name,attr"`
			State string `xml:"state,attr"`
			RID   string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := xmlUnmarshal(wb, &w); err != nil {
		return nil, fail(ReasonCorrupt, "xl/workbook.xml: %v", err)
	}
	rels, err := a.rels("xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	shared, err := readSharedStrings(ctx, a, lim)
	if err != nil {
		return nil, err
	}
	var out blocks
	cells := 0
	truncated := false
	for _, sh := range w.Sheets {
		part, ok := rels[sh.RID]
		if !ok || sh.State == "veryHidden" {
			continue
		}
		sd, err := a.read(part, true)
		if err != nil {
			return nil, err
		}
		if sd == nil {
			continue
		}
		rows, more, err := readSheet(ctx, sd, shared, lim, &cells)
		if err != nil {
			return nil, err
		}
		out.add("## Sheet: " + cell(sh.Name))
		var b strings.Builder
		writeTable(&b, rows)
		out.add(b.String())
		if more > 0 {
			truncated = true
			out.add(fmt.Sprintf("_%d more rows not shown._", more))
		}
	}
	return &Doc{Markdown: out.String(), Title: coreTitle(a), Truncated: truncated}, nil
}

func readSharedStrings(ctx context.Context, a *archive, lim Limits) ([]string, error) {
	data, err := a.read("xl/sharedStrings.xml", true)
	if err != nil || data == nil {
		return nil, err
	}
	var out []string
	var cur strings.Builder
	inT, inRPh := false, false
	d := newXMLDecoder(data)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
		}
		tok, err := d.RawToken()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fail(ReasonCorrupt, "xl/sharedStrings.xml: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inT = true
			case "rPh": // phonetic guide text, not content
				inRPh = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				if len(out) >= lim.MaxCells {
					return nil, fail(ReasonTooBig, "more than %d shared strings", lim.MaxCells)
				}
				out = append(out, cur.String())
			case "t":
				inT = false
			case "rPh":
				inRPh = false
			}
		case xml.CharData:
			if inT && !inRPh {
				cur.Write(t)
			}
		}
	}
}

// readSheet reads one worksheet's rows (at most lim.MaxRows non-empty
// ones) and returns how many more non-empty rows it had. cells counts the
// cells of the whole workbook against lim.MaxCells.
func readSheet(ctx context.Context, data []byte, shared []string, lim Limits, cells *int) ([][]string, int, error) {
	var rows [][]string
	more := 0
	var row []string
	col := 0
	var typ string
	var val strings.Builder
	inV := false
	d := newXMLDecoder(data)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, 0, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
		}
		tok, err := d.RawToken()
		if err == io.EOF {
			return rows, more, nil
		}
		if err != nil {
			return nil, 0, fail(ReasonCorrupt, "worksheet: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "dimension":
				if c := dimensionCells(attr(t, "ref")); c > lim.MaxCells {
					return nil, 0, fail(ReasonTooBig, "sheet of %d cells, more than %d", c, lim.MaxCells)
				}
			case "row":
				row, col = nil, 0
			case "c":
				typ = attr(t, "t")
				val.Reset()
				if ref := attr(t, "r"); ref != "" {
					col = columnIndex(ref)
				}
			case "v", "t":
				inV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inV = false
			case "c":
				*cells++
				if *cells > lim.MaxCells {
					return nil, 0, fail(ReasonTooBig, "more than %d cells", lim.MaxCells)
				}
				v := val.String()
				switch typ {
				case "s":
					if i, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && i >= 0 && i < len(shared) {
						v = shared[i]
					}
				case "b":
					v = map[string]string{"0": "FALSE", "1": "TRUE"}[strings.TrimSpace(v)]
				}
				if v != "" && col < 1024 {
					for len(row) <= col {
						row = append(row, "")
					}
					row[col] = v
				}
				col++
			case "row":
				if len(row) == 0 {
					continue
				}
				if len(rows) >= lim.MaxRows {
					more++
				} else {
					rows = append(rows, row)
				}
			}
		case xml.CharData:
			if inV {
				val.Write(t)
			}
		}
	}
}

// columnIndex turns the letters of a cell reference ("BC12") into a
// 0-based column.
func columnIndex(ref string) int {
	c := 0
	for i := 0; i < len(ref) && i < 4; i++ {
		ch := ref[i]
		if ch < 'A' || ch > 'Z' {
			break
		}
		c = c*26 + int(ch-'A'+1)
	}
	return max(c-1, 0)
}

// dimensionCells is the cell count a sheet declares ("A1:Z100" is 2,600).
func dimensionCells(ref string) int {
	from, to, ok := strings.Cut(ref, ":")
	if !ok {
		return 1
	}
	r1, c1 := cellPos(from)
	r2, c2 := cellPos(to)
	return (abs(r2-r1) + 1) * (abs(c2-c1) + 1)
}

func cellPos(ref string) (row, col int) {
	col = columnIndex(ref)
	i := strings.IndexFunc(ref, func(r rune) bool { return r >= '0' && r <= '9' })
	if i >= 0 {
		row, _ = strconv.Atoi(ref[i:])
	}
	return row, col
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
