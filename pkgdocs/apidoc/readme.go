package apidoc

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// readme finds the README at the package root (or the one metadata found,
// as in a wheel's METADATA) and adds it filtered.
func (x *extractor) readme() {
	var best string
	rank := 99
	entries, _ := readDirNames(x.fsys, ".")
	for _, n := range entries {
		l := strings.ToLower(n)
		if !strings.HasPrefix(l, "readme") {
			continue
		}
		r := 99
		switch strings.TrimPrefix(l, "readme") {
		case ".md", ".markdown", ".mdx":
			r = 0
		case "":
			r = 1
		case ".rst":
			r = 2
		case ".txt", ".rdoc", ".adoc", ".org":
			r = 3
		}
		if r < rank {
			best, rank = n, r
		}
	}
	var src, kind string
	if best != "" {
		data, _, err := x.readFile(best, false)
		switch {
		case err != nil:
			x.warn(best, "README not read: %v", cleanErr(err))
		case isBinary(data):
			x.warn(best, "README is binary: left out")
		default:
			src = validUTF8(x, best, data)
			kind = "md"
			if rank == 2 {
				kind = "rst"
			} else if rank == 3 {
				kind = "txt"
			}
		}
	}
	if src == "" && x.readmeText != "" {
		src, kind = x.readmeText, x.readmeKind
		best = x.readmeFrom
	}
	if strings.TrimSpace(src) == "" {
		return
	}
	var out string
	switch kind {
	case "md":
		out = FilterMarkdown(src)
	case "rst":
		out = filterRST(src)
	default:
		out = src
	}
	if strings.TrimSpace(out) == "" {
		return
	}
	x.readmeSummary = summarize(out, kind)
	x.add(Unit{Kind: KindReadme, Path: "readme." + kind, Title: firstTitle(out, kind, x.pkg.Name), Text: out, File: best})
}

// FilterMarkdown keeps what a reader of a README needs to use the package
// (intro, install, usage, API, examples, configuration) and drops badges,
// logos, sponsor blocks and sections about the project rather than the
// code: licence, contributors, sponsors, changelog, code of conduct,
// acknowledgements and the like.
func FilterMarkdown(src string) string {
	if chunk.TooDeep(src) {
		return src // goldmark's cost grows with nesting; no real README nests this deep
	}
	b := []byte(src)
	doc := mdParser.Parse(text.NewReader(b))
	type blk struct {
		start, end int
		n          ast.Node
	}
	var blocks []blk
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		pos := n.Pos()
		if pos < 0 || (len(blocks) > 0 && pos < blocks[len(blocks)-1].start) {
			continue
		}
		pos = lineStart(src, pos)
		if len(blocks) > 0 && pos == blocks[len(blocks)-1].start {
			continue
		}
		blocks = append(blocks, blk{start: pos, n: n})
	}
	if len(blocks) == 0 {
		return src
	}
	for i := range blocks {
		if i+1 < len(blocks) {
			blocks[i].end = blocks[i+1].start
		} else {
			blocks[i].end = len(src)
		}
	}
	var out strings.Builder
	if blocks[0].start > 0 {
		out.WriteString(src[:blocks[0].start])
	}
	dropLevel := 0 // inside a dropped section of this heading level
	divDepth := 0  // inside a sponsor <div> this deep
	for _, bl := range blocks {
		part := src[bl.start:bl.end]
		if divDepth > 0 {
			if _, ok := bl.n.(*ast.HTMLBlock); ok {
				divDepth += strings.Count(part, "<div") - strings.Count(part, "</div")
			}
			continue
		}
		drop := false
		switch n := bl.n.(type) {
		case *ast.Heading:
			if dropLevel > 0 && n.Level > dropLevel {
				drop = true
				break
			}
			dropLevel = 0
			if dropHeading(chunk.InlineText(n, b)) {
				dropLevel, drop = n.Level, true
			}
		case *ast.Paragraph:
			drop = dropLevel > 0 || badgeParagraph(n, b)
		case *ast.HTMLBlock:
			if dropLevel > 0 {
				drop = true
				break
			}
			l := strings.ToLower(part)
			if sponsorRe.MatchString(l) {
				drop = true
				divDepth = strings.Count(l, "<div") - strings.Count(l, "</div")
			} else if strings.TrimSpace(htmlTagRe.ReplaceAllString(part, "")) == "" {
				drop = true // logos, badges, rules: markup without words
			}
		default:
			drop = dropLevel > 0
		}
		if !drop {
			out.WriteString(part)
		}
	}
	return collapseBlank(out.String())
}

