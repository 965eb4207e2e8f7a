package pkgdocs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSymbolWords(t *testing.T) {
	for in, want := range map[string]string{
		"Command.PersistentFlags":       "command persistent flags",
		"HTTPServer":                    "http server",
		"de::Deserializer":              "",
		"requests.sessions.Session.get": "",
		"getUserID":                     "get user id",
		"ZodString.email":               "zod string email",
		"Base64Encode":                  "base64 encode",
	} {
		if got := SymbolWords(in); got != want {
			t.Errorf("SymbolWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSections(t *testing.T) {
	text := "# Title\n\nIntro.\n\n## Install\n\n```sh\n# not a heading\n```\n\n## Usage\n\nUse it.\n\n### Deep\n\nMore.\n\nOther\n=====\n\ntext\n"
	secs := sections(text)
	var titles []string
	for _, s := range secs {
		titles = append(titles, s.Title)
	}
	if strings.Join(titles, "|") != "Title|Install|Usage|Deep|Other" {
		t.Fatalf("titles %q", titles)
	}
	if got := text[secs[2].Start:secs[2].End]; !strings.Contains(got, "### Deep") || strings.Contains(got, "Other") {
		t.Errorf("usage section %q", got)
	}
	install, usage := installUsage(text)
	if !strings.HasPrefix(install, "## Install") || !strings.HasPrefix(usage, "## Usage") {
		t.Errorf("install %q usage %q", install, usage)
	}
	doc, ex := apiParts("# F\n\nfunc\n\n```go\nfunc F()\n```\n\nF does it.\n\n## Examples\n\n### Example\n\n```go\nF()\n```\n\n### ExampleF_two\n\n```go\nF()\n```\n")
	if doc != "F does it." || len(ex) != 2 {
		t.Errorf("apiParts: %q %q", doc, ex)
	}
}

// FuzzSections: the section reader, the API unit splitter and the budget
// cut never panic, keep their bounds, and cut on rune boundaries.
func FuzzSections(f *testing.F) {
	for _, s := range []string{"# A\n\ntext\n## B\n", "```\n# x\n```\n# y\n", "Title\n===\n\nSub\n---\n", "# F\n\nfunc\n\n```go\nF()\n```\n\ndoc\n\n## Examples\n\n```go\nx\n```\n", "héllo\n"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		prev := -1
		for _, sec := range sections(s) {
			if sec.Start < prev || sec.Start > sec.End || sec.End > len(s) || sec.Level < 1 {
				t.Fatalf("section %+v of %d bytes (prev %d)", sec, len(s), prev)
			}
			prev = sec.Start
		}
		apiParts(s)
		installUsage(s)
		SymbolWords(s)
		if n < 0 || n > 1<<16 {
			return
		}
		c := cutTokens(s, n)
		if utf8.ValidString(s) && !utf8.ValidString(c) {
			t.Fatalf("cut %q to invalid UTF-8 %q", s, c)
		}
	})
}

// FuzzSymbolRefs: reading the names of a query never panics and gives
// identifier parts only, at most maxSymbolRefs names.
func FuzzSymbolRefs(f *testing.F) {
	for _, s := range []string{"PersistentFlags", "z.string().email()", "std::collections::HashMap", "how do I parse a uuid", "Command#run()", "a->b", "((((", "itertools join", "x.<>.y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs := symbolRefs(s, func(w string) bool { return w == "itertools" })
		if len(refs) > maxSymbolRefs {
			t.Fatalf("%d refs", len(refs))
		}
		for _, r := range refs {
			if len(r.parts) == 0 {
				t.Fatalf("empty ref of %q", s)
			}
			for _, p := range r.parts {
				if !isIdent(p) {
					t.Fatalf("part %q of %q is no identifier", p, s)
				}
			}
		}
		for _, p := range splitSymbol(s) {
			if !isIdent(p) {
				t.Fatalf("part %q of %q is no identifier", p, s)
			}
		}
		if c, ok := dunderClass(s); ok && len(c) >= len(s) {
			t.Fatalf("class %q of %q", c, s)
		}
	})
}
