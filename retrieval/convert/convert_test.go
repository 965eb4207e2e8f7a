package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/convert/fixture"
)

func run(t *testing.T, ext string, data []byte, lim Limits) (*Doc, error) {
	t.Helper()
	f, ok := ForExt(ext, true)
	if !ok {
		t.Fatalf("no format for %s", ext)
	}
	return Run(context.Background(), f, data, lim)
}

func mustRun(t *testing.T, ext string, data []byte) string {
	t.Helper()
	d, err := run(t, ext, data, Limits{})
	if err != nil {
		t.Fatalf("%s: %v", ext, err)
	}
	return d.Markdown
}

func contains(t *testing.T, md string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("mirror lacks %q:\n%s", w, md)
		}
	}
}

func lacks(t *testing.T, md string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(md, w) {
			t.Errorf("mirror has %q:\n%s", w, md)
		}
	}
}

func reason(t *testing.T, err error, want string) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) || ce.Reason != want {
		t.Fatalf("want skip %q, got %v", want, err)
	}
}

func TestHTMLKeepsStructureDropsFurniture(t *testing.T) {
	d, err := run(t, ".html", []byte(fixture.HTML), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Release notes" {
		t.Errorf("title %q", d.Title)
	}
	contains(t, d.Markdown, "# Release 2.0", "## Highlights", "- Faster sync", "[full changelog](https://example.org/changes)",
		"| Format | Status |", "| DOCX   | done   |", "```go\nfunc main() {}")
	lacks(t, d.Markdown, "SCRIPTTEXT", "NAVTEXT", "ROLENAV", "FORMTEXT", "color:red", "MENUTEXT", "HIDDENTEXT")
}

