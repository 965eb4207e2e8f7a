package retrieval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/convert/fixture"
)

// BenchmarkResyncMixed1000 measures an unchanged re-sync of a folder of
// 1,000 files of every format, ten of which cannot be converted (aim:
// ≤ 0.2 s; nothing is read or converted again).
func BenchmarkResyncMixed1000(b *testing.B) {
	b.Setenv("GNO_HOME", b.TempDir())
	root := b.TempDir()
	makers := []func(i int) (string, []byte){
		func(i int) (string, []byte) {
			return "md", []byte(fmt.Sprintf("# Note %d\n\nSome text about item %d.\n", i, i))
		},
		func(i int) (string, []byte) {
			return "html", []byte(fmt.Sprintf("<h1>Page %d</h1><p>web text %d</p>", i, i))
		},
		func(i int) (string, []byte) {
			return "docx", fixture.DOCX("d", fixture.DOCXPart{Style: "Heading2", Text: fmt.Sprint("Doc ", i)}, fixture.DOCXPart{Text: "word text"})
		},
		func(i int) (string, []byte) {
			return "pptx", fixture.PPTX(fixture.Slide{Title: fmt.Sprint("Deck ", i), Bullets: []string{"b"}, Notes: "n"})
		},
		func(i int) (string, []byte) {
			return "xlsx", fixture.XLSX(fixture.Sheet{Name: "s", Rows: [][]string{{"k", "v"}, {fmt.Sprint(i), "x"}}})
		},
		func(i int) (string, []byte) {
			return "pdf", fixture.PDF(fmt.Sprintf("PDF number %d with a little text on its page.", i))
		},
		func(i int) (string, []byte) { return "eml", []byte(fixture.EML) },
	}
	for i := 0; i < 990; i++ {
		ext, data := makers[i%len(makers)](i)
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%04d.%s", i, ext)), data, 0o644)
	}
	for i := 0; i < 10; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("locked%d.pdf", i)), fixture.EncryptedPDF(), 0o644)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "mixed", Path: root, Pattern: convert.DefaultPattern})
		return err
	})
	res, err := e.Update(ctx, UpdateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if c := res.Collections[0]; c.Added != 990 || c.Skipped[convert.ReasonEncrypted] != 10 {
		b.Fatalf("first sync: %+v", c)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.Update(ctx, UpdateOptions{})
		if err != nil || res.Collections[0].Unchanged != 990 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
