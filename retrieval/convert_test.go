package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/convert"
	"github.com/gnosearch/gno/retrieval/convert/fixture"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// filler is about 300 tokens of text, so that each PDF page is a chunk of
// its own.
var filler = strings.Repeat("The survey recorded ordinary observations along the river bank. ", 20)

// mixedFolder writes one file of every format, three that cannot be
// converted, and returns the engine over it with the default pattern of
// a new collection.
func mixedFolder(t *testing.T) (*Engine, string) {
	t.Helper()
	pgtest.Home(t, t.TempDir())
	root := t.TempDir()
	files := map[string][]byte{
		"notes.md": []byte("# Notes\n\nPlain markdown about lighthouses.\n"),
		"plan.docx": fixture.DOCX("Plan", fixture.DOCXPart{Style: "Berschrift1", Text: "Budget"},
			fixture.DOCXPart{Text: "The table below lists costs."},
			fixture.DOCXPart{Table: [][]string{{"Item", "Cost"}, {"quokkabudget", "300"}}}),
		"deck.pptx":   fixture.PPTX(fixture.Slide{Title: "Kickoff", Bullets: []string{"Agenda"}, Notes: "Remember the wombatcontract"}, fixture.Slide{Title: "Risks", Bullets: []string{"Delays"}}),
		"short.pdf":   fixture.PDF("First short page.", "The ibisword page."),
		"report.pdf":  fixture.PDF(filler+"Page one topic.", filler+"Page two topic.", filler+"The heronmigration was observed here.", filler),
		"mail.eml":    []byte(fixture.EML),
		"page.html":   []byte(fixture.HTML),
		"sheet.xlsx":  fixture.XLSX(fixture.Sheet{Name: "Data", Rows: [][]string{{"k", "v"}, {"okapicount", "7"}}}),
		"locked.pdf":  fixture.EncryptedPDF(),
		"scan.pdf":    fixture.ScannedPDF(1),
		"broken.docx": []byte("PK\x03\x04 truncated"),
		"code.go":     []byte("package main\n"), // not taken: the collection did not opt in to code
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.UpdateConfig(context.Background(), func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "docs", Path: root, Pattern: convert.DefaultPattern})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return e, root
}

func hitFor(t *testing.T, e *Engine, q, rel string) Result {
	t.Helper()
	for _, r := range search(t, e, q) {
		if r.Source.RelPath == rel {
			return r
		}
	}
	t.Fatalf("%q: %s not found", q, rel)
	return Result{}
}

// citedLines returns the lines a hit cites, read from the mirror that
// get serves.
func citedLines(t *testing.T, e *Engine, r Result) string {
	t.Helper()
	d, err := e.Get(context.Background(), GetRequest{Ref: r.URI, FromLine: r.Lines.Start, LineCount: r.Lines.End - r.Lines.Start + 1})
	if err != nil {
		t.Fatal(err)
	}
	return d.Content
}

