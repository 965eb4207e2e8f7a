package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	wikilinks "github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// md renders documents. It is never given html.WithUnsafe: raw HTML in a
// document becomes a comment and javascript: links lose their href.
// Built on first use: gno's every command links this package.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(html.WithHardWraps()),
	)
})

// docLink is a link found in a document.
type docLink struct {
	Text string
	Href string // a /doc URL for a note in the same collection, else the raw URL
	Doc  bool
}

// rendered is a document as HTML blocks, each anchored at its first line.
type rendered struct {
	HTML  template.HTML
	Links []docLink
}

// renderMarkdown renders content (the whole document; front matter is
// shown as a block of its own) with an anchor id="L<n>" on every top-level
// block, highlighting blocks that overlap lines from-to. Relative links to
// other notes are rewritten to the document view of the same collection;
// nothing is ever fetched from disk.
func renderMarkdown(content, collection, relPath string, from, to int) (rendered, error) {
	body, skipped := splitFrontMatter(content)
	src := []byte(wikiLinks(body, collection+"/"+relPath))
	doc := md().Parser().Parse(text.NewReader(src))
	var links []docLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if d := string(l.Destination); strings.HasPrefix(d, "/go?") {
				links = append(links, docLink{Text: plainText(l, src), Href: d, Doc: true})
				break
			}
			href, isDoc := rewriteLink(string(l.Destination), collection, relPath)
			l.Destination = []byte(href)
			links = append(links, docLink{Text: plainText(l, src), Href: href, Doc: isDoc})
		case *ast.Image:
			// Images would be fetched from outside the index: show the
			// alt text instead.
			l.Destination = nil
		case *ast.AutoLink:
			u := string(l.URL(src))
			links = append(links, docLink{Text: u, Href: u})
		}
		return ast.WalkContinue, nil
	})
	var b bytes.Buffer
	if skipped > 0 {
		writeProps(&b, content, skipped)
	}
	r := md().Renderer()
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		line := skipped + firstLine(c, src)
		last := skipped + lastLine(c, src)
		cls := "blk"
		if from > 0 && line <= max(to, from) && last >= from {
			cls += " hit"
		}
		fmt.Fprintf(&b, "<div class=\"%s\" id=\"L%d\" data-lines=\"%d-%d\">", cls, line, line, last)
		if err := r.Render(&b, src, c); err != nil {
			return rendered{}, fmt.Errorf("render markdown: %w", err)
		}
		b.WriteString("</div>\n")
	}
	out := b.String()
	if !safeHTML(out) {
		// goldmark without WithUnsafe never emits these; if it ever did,
		// show the text rather than run it.
		out = "<pre class=\"blk\">" + template.HTMLEscapeString(content) + "</pre>"
	}
	return rendered{HTML: template.HTML(out), Links: links}, nil
}

