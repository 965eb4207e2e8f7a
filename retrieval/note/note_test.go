package note

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
)

func TestSetTags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# x\n", "---\ntags: [a, \"b:c\"]\n---\n# x\n"},
		{"---\ntitle: T\ntags:\n  - old\n  - older\nz: 1\n---\nbody\n", "---\ntitle: T\ntags: [a, \"b:c\"]\nz: 1\n---\nbody\n"},
		{"\xef\xbb\xbf---\r\ntitle: T\r\n---\r\nbody", "\xef\xbb\xbf---\r\ntitle: T\r\ntags: [a, \"b:c\"]\r\n---\r\nbody"},
		{"---\ntags: old\n...\nbody\n", "---\ntags: [a, \"b:c\"]\n...\nbody\n"},
	} {
		if got := string(SetTags([]byte(tc.in), []string{"a", "b:c"})); got != tc.want {
			t.Errorf("SetTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReplaceBody(t *testing.T) {
	for _, tc := range []struct{ in, content, want string }{
		{"---\na:  1\n---\nold\n", "new", "---\na:  1\n---\nnew\n"},
		{"---\r\na: 1\r\n---\r\nold", "new\nlines", "---\r\na: 1\r\n---\r\nnew\r\nlines"},
		{"---\na: 1\n---\nold\n", "---\nb: 2\n---\nall new\n", "---\nb: 2\n---\nall new\n"},
		{"plain\n", "x\n", "x\n"},
	} {
		if got := string(ReplaceBody([]byte(tc.in), tc.content)); got != tc.want {
			t.Errorf("ReplaceBody(%q, %q) = %q, want %q", tc.in, tc.content, got, tc.want)
		}
	}
}

func TestNewTarget(t *testing.T) {
	for _, tc := range []struct {
		l           links.Link
		src, newRel string
		want        string
	}{
		{links.Link{Kind: links.Wiki, Target: "Old"}, "a.md", "x/New Name.md", "New Name"},
		{links.Link{Kind: links.Wiki, Target: "dir/Old"}, "a.md", "x/New.md", "x/New"},
		{links.Link{Kind: links.Wiki, Target: "Old.md"}, "a.md", "x/New.md", "New.md"},
		{links.Link{Kind: links.Markdown, Target: "../Old.md"}, "p/q/a.md", "x/New Name.md", "../../x/New%20Name.md"},
		{links.Link{Kind: links.Markdown, Target: "/Old.md"}, "p/a.md", "x/N.md", "/x/N.md"},
		{links.Link{Kind: links.URI, Target: "gno://c/Old.md"}, "a.md", "x/N.md", "gno://c/x/N.md"},
	} {
		if got := NewTarget(tc.l, tc.src, "c", tc.newRel); got != tc.want {
			t.Errorf("NewTarget(%+v from %s to %s) = %q, want %q", tc.l, tc.src, tc.newRel, got, tc.want)
		}
	}
}

func TestRewriteLinksKeepsBytes(t *testing.T) {
	raw := "\xef\xbb\xbf---\r\nx: [[Old]]\r\n---\r\n[[Old|a]] `[[Old]]` [t](Old.md#h) [[Other]]\r\n"
	out, n := RewriteLinks([]byte(raw), func(l links.Link) (string, bool) {
		if links.Key(l.Target) != "old" {
			return "", false
		}
		return "New", true
	})
	if want := "\xef\xbb\xbf---\r\nx: [[Old]]\r\n---\r\n[[New|a]] `[[Old]]` [t](New#h) [[Other]]\r\n"; n != 2 || string(out) != want {
		t.Errorf("RewriteLinks = %d %q, want %q", n, out, want)
	}
}

func TestPath(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.md"), []byte("x"), 0o600)
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "secret.md"), []byte("s"), 0o600)
	os.Symlink(out, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(out, "secret.md"), filepath.Join(root, "link.md"))
	for _, tc := range []struct {
		rel  string
		mode Mode
		code gnoerr.Code
	}{
		{"a.md", Existing, ""},
		{"b/c.md", Absent, ""},
		{"a.md", Absent, gnoerr.Conflict},
		{"nope.md", Existing, gnoerr.NotFound},
		{"../x.md", Absent, gnoerr.InvalidPath},
		{"/etc/passwd", Existing, gnoerr.InvalidPath},
		{"escape/secret.md", Existing, gnoerr.InvalidPath},
		{"escape/new.md", Absent, gnoerr.InvalidPath},
		{"link.md", Existing, gnoerr.InvalidPath},
		{"a.md", Either, ""},
		{"b/new.md", Either, ""},
		{"link.md", Either, gnoerr.InvalidPath},
		{"a.md/x.md", Either, gnoerr.InvalidPath},
		{".ssh/keys.md", Either, gnoerr.InvalidPath},
		{"node_modules/x.md", Absent, gnoerr.InvalidPath},
		{`a\b.md`, Either, gnoerr.InvalidPath},
		{"C:/x.md", Either, gnoerr.InvalidPath},
		{"a\x01b.md", Either, gnoerr.InvalidPath},
		{strings.Repeat("x", 256) + ".md", Either, gnoerr.InvalidPath},
	} {
		_, err := Path(root, tc.rel, tc.mode)
		if gnoerr.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
			t.Errorf("Path(%q, %v) = %v, want %s", tc.rel, tc.mode, err, tc.code)
		}
	}
	// Write keeps the mode.
	p := filepath.Join(root, "a.md")
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}
