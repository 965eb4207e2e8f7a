package ref

import (
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

func TestParseForms(t *testing.T) {
	cases := []struct {
		in   string
		want Ref
	}{
		{"gno://Work/My%20Docs/a%23b%3Fc%25.md", Ref{Kind: ByPath, Collection: "work", Path: "My Docs/a#b?c%.md"}},
		{"notes/2025/01/meeting.md", Ref{Kind: ByPath, Collection: "notes", Path: "2025/01/meeting.md"}},
		{"#A1B2C3D4", Ref{Kind: ByDocID, DocID: "a1b2c3d4"}},
		{"notes/./a//b.md", Ref{Kind: ByPath, Collection: "notes", Path: "a/b.md"}},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for in, code := range map[string]gnoerr.Code{
		"":                      gnoerr.InvalidInput,
		"#xyz":                  gnoerr.InvalidInput,
		"#12":                   gnoerr.InvalidInput,
		"notes":                 gnoerr.InvalidInput,
		"notes/../etc/passwd":   gnoerr.InvalidPath,
		"gno://notes/%2E%2E/x":  gnoerr.InvalidPath,
		"gno://notes/a%zz":      gnoerr.InvalidInput,
		"notes/a\x00b":          gnoerr.InvalidPath,
		`notes/..\secret`:       gnoerr.InvalidPath,
		"gno://notes//etc/pass": gnoerr.InvalidPath,
	} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", in)
			continue
		}
		if gnoerr.CodeOf(err) != code {
			t.Errorf("Parse(%q) code %s, want %s (%v)", in, gnoerr.CodeOf(err), code, err)
		}
	}
}

func TestURIEncoding(t *testing.T) {
	got := URI("work", "My Documents/file name#1?%.pdf")
	want := "gno://work/My%20Documents/file%20name%231%3F%25.pdf"
	if got != want {
		t.Fatalf("URI = %q, want %q", got, want)
	}
	if u := URI("zh", "笔记.md"); !strings.HasPrefix(u, "gno://zh/%E7%AC%94") {
		t.Fatalf("non-ASCII not encoded: %s", u)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"gno://a/b.md", "#abcdef12", "a/b/../c", "gno://x/%41%", "c/My%20Docs/x.md", "a/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		if r.Kind == ByPath {
			if strings.Contains("/"+r.Path+"/", "/../") || strings.HasPrefix(r.Path, "/") {
				t.Fatalf("Parse(%q) let through path %q", s, r.Path)
			}
			// The canonical URI must parse back to the same ref.
			r2, err := Parse(r.String())
			if err != nil || r2 != r {
				t.Fatalf("round trip %q -> %q -> %+v, %v", s, r.String(), r2, err)
			}
		}
	})
}
