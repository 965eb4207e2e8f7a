package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/convert/fixture"
)

var benchText = strings.Repeat("Conversion throughput is measured on documents of realistic size with ordinary prose. ", 3)

// benchDocs builds one document of each format, of a size people keep.
func benchDocs() map[string][]byte {
	var parts []fixture.DOCXPart
	for i := 0; i < 300; i++ {
		if i%20 == 0 {
			parts = append(parts, fixture.DOCXPart{Style: "Heading2", Text: fmt.Sprintf("Section %d", i)})
		}
		parts = append(parts, fixture.DOCXPart{Text: benchText})
	}
	parts = append(parts, fixture.DOCXPart{Table: [][]string{{"a", "b", "c"}, {"1", "2", "3"}, {"x", "y", "z"}}})
	var slides []fixture.Slide
	for i := 0; i < 40; i++ {
		slides = append(slides, fixture.Slide{Title: fmt.Sprintf("Slide %d", i), Bullets: []string{benchText, benchText}, Notes: benchText})
	}
	rows := [][]string{{"id", "name", "region", "amount", "note"}}
	for i := 0; i < 2000; i++ {
		rows = append(rows, []string{fmt.Sprint(i), fmt.Sprintf("name %d", i), "north", fmt.Sprint(i * 7), "ok"})
	}
	var html strings.Builder
	html.WriteString("<html><head><title>Bench</title><script>x()</script></head><body><nav>menu</nav>")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&html, "<h2>Part %d</h2><p>%s <a href=\"/x%d\">link</a></p><ul><li>one</li><li>two</li></ul>", i, benchText, i)
	}
	html.WriteString("</body></html>")
	var mbox strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&mbox, "From a@example.org Mon Mar  2 10:00:00 2026\nFrom: a@example.org\nSubject: Message %d\n\n%s\n\n", i, benchText)
	}
	var chapters []string
	for i := 0; i < 20; i++ {
		chapters = append(chapters, fmt.Sprintf("<h1>Chapter %d</h1>", i)+strings.Repeat("<p>"+benchText+"</p>", 20))
	}
	return map[string][]byte{
		".html": []byte(html.String()),
		".docx": fixture.DOCX("Bench", parts...),
		".pptx": fixture.PPTX(slides...),
		".xlsx": fixture.XLSX(fixture.Sheet{Name: "Data", Rows: rows}),
		".eml":  []byte(fixture.EML),
		".mbox": []byte(mbox.String()),
		".epub": fixture.EPUB("Bench", chapters...),
		".pdf":  pdfPages(10),
	}
}

// pdfPages is a text PDF of n pages of about 2 KB of text each.
func pdfPages(n int) []byte {
	pages := make([]string, n)
	for i := range pages {
		pages[i] = fmt.Sprintf("Page %d. ", i+1) + strings.Repeat(benchText, 8)
	}
	return fixture.PDF(pages...)
}

// BenchmarkConvert measures each converter's throughput (MB/s of input)
// and mirror size.
func BenchmarkConvert(b *testing.B) {
	docs := benchDocs()
	for _, ext := range []string{".html", ".docx", ".pptx", ".xlsx", ".eml", ".mbox", ".epub", ".pdf"} {
		data := docs[ext]
		f, _ := ForExt(ext, false)
		b.Run(ext[1:], func(b *testing.B) {
			if _, err := Run(context.Background(), f, data, Limits{}); err != nil { // warm: PDFium compiles once
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			var out int
			for i := 0; i < b.N; i++ {
				d, err := Run(context.Background(), f, data, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				out = len(d.Markdown)
			}
			b.ReportMetric(float64(out), "mirror-bytes")
		})
	}
}

// BenchmarkPDF100Pages converts a 100-page text PDF (aim: ≤ 2 s).
func BenchmarkPDF100Pages(b *testing.B) {
	data := pdfPages(100)
	f, _ := ForExt(".pdf", false)
	if _, err := Run(context.Background(), f, data, Limits{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := Run(context.Background(), f, data, Limits{}); err != nil || d.Pages != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkPDFReal converts real PDFs named by GNO_BENCH_PDF (a
// comma-separated list), e.g. Debian's reportlab and asymptote manuals.
func BenchmarkPDFReal(b *testing.B) {
	list := os.Getenv("GNO_BENCH_PDF")
	if list == "" {
		b.Skip("set GNO_BENCH_PDF to PDF paths")
	}
	f, _ := ForExt(".pdf", false)
	for _, p := range strings.Split(list, ",") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			d, err := Run(context.Background(), f, data, Limits{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Run(context.Background(), f, data, Limits{})
			}
			b.ReportMetric(float64(d.Pages), "pages")
		})
	}
}