var (
	htmlTagRe = regexp.MustCompile(`(?s)<!--.*?-->|<[^>]*>|&nbsp;`)
	sponsorRe = regexp.MustCompile(`sponsor|supported by|backers|backed by|donate`)
	spaceRe   = regexp.MustCompile(`\n{3,}`)
)

func collapseBlank(s string) string { return spaceRe.ReplaceAllString(s, "\n\n") }

// strongWords in a heading of up to five words mark a section about the
// project rather than the code.
var strongWords = map[string]bool{
	"license": true, "licence": true, "licensing": true, "licenses": true, "copyright": true,
	"contributors": true, "contributing": true, "contribute": true, "contributions": true,
	"sponsors": true, "sponsor": true, "sponsorship": true, "backers": true, "supporters": true,
	"changelog": true, "acknowledgements": true, "acknowledgments": true, "acknowledgement": true,
	"acknowledgment": true, "stargazers": true,
}

// weakWords do the same only as a one-word heading: "History" is a
// changelog, "History API" is not.
var weakWords = map[string]bool{
	"history": true, "changes": true, "credits": true, "thanks": true, "authors": true, "author": true,
	"maintainers": true, "funding": true, "donate": true, "donations": true, "team": true, "people": true,
	"security": true,
}

// dropPrefixes open a heading that marks a section about the project.
var dropPrefixes = []string{"code of conduct", "release notes", "star history", "special thanks", "security policy", "reporting security",
	"support the project", "support us", "release history", "version history", "change history", "revision history", "the team",
	"our team", "core team", "project status", "who uses"}

func dropHeading(h string) bool {
	words := strings.FieldsFunc(strings.ToLower(h), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return false
	}
	norm := strings.Join(words, " ")
	for _, p := range dropPrefixes {
		if norm == p || strings.HasPrefix(norm, p+" ") {
			return true
		}
	}
	if len(words) > 5 {
		return false // a long heading is about something else
	}
	for _, w := range words {
		if strongWords[w] || (len(words) == 1 && weakWords[w]) {
			return true
		}
	}
	return false
}

// badgeParagraph reports a paragraph of images (alone or linked,
// Markdown or <img>) and nothing else worth reading: badge rows, logos.
func badgeParagraph(p *ast.Paragraph, src []byte) bool {
	images, other := 0, false
	var visit func(n ast.Node, inLink bool)
	visit = func(n ast.Node, inLink bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Image:
				images++
			case *ast.Link:
				if inLink {
					other = true
					continue
				}
				visit(t, true)
			case *ast.Text:
				if strings.TrimSpace(string(t.Segment.Value(src))) != "" {
					other = true
				}
			case *ast.RawHTML:
				var sb strings.Builder
				for i := 0; i < t.Segments.Len(); i++ {
					seg := t.Segments.At(i)
					sb.Write(seg.Value(src))
				}
				h := sb.String()
				if strings.Contains(strings.ToLower(h), "<img") {
					images++
				} else if strings.TrimSpace(htmlTagRe.ReplaceAllString(h, "")) != "" {
					other = true
				}
			default:
				other = true
			}
		}
	}
	visit(p, false)
	return images > 0 && !other
}

func lineStart(s string, pos int) int {
	if pos > len(s) {
		pos = len(s)
	}
	return strings.LastIndexByte(s[:pos], '\n') + 1
}

// summarize takes the README's first paragraph of prose, markup removed.
func summarize(s, kind string) string {
	for _, para := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "<") || strings.HasPrefix(p, "```") ||
			strings.HasPrefix(p, "..") || strings.HasPrefix(p, "|") || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "[!") ||
			strings.HasPrefix(p, ">") || strings.HasPrefix(p, "-") || strings.HasPrefix(p, "*") || strings.HasPrefix(p, "=") {
			continue
		}
		if kind == "rst" {
			if _, _, n := rstHeading(strings.SplitAfter(p+"\n", "\n"), 0); n > 0 {
				continue
			}
		}
		p = mdLinkRe.ReplaceAllString(p, "$1")
		p = htmlTagRe.ReplaceAllString(p, "")
		p = strings.Join(strings.Fields(strings.NewReplacer("`", "", "**", "", "__", "").Replace(p)), " ")
		if len(p) < 20 {
			continue
		}
		return cutText(p, 400)
	}
	return ""
}

var mdLinkRe = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// cutText cuts s at a word boundary near n bytes.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func firstTitle(s, kind, fallback string) string {
	for _, line := range strings.SplitN(s, "\n", 200) {
		t := strings.TrimSpace(line)
		if kind == "md" && strings.HasPrefix(t, "#") {
			if h := strings.TrimSpace(strings.TrimLeft(t, "#")); h != "" {
				return cutText(h, 120)
			}
		}
	}
	return fallback
}