func TestHTMLLatin1(t *testing.T) {
	md := mustRun(t, ".htm", []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>caf\xe9</p></body></html>"))
	contains(t, md, "café")
}

func TestDOCX(t *testing.T) {
	data := fixture.DOCX("Design notes",
		fixture.DOCXPart{Style: "Berschrift1", Text: "Storage design"},
		fixture.DOCXPart{Text: "# Not a heading, just text."},
		fixture.DOCXPart{Style: "Heading2", Text: "Open questions"},
		fixture.DOCXPart{List: 1, Text: "first item"},
		fixture.DOCXPart{List: 2, Text: "nested item"},
		fixture.DOCXPart{Table: [][]string{{"Name", "Value"}, {"quokkabudget", "12 | 13"}}},
	)
	d, err := run(t, ".docx", data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Design notes" {
		t.Errorf("title %q", d.Title)
	}
	contains(t, d.Markdown, "# Storage design\n", "\\# Not a heading", "## Open questions\n", "- first item\n  - nested item",
		"| Name | Value |\n| --- | --- |\n| quokkabudget | 12 \\| 13 |")
}

func TestPPTX(t *testing.T) {
	data := fixture.PPTX(
		fixture.Slide{Title: "Quarterly plan", Bullets: []string{"Hire two engineers", "Ship PDF support"}, Notes: "Mention the wombatcontract here"},
		fixture.Slide{Title: "Risks", Bullets: []string{"Supplier delay"}},
	)
	md := mustRun(t, ".pptx", data)
	contains(t, md, "## Slide 1: Quarterly plan\n\n- Hire two engineers\n- Ship PDF support", "### Notes\n\n- Mention the wombatcontract here", "## Slide 2: Risks")
	lacks(t, md, "SLIDENUMBER")
	if strings.Index(md, "Quarterly") > strings.Index(md, "Risks") {
		t.Error("slides out of presentation order")
	}
}

func TestXLSX(t *testing.T) {
	rows := [][]string{{"Region", "Revenue"}}
	for i := 0; i < 30; i++ {
		rows = append(rows, []string{fmt.Sprintf("R%d", i), fmt.Sprint(i * 100)})
	}
	data := fixture.XLSX(fixture.Sheet{Name: "Sales", Rows: rows}, fixture.Sheet{Name: "Notes", Rows: [][]string{{"platypusnote"}}})
	d, err := run(t, ".xlsx", data, Limits{MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, d.Markdown, "## Sheet: Sales\n\n| Region | Revenue |\n| --- | --- |\n| R0 | 0 |", "_21 more rows not shown._", "## Sheet: Notes", "platypusnote")
	if !d.Truncated {
		t.Error("cut sheet not marked truncated")
	}
	// A sheet declaring a million cells is skipped before it is read.
	big := fixture.XLSX(fixture.Sheet{Name: "Big", Rows: [][]string{{"a"}}, Dimension: "A1:J100000"})
	_, err = run(t, ".xlsx", big, Limits{})
	reason(t, err, ReasonTooBig)
	// So is one that declares nothing but has too many cells.
	_, err = run(t, ".xlsx", data, Limits{MaxCells: 20})
	reason(t, err, ReasonTooBig)
}

func TestEPUB(t *testing.T) {
	data := fixture.EPUB("The Long Road", "<h1>Chapter One</h1><p>It began in Lyon.</p>", "<h1>Chapter Two</h1><p>It ended in Oslo.</p>")
	d, err := run(t, ".epub", data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "The Long Road" {
		t.Errorf("title %q", d.Title)
	}
	contains(t, d.Markdown, "# Chapter One\n\nIt began in Lyon.", "# Chapter Two")
	lacks(t, d.Markdown, "Chapter file")
	if strings.Index(d.Markdown, "One") > strings.Index(d.Markdown, "Two") {
		t.Error("spine order lost")
	}
	// DRM: content documents listed in encryption.xml.
	drm := fixture.Zip([2]string{"META-INF/container.xml", `<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>`},
		[2]string{"META-INF/encryption.xml", `<encryption><EncryptedData><CipherData><CipherReference URI="OEBPS/ch1.xhtml"/></CipherData></EncryptedData></encryption>`})
	_, err = run(t, ".epub", drm, Limits{})
	reason(t, err, ReasonEncrypted)
}

func TestEML(t *testing.T) {
	d, err := run(t, ".eml", []byte(fixture.EML), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Quarterly budget – final" {
		t.Errorf("title %q", d.Title)
	}
	contains(t, d.Markdown, "---\ntitle: \"Quarterly budget – final\"\nfrom: \"Renée Dupont <renee@example.org>\"\n",
		"to: \"Team <team@example.org>, bob@example.org\"", "date: \"2026-03-02T09:15:00Z\"",
		"The café budget is approved.", "\\# not a heading", "## Attachments\n\n- budget.xls (application/vnd.ms-excel, 10 bytes)")
	lacks(t, d.Markdown, "<p>")
}

func TestMBOX(t *testing.T) {
	md := mustRun(t, ".mbox", []byte(fixture.MBOX))
	contains(t, md, "## Launch checklist", "- From: alice@example.org", "From the top, please.", "## Re: Launch checklist", "Checklist *done*.")
	lacks(t, md, ">From")
}

func TestCode(t *testing.T) {
	if _, ok := ForExt(".go", false); ok {
		t.Fatal("code taken without opting in")
	}
	md := mustRun(t, ".go", []byte("package main\n\n// ```inner fence```\nfunc main() {}"))
	if !strings.HasPrefix(md, "````go\npackage main\n") || !strings.HasSuffix(md, "func main() {}\n````\n") {
		t.Fatalf("%q", md)
	}
}

func TestPDFPages(t *testing.T) {
	d, err := run(t, ".pdf", fixture.PDF("Alpha page about otters.", "Beta page about badgers.\n# hash line", "Gamma page about herons."), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages != 3 {
		t.Fatalf("pages %d", d.Pages)
	}
	contains(t, d.Markdown, "## Page 1\n\nAlpha page about otters.", "## Page 2\n\nBeta page about badgers.\n\\# hash line", "## Page 3\n\nGamma page about herons.")
}

func TestPDFFailures(t *testing.T) {
	_, err := run(t, ".pdf", fixture.EncryptedPDF(), Limits{})
	reason(t, err, ReasonEncrypted)
	_, err = run(t, ".pdf", fixture.ScannedPDF(2), Limits{})
	reason(t, err, ReasonNoText)
	_, err = run(t, ".pdf", fixture.ScannedPDF(2000), Limits{})
	reason(t, err, ReasonTooBig)
	good := fixture.PDF("Some text here on one page.")
	_, err = run(t, ".pdf", good[:len(good)/2], Limits{})
	if err == nil {
		t.Log("PDFium recovered a truncated PDF") // it may: it rebuilds xref tables
	}
	_, err = run(t, ".pdf", []byte("not a pdf at all"), Limits{})
	reason(t, err, ReasonCorrupt)
	_, err = run(t, ".pdf", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("garbage "), 100)...), Limits{})
	reason(t, err, ReasonCorrupt)
}

func TestBrokenArchives(t *testing.T) {
	docx := fixture.DOCX("t", fixture.DOCXPart{Text: "hello"})
	for _, ext := range []string{".docx", ".pptx", ".xlsx", ".epub"} {
		_, err := run(t, ext, docx[:len(docx)/3], Limits{})
		reason(t, err, ReasonCorrupt)
		_, err = run(t, ext, []byte{}, Limits{})
		reason(t, err, ReasonCorrupt)
	}
	// A password-protected Office file is an OLE container.
	ole := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...)
	_, err := run(t, ".docx", ole, Limits{})
	reason(t, err, ReasonEncrypted)
	// A zip without the part the format needs.
	_, err = run(t, ".pptx", fixture.Zip([2]string{"hello.txt", "hi"}), Limits{})
	reason(t, err, ReasonCorrupt)
	// Broken XML.
	_, err = run(t, ".docx", fixture.Zip([2]string{"word/document.xml", "<w:document><w:body><w:p><w:t>x</w:t"}), Limits{})
	if err != nil {
		reason(t, err, ReasonCorrupt)
	}
}

func TestZipBomb(t *testing.T) {
	// 80 MiB of zeros deflate to about 80 KB: past the 64 MiB entry cap.
	bomb := fixture.Zip([2]string{"word/document.xml", "<w:document>" + strings.Repeat("\x00", 80<<20)})
	start := time.Now()
	_, err := run(t, ".docx", bomb, Limits{})
	reason(t, err, ReasonTooBig)
	t.Logf("bomb of %d bytes refused in %v", len(bomb), time.Since(start))
	small := fixture.Zip([2]string{"word/document.xml", strings.Repeat(" ", 2<<20)})
	_, err = run(t, ".docx", small, Limits{MaxEntryBytes: 1 << 20})
	reason(t, err, ReasonTooBig)
}

func TestDeadline(t *testing.T) {
	f, _ := ForExt(".docx", false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, f, fixture.DOCX("t", fixture.DOCXPart{Text: "hello"}), Limits{})
	reason(t, err, ReasonTimeout)
	p, _ := ForExt(".pdf", false)
	_, err = Run(ctx, p, fixture.PDF("hello world, some text"), Limits{})
	reason(t, err, ReasonTimeout)
}

func TestEscapeLine(t *testing.T) {
	for in, want := range map[string]string{
		"# x": `\# x`, "1. item": `1\. item`, "1.1 Intro": "1.1 Intro", "---": `\---`, "- a": `\- a`,
		"plain": "plain", "```go": "\\```go", "<div>": `\<div>`, "-5 degrees": "-5 degrees",
	} {
		if got := escapeLine(in); got != want {
			t.Errorf("escapeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRealFiles converts documents no one here wrote (testdata/README.md
// says where each comes from).
func TestRealFiles(t *testing.T) {
	cases := map[string][]string{
		"CAD.pdf":                []string{"## Page 1\n", "## Page 7\n", "measurement functions", "MeasureParallel"},
		"tbl-having-tables.docx": nil,
		"par-known-styles.docx":  []string{"# Heading 1\n", "Body Text"},
		"test.docx":              []string{"# python-docx was here!"},
		"par-hyperlinks.docx":    []string{"One [awesome hyperlink](http://yahoo.com/).", "the [second one](http://python.org/)"},
		"sld-notes.pptx":         []string{"## Slide 1", "### Notes"},
		"tbl-cell.pptx":          []string{"| a | b | c |\n| --- | --- | --- |\n| d | e | f |"},
		"txt-text.pptx":          []string{"Foo Bar Baz Zoo", "| Text run in table cell |"},
		"shp-embedded-xlsx.xlsx": []string{"## Sheet: Sheet1", "| 1 |"},
		"reportlab-index.html":   []string{"# ReportLab PDF Toolkit documentation\n", "- [pdfgen package (reportlab.pdfgen) - the basics](pdfgen.html)"},
	}
	for name, want := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "real", name))
		if err != nil {
			t.Fatal(err)
		}
		d, err := run(t, filepath.Ext(name), data, Limits{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		contains(t, d.Markdown, want...)
		if name == "reportlab-index.html" {
			lacks(t, d.Markdown, "[Solutions]", "¶", "Quick search")
		}
	}
}