func TestConvertedFormats(t *testing.T) {
	e, root := mixedFolder(t)
	res := update(t, e)
	c := res.Collections[0]
	if c.Added != 8 || c.Skipped[convert.ReasonEncrypted] != 1 || c.Skipped[convert.ReasonNoText] != 1 || c.Skipped[convert.ReasonCorrupt] != 1 {
		t.Fatalf("first sync: %+v", c)
	}
	for _, tc := range []struct{ q, rel, mime string }{
		{"quokkabudget", "plan.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"wombatcontract", "deck.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"okapicount", "sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"heronmigration", "report.pdf", "application/pdf"},
		{"approved", "mail.eml", "message/rfc822"},
		{"highlights", "page.html", "text/html"},
		{"lighthouses", "notes.md", "text/markdown"},
	} {
		r := hitFor(t, e, tc.q, tc.rel)
		if r.Source.Mime != tc.mime || r.Source.Ext != filepath.Ext(tc.rel) {
			t.Errorf("%s: source %+v", tc.rel, r.Source)
		}
		// The hit's lines are lines of the mirror that hold the term.
		if lines := citedLines(t, e, r); !strings.Contains(strings.ToLower(lines), tc.q) {
			t.Errorf("%s: lines %d-%d do not hold %q:\n%s", tc.rel, r.Lines.Start, r.Lines.End, tc.q, lines)
		}
		if tc.rel != "report.pdf" && r.Page != 0 {
			t.Errorf("%s: page %d on a non-PDF", tc.rel, r.Page)
		}
	}
	if r := hitFor(t, e, "heronmigration", "report.pdf"); r.Page != 3 || !strings.Contains(r.Headings, "Page 3") {
		t.Fatalf("PDF hit: page %d headings %q", r.Page, r.Headings)
	}
	// Short pages are chunks of their own too: the hit names its page.
	if r := hitFor(t, e, "ibisword", "short.pdf"); r.Page != 2 || r.Lines.Start != 5 {
		t.Fatalf("short PDF page hit: page %d lines %+v", r.Page, r.Lines)
	}
	if r := hitFor(t, e, "Risks", "deck.pptx"); r.Headings != "Slide 2: Risks" {
		t.Fatalf("slide hit headings %q", r.Headings)
	}
	if r := hitFor(t, e, "quokkabudget", "plan.docx"); r.Title != "Plan" || r.Headings != "Budget" {
		t.Fatalf("DOCX hit: title %q headings %q", r.Title, r.Headings)
	}
	d, err := e.Get(context.Background(), GetRequest{Ref: "docs/report.pdf"})
	if err != nil || !strings.HasPrefix(d.Content, "## Page 1\n") || d.Source.Mime != "application/pdf" {
		t.Fatalf("get serves the mirror: %v %.80q", err, d.Content)
	}
	if d, _ := e.Get(context.Background(), GetRequest{Ref: "docs/mail.eml"}); d.Title != "Quarterly budget – final" {
		t.Fatalf("mail title %q", d.Title)
	}

	st, err := e.Status(context.Background())
	if err != nil || st.Collections[0].Skipped[convert.ReasonEncrypted] != 1 || len(st.Collections[0].Skipped) != 3 {
		t.Fatalf("status skipped: %+v %v", st.Collections[0], err)
	}

	// Unchanged: nothing converted again, the failures still counted.
	res = update(t, e)
	if c := res.Collections[0]; c.Changed() || c.Unchanged != 8 || c.Skipped[convert.ReasonCorrupt] != 1 {
		t.Fatalf("unchanged sync: %+v", c)
	}
	// Touched but same bytes: the recorded verdict stands, no new
	// conversion, no change.
	os.Chtimes(filepath.Join(root, "locked.pdf"), timeNow(), timeNow())
	os.Chtimes(filepath.Join(root, "report.pdf"), timeNow(), timeNow())
	res = update(t, e)
	if c := res.Collections[0]; c.Changed() || c.Skipped[convert.ReasonEncrypted] != 1 {
		t.Fatalf("touched sync: %+v", c)
	}
	// A fixed file is indexed and its failure forgotten; a deleted one
	// is forgotten too.
	os.WriteFile(filepath.Join(root, "broken.docx"), fixture.DOCX("Fixed", fixture.DOCXPart{Text: "now readable capybara"}), 0o644)
	os.Remove(filepath.Join(root, "scan.pdf"))
	res = update(t, e)
	if c := res.Collections[0]; c.Added != 1 || c.Skipped[convert.ReasonCorrupt] != 0 || c.Skipped[convert.ReasonNoText] != 0 {
		t.Fatalf("fixed sync: %+v", c)
	}
	hitFor(t, e, "capybara", "broken.docx")
	st, _ = e.Status(context.Background())
	if sk := st.Collections[0].Skipped; len(sk) != 1 || sk[convert.ReasonEncrypted] != 1 {
		t.Fatalf("status after fix: %+v", sk)
	}
}

// A collection that names no pattern (every config before conversion)
// still takes Markdown only.
func TestOldCollectionsStayMarkdown(t *testing.T) {
	e, root := newEngine(t, corpus)
	os.WriteFile(filepath.Join(root, "report.pdf"), fixture.PDF("uniqueotterword "+filler), 0o644)
	os.WriteFile(filepath.Join(root, "page.html"), []byte(fixture.HTML), 0o644)
	res := update(t, e)
	if c := res.Collections[0]; c.Added != 5 {
		t.Fatalf("%+v", c)
	}
	if rs := search(t, e, "uniqueotterword"); len(rs) != 0 {
		t.Fatal("PDF indexed by a Markdown-only collection")
	}
}

func TestCodeOptIn(t *testing.T) {
	e, root := newEngine(t, nil)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc frobnicateWidgets() {}\n"), 0o644)
	if err := e.UpdateConfig(context.Background(), func(c *config.Config) error {
		c.Collections[0].Pattern = convert.DefaultCodePattern()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	if rs := search(t, e, "frobnicateWidgets"); len(rs) != 0 {
		t.Fatal("code taken without code: true")
	}
	e.UpdateConfig(context.Background(), func(c *config.Config) error { c.Collections[0].Code = true; return nil })
	update(t, e)
	r := hitFor(t, e, "frobnicateWidgets", "main.go")
	d, _ := e.Get(context.Background(), GetRequest{Ref: r.URI})
	if r.Source.Mime != "text/x-go" || !strings.HasPrefix(d.Content, "```go\npackage main\n") {
		t.Fatalf("%+v %q", r.Source, d.Content)
	}
	if lines := citedLines(t, e, r); !strings.Contains(lines, "frobnicateWidgets") {
		t.Fatalf("lines %d-%d: %q", r.Lines.Start, r.Lines.End, lines)
	}
}