// wikiLinks turns the [[wikilinks]] (and ![[embeds]]) of a note's body
// into Markdown links to /go, which resolves them the way the index does
// when followed. Only bytes inside each link change, never a line end, so
// the line anchors stay true; links in code are left alone (links.Extract
// skips them), and the label's punctuation is escaped so it shows as
// text.
func wikiLinks(body, from string) string {
	var b strings.Builder
	last := 0
	for _, l := range wikilinks.Extract(body) {
		if (l.Kind != wikilinks.Wiki && l.Kind != wikilinks.Embed) || l.Target == "" || strings.ContainsAny(body[l.Start:l.End], "\n\r") {
			continue
		}
		label := l.Alias
		if label == "" {
			label = l.Target
			if l.Fragment != "" {
				label += " › " + l.Fragment
			}
		}
		b.WriteString(body[last:l.Start])
		b.WriteString("[" + escapeMarkdown(label) + "](</go?" + url.Values{"from": {from}, "to": {l.Target}}.Encode() + ">)")
		last = l.End
	}
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

// escapeMarkdown backslash-escapes ASCII punctuation, so text shows as
// written (CommonMark allows the escape before any of it).
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeProps shows a note's front matter as properties (title, tags,
// aliases, dates ...): tags link to the notes carrying them, lists are
// chips, anything nested its YAML. Front matter that is no YAML map
// shows as it is written.
func writeProps(b *bytes.Buffer, content string, lines int) {
	esc := template.HTMLEscapeString
	props, err := note.Props([]byte(content))
	if err != nil || len(props) == 0 {
		fmt.Fprintf(b, "<pre class=\"blk fm\" id=\"L1\">%s</pre>\n", esc(strings.Join(strings.SplitN(content, "\n", lines+1)[:lines], "\n")))
		return
	}
	fmt.Fprintf(b, "<dl class=\"blk props\" id=\"L1\" data-lines=\"1-%d\">", lines)
	for _, p := range props {
		fmt.Fprintf(b, "<div><dt>%s</dt><dd>", esc(p.Key))
		switch p.Kind {
		case "text":
			b.WriteString(esc(p.Value))
		case "list":
			for _, v := range p.List {
				if p.Key == "tags" || p.Key == "tag" {
					t := strings.TrimPrefix(v, "#")
					fmt.Fprintf(b, "<a class=\"tag\" href=\"/?tags=%s\">#%s</a> ", esc(url.QueryEscape(t)), esc(t))
				} else {
					fmt.Fprintf(b, "<span class=\"chip\">%s</span> ", esc(v))
				}
			}
		default:
			fmt.Fprintf(b, "<pre>%s</pre>", esc(strings.TrimRight(p.YAML, "\n")))
		}
		b.WriteString("</dd></div>")
	}
	b.WriteString("</dl>\n")
}

// safeHTML is the belt to goldmark's braces: rendered HTML must open no
// active element, carry no inline event handler and no script URL. Text
// is escaped by then, so only real tags and attributes can match.
func safeHTML(s string) bool {
	return !activeTag().MatchString(s) && !eventAttr().MatchString(s) && !scriptURL().MatchString(s)
}

var (
	activeTag = lazyRegexp(`(?i)<(script|iframe|object|embed|style|base|form|meta|link|svg|math)\b`)
	eventAttr = lazyRegexp(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
	scriptURL = lazyRegexp(`(?i)<[a-z][^>]*\s(href|src|action|formaction|xlink:href)\s*=\s*["']?\s*(javascript|vbscript|data):`)
)

// splitFrontMatter returns the body after a leading YAML front matter
// block and how many lines that block took.
func splitFrontMatter(s string) (string, int) {
	if !strings.HasPrefix(s, "---\n") {
		return s, 0
	}
	lines := strings.SplitAfter(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			return strings.Join(lines[i+1:], ""), i + 1
		}
	}
	return s, 0
}

// firstLine is the 1-based line where block n starts in src.
func firstLine(n ast.Node, src []byte) int {
	if off, ok := offset(n, true); ok {
		return 1 + bytes.Count(src[:off], []byte("\n"))
	}
	return 1
}

func lastLine(n ast.Node, src []byte) int {
	if off, ok := offset(n, false); ok {
		return 1 + bytes.Count(src[:off], []byte("\n"))
	}
	return firstLine(n, src)
}

// offset finds the first (or last) source byte of a block, descending into
// containers (lists, quotes), which have no lines of their own.
func offset(n ast.Node, first bool) (int, bool) {
	if n.Type() == ast.TypeBlock {
		if ls := n.Lines(); ls != nil && ls.Len() > 0 {
			if first {
				return ls.At(0).Start, true
			}
			return max(ls.At(ls.Len()-1).Stop-1, ls.At(ls.Len()-1).Start), true
		}
	}
	c := n.FirstChild()
	if !first {
		c = n.LastChild()
	}
	for ; c != nil; c = next(c, first) {
		if off, ok := offset(c, first); ok {
			return off, true
		}
	}
	return 0, false
}

func next(n ast.Node, first bool) ast.Node {
	if first {
		return n.NextSibling()
	}
	return n.PreviousSibling()
}

func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// rewriteLink maps a relative link to another note onto the document view;
// other links are kept (goldmark drops dangerous ones when rendering).
func rewriteLink(dest, collection, relPath string) (string, bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || dest == "" || strings.HasPrefix(dest, "#") {
		return dest, false
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		p = path.Join(path.Dir(relPath), p)
	}
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" || strings.HasPrefix(p, "..") {
		return dest, false
	}
	href := "/doc?ref=" + url.QueryEscape(collection+"/"+p)
	if u.Fragment != "" {
		href += "#" + url.PathEscape(u.Fragment)
	}
	return href, true
}

// highlight HTML-escapes a snippet and turns the engine's \x01…\x02 marks
// into <mark> elements.
func highlight(s string) template.HTML {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '\x01')
		if i < 0 {
			b.WriteString(template.HTMLEscapeString(strings.ReplaceAll(s, "\x02", "")))
			break
		}
		b.WriteString(template.HTMLEscapeString(strings.ReplaceAll(s[:i], "\x02", "")))
		s = s[i+1:]
		j := strings.IndexByte(s, '\x02')
		if j < 0 {
			j = len(s)
		}
		b.WriteString("<mark>" + template.HTMLEscapeString(s[:j]) + "</mark>")
		s = s[min(j+1, len(s)):]
	}
	return template.HTML(b.String())
}

// lazyRegexp compiles expr on first use, not when gno starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
