package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
)

// storable is text every store holds: valid UTF-8 without NUL
// (PostgreSQL's text refuses both).
func storable(s string) bool { return utf8.ValidString(s) && !strings.Contains(s, "\x00") }

// TestNormalizeNUL: a NUL (past the binary sniff) is replaced and counted
// like an invalid byte, so both stores index the same text.
func TestNormalizeNUL(t *testing.T) {
	got, invalid := Normalize([]byte("a\x00b\xffc"))
	if got != "a\uFFFDb\uFFFDc" || invalid != 2 {
		t.Errorf("Normalize = %q, %d", got, invalid)
	}
}

// TestMirrorTitleCleaned: a converter's title comes from the file's own
// metadata, which may hold any bytes; the document's title is cleaned
// like its text.
func TestMirrorTitleCleaned(t *testing.T) {
	f, ok := convert.ForPath("x.pdf", false)
	if !ok {
		t.Skip("no PDF format registered")
	}
	doc := Mirror(config.Collection{Name: "c"}, "x.pdf", f, &convert.Doc{Markdown: "body\n", Title: "Ti\xfftle\x00 end"}, chunk.Options{})
	if !storable(doc.Title) || doc.Title != "Ti\uFFFDtle\uFFFD end" {
		t.Errorf("title %q", doc.Title)
	}
}

// TestConvertStorable: whatever bytes a Markdown file holds, every text
// field of its document is one every store holds.
func TestConvertStorable(t *testing.T) {
	src := "---\ntitle: T\xff\naliases: [a\xc0b]\ntags: [x\xfey]\n---\n# H\xc3\n\nbody \x00 [[li\xffnk]] [y](t\xc0.md) #ta\xffg\n"
	doc := Convert(config.Collection{Name: "c"}, "n.md", []byte(src), chunk.Options{})
	fields := []string{doc.Title, doc.Content, doc.Lang}
	fields = append(fields, doc.Tags...)
	fields = append(fields, doc.Aliases...)
	for _, l := range doc.Links {
		fields = append(fields, l.Target, l.Fragment, l.Alias)
	}
	for _, c := range doc.Chunks {
		fields = append(fields, c.Text)
	}
	for _, s := range fields {
		if !storable(s) {
			t.Errorf("unstorable field %q", s)
		}
	}
}
