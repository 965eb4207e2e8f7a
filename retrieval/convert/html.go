package convert

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// dropTags are page furniture, not content: navigation, forms, embedded
// graphics. Scripts, styles and <head> are dropped by the base plugin.
var dropTags = []string{"nav", "aside", "form", "button", "select", "svg", "canvas", "template", "object", "embed", "dialog"}

func newHTMLConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(table.WithHeaderPromotion(true), table.WithSpanCellBehavior(table.SpanBehaviorEmpty)),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, t := range dropTags {
		conv.Register.TagType(t, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
}

// HTML converts a web page: headings, lists, tables, links and code are
// kept; scripts, styles, navigation and forms are dropped. The charset is
// taken from a BOM or <meta>, else assumed UTF-8 (windows-1252 when the
// bytes are not UTF-8).
func HTML(ctx context.Context, data []byte, _ Limits) (*Doc, error) {
	r, err := charset.NewReader(bytes.NewReader(data), "text/html")
	if err != nil {
		return nil, fail(ReasonCorrupt, "html charset: %v", err)
	}
	root, err := html.Parse(r)
	if err != nil {
		return nil, fail(ReasonCorrupt, "html: %v", err)
	}
	return htmlNode(ctx, root)
}

func htmlNode(ctx context.Context, root *html.Node) (*Doc, error) {
	title := ""
	if t := findElement(root, "title"); t != nil {
		title = strings.Join(strings.Fields(textOf(t)), " ")
	}
	dropHidden(root)
	md, err := newHTMLConverter().ConvertNode(root, converter.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	return &Doc{Markdown: string(md), Title: title}, nil
}

// dropHidden removes elements that say they are navigation or hidden
// (role="navigation", aria-hidden, hidden, display:none, furniture ids
// and classes), which tag names miss.
func dropHidden(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && hiddenElement(c) {
			n.RemoveChild(c)
		} else {
			if c.Type == html.ElementNode && c.Data == "table" {
				clampTable(c)
			}
			dropHidden(c)
		}
		c = next
	}
}

// Span caps: the table plugin builds the full grid, so one cell claiming
// colspan=99999 rowspan=99999 would cost gigabytes (found by FuzzHTML).
// Spans are clamped per cell, and dropped from a table whose grid would
// still pass maxGridCells.
const maxColspan, maxRowspan, maxGridCells = 32, 64, 200_000

func clampTable(t *html.Node) {
	var cells []*html.Node
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				cells = append(cells, c)
			}
			collect(c)
		}
	}
	collect(t)
	grid := 0
	for _, c := range cells {
		grid += clampSpans(c, false)
	}
	if grid > maxGridCells {
		for _, c := range cells {
			clampSpans(c, true)
		}
	}
}

// clampSpans caps a cell's spans (or resets them to 1 when drop) and
// returns the grid cells it covers.
func clampSpans(n *html.Node, drop bool) int {
	area := 1
	for i, a := range n.Attr {
		limit := 0
		switch a.Key {
		case "colspan":
			limit = maxColspan
		case "rowspan":
			limit = maxRowspan
		default:
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(a.Val))
		if err != nil || v < 1 || drop {
			v = 1
		}
		v = min(v, limit)
		n.Attr[i].Val = strconv.Itoa(v)
		area *= v
	}
	return area
}

// furnitureNames are ids and class names that mark site furniture on
// pages that do not use <nav> (exact tokens, so "menu-item" content and
// "sidebar-note" asides are kept), and Sphinx's "¶" permalinks.
var furnitureNames = map[string]bool{"nav": true, "navbar": true, "navigation": true, "menu": true, "topbar": true,
	"breadcrumb": true, "breadcrumbs": true, "sidebar": true, "sphinxsidebar": true, "skip-link": true,
	"cookie-banner": true, "headerlink": true}

func hiddenElement(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "id", "class":
			for _, tok := range strings.Fields(strings.ToLower(a.Val)) {
				if furnitureNames[tok] {
					return true
				}
			}
		case "style":
			if st := strings.ReplaceAll(strings.ToLower(a.Val), " ", ""); strings.Contains(st, "display:none") {
				return true
			}
		case "role":
			if a.Val == "navigation" || a.Val == "banner" || a.Val == "search" {
				return true
			}
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "hidden":
			return true
		}
	}
	return false
}

func findElement(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, tag); f != nil {
			return f
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
