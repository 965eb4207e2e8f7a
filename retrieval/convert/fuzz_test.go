package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/convert/fixture"
)

// fuzzLimits keep one fuzz input cheap; the invariants are the same.
var fuzzLimits = Limits{Timeout: 5 * time.Second, MaxPages: 50, MaxCells: 10_000, MaxRows: 100,
	MaxEntryBytes: 1 << 20, MaxTotalBytes: 4 << 20}.norm()

// check calls a converter directly (not through Run, which turns panics
// into skips and would hide them) and checks what any converter promises:
// a skip has a known reason, and a mirror stays within the limits.
func check(t *testing.T, name string, conv Func, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fuzzLimits.Timeout)
	defer cancel()
	d, err := conv(ctx, data, fuzzLimits)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			switch ce.Reason {
			case ReasonEncrypted, ReasonCorrupt, ReasonNoText, ReasonTooBig, ReasonTimeout, ReasonEngine:
				return
			}
			t.Fatalf("%s: unknown reason %q", name, ce.Reason)
		}
		return // a plain error is reported as corrupt by Run
	}
	if d == nil {
		t.Fatalf("%s: nil document without error", name)
	}
	if int64(len(d.Markdown)) > 4*fuzzLimits.MaxTotalBytes+int64(len(data))*8 {
		t.Fatalf("%s: mirror of %d bytes from %d input bytes", name, len(d.Markdown), len(data))
	}
	if name != "html" && name != "eml" && name != "mbox" && !utf8.ValidString(d.Title) {
		t.Logf("%s: title not UTF-8 (normalised later): %q", name, d.Title)
	}
}

func addRealFiles(f *testing.F, ext string) {
	matches, _ := filepath.Glob(filepath.Join("testdata", "real", "*"+ext))
	for _, m := range matches {
		if data, err := os.ReadFile(m); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
}

// FuzzOOXML feeds arbitrary bytes to the zip-based readers: DOCX, PPTX,
// XLSX and EPUB.
func FuzzOOXML(f *testing.F) {
	f.Add(fixture.DOCX("t", fixture.DOCXPart{Style: "Heading2", Text: "h"}, fixture.DOCXPart{List: 1, Text: "i"}, fixture.DOCXPart{Table: [][]string{{"a", "b"}}}))
	f.Add(fixture.PPTX(fixture.Slide{Title: "t", Bullets: []string{"b"}, Notes: "n"}))
	f.Add(fixture.XLSX(fixture.Sheet{Name: "s", Rows: [][]string{{"a", "1"}}, Dimension: "A1:B1"}))
	f.Add(fixture.EPUB("t", "<h1>c</h1><p>x</p>"))
	f.Add(fixture.Zip([2]string{"word/document.xml", "<w:tbl><w:tr><w:tc><w:tbl><w:p><w:t>x"}))
	for _, ext := range []string{".docx", ".pptx", ".xlsx"} {
		addRealFiles(f, ext)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, "docx", DOCX, data)
		check(t, "pptx", PPTX, data)
		check(t, "xlsx", XLSX, data)
		check(t, "epub", EPUB, data)
	})
}

// FuzzMail feeds arbitrary bytes to the EML and MBOX readers.
func FuzzMail(f *testing.F) {
	f.Add([]byte(fixture.EML))
	f.Add([]byte(fixture.MBOX))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: multipart/mixed; boundary=x\n\n--x--\n"))
	f.Add([]byte("Subject: =?bogus?Q?x?=\nContent-Transfer-Encoding: base64\n\n!!!"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, "eml", EML, data)
		check(t, "mbox", MBOX, data)
	})
}

// FuzzHTML feeds arbitrary bytes to the HTML converter.
func FuzzHTML(f *testing.F) {
	f.Add([]byte(fixture.HTML))
	f.Add([]byte("<table><tr><td rowspan=99999 colspan=99999>x</td></tr></table>"))
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, "html", HTML, data)
	})
}

// FuzzPDF feeds arbitrary bytes to the PDF wrapper (and through it to
// PDFium in its WebAssembly sandbox).
func FuzzPDF(f *testing.F) {
	f.Add(fixture.PDF("one page of text", "another page"))
	f.Add(fixture.EncryptedPDF())
	f.Add(fixture.ScannedPDF(1))
	f.Add([]byte("%PDF-1.7\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, "pdf", PDF, data)
	})
}
