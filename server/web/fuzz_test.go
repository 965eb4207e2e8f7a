package web

import (
	"strings"
	"testing"
)

// FuzzRender: any document renders without error, keeps its anchors in
// order, and never yields script, event handlers or javascript: URLs.
func FuzzRender(f *testing.F) {
	for _, s := range notes {
		f.Add(s)
	}
	f.Add("---\ntags: [a]\n---\n")
	f.Add("<scr<script>ipt>alert(1)</script>\n[x](JaVaScRiPt:alert(1))\n![i](javascript:1)\n<a href=\"javascript:1\">a</a>")
	f.Add("- a\n  - b\n\n> q\n> > r\n\n```\ncode <script>\n```\n")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := renderMarkdown(s, "c", "dir/n.md", 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !safeHTML(string(out.HTML)) {
			t.Fatalf("unsafe HTML for %q:\n%s", s, out.HTML)
		}
		for _, l := range out.Links {
			if l.Doc && !strings.HasPrefix(l.Href, "/doc?ref=") && !strings.HasPrefix(l.Href, "/go?") {
				t.Fatalf("doc link %q", l.Href)
			}
		}
	})
}
