// Package chunk splits documents into overlapping, structure-aware chunks
// for indexing. Markdown is split on headings first, then between blocks;
// a code fence, table or list item is never cut unless it alone is larger
// than the maximum chunk size.
package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Chunk is one indexed piece of a document.
type Chunk struct {
	// Text is the chunk's source text.
	Text string
	// Headings is the path of headings above the chunk, outermost first.
	Headings []string
	// StartLine and EndLine are 1-based and inclusive.
	StartLine, EndLine int
	// StartByte and EndByte delimit Text in the source.
	StartByte, EndByte int
}

// Options tune the chunk size.
type Options struct {
	// Tokens is the target chunk size in tokens-equivalent (default 800).
	Tokens int
	// Overlap is the share of a chunk repeated in the next one when a
	// section is split (default 0.15).
	Overlap float64
	// BreakLevel, when set, makes every heading of that level or above
	// start a chunk however small the previous one is: a converted PDF's
	// pages and a deck's slides, so that a hit cites the right one.
	BreakLevel int
}

func (o Options) norm() Options {
	if o.Tokens <= 0 {
		o.Tokens = 800
	}
	if o.Overlap < 0 || o.Overlap >= 0.5 {
		o.Overlap = 0.15
	}
	if o.Overlap == 0 {
		o.Overlap = 0.15
	}
	return o
}

// EstimateTokens approximates a model tokenizer's count: a CJK character is
// about one token, other text about four bytes a token.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other += utf8.RuneLen(r)
		}
	}
	return cjk + (other+3)/4
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// block is a contiguous span of the source that must not be cut.
type block struct {
	start, end int // byte offsets
	heading    int // heading level, 0 if not a heading
	title      string
}

// md parses CommonMark only: a GFM table is then one paragraph, which is
// just as unsplittable, and the extensions cost a millisecond of start-up
// in every gno process.
var md = goldmark.New()

// blocks parses block structure only. Chunking needs where blocks start,
// not their inline content, and CommonMark inline parsing is quadratic on
// hostile input (200k "[" took 40 s); headings get their inline text
// from md, a line at a time.
var blocks = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))

// maxNesting is the deepest container nesting (list items, block quotes)
// chunked as Markdown: goldmark's block parser slows down
// super-linearly with depth, and no real note nests this deep. Deeper
// documents are chunked as plain text.
const maxNesting = 32

// Markdown chunks Markdown source.
func Markdown(src string, opt Options) []Chunk {
	if TooDeep(src) {
		return Text(src, opt)
	}
	b := []byte(src)
	doc := blocks.Parse(text.NewReader(b))
	var blocks []block
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		pos := n.Pos()
		if pos < 0 || (len(blocks) > 0 && pos < blocks[len(blocks)-1].start) {
			continue // no position: stays with the previous block
		}
		pos = lineStart(src, pos)
		if len(blocks) > 0 && pos == blocks[len(blocks)-1].start {
			continue
		}
		bl := block{start: pos}
		if h, ok := n.(*ast.Heading); ok {
			bl.heading = h.Level
			bl.title = headingText(h, b)
		}
		blocks = append(blocks, bl)
	}
	if len(blocks) == 0 || blocks[0].start > 0 {
		blocks = append([]block{{start: 0}}, blocks...)
	}
	for i := range blocks {
		if i+1 < len(blocks) {
			blocks[i].end = blocks[i+1].start
		} else {
			blocks[i].end = len(src)
		}
	}
	return pack(src, blocks, opt.norm())
}

// Text chunks plain text by paragraphs (blank-line separated).
func Text(src string, opt Options) []Chunk {
	var blocks []block
	start := 0
	inPara := false
	for i := 0; i < len(src); {
		j := strings.IndexByte(src[i:], '\n')
		end := len(src)
		if j >= 0 {
			end = i + j + 1
		}
		blank := strings.TrimSpace(src[i:end]) == ""
		if !blank && !inPara {
			if i > start {
				blocks = append(blocks, block{start: start, end: i})
			}
			start = i
			inPara = true
		} else if blank {
			inPara = false
		}
		i = end
	}
	blocks = append(blocks, block{start: start, end: len(src)})
	return pack(src, blocks, opt.norm())
}

// maxInlineHeading is the longest heading whose inline Markdown is parsed
// for its title; a longer one keeps its raw text.
const maxInlineHeading = 1024

// maxHeadingBytes bounds a heading's text in the chunk's heading path.
const maxHeadingBytes = 256

func headingText(h *ast.Heading, src []byte) string {
	raw := InlineText(h, src)
	if len(raw) > maxHeadingBytes {
		// Every chunk under a heading carries its text: a setext heading
		// over a 2 MB paragraph must not be copied into each.
		n := maxHeadingBytes
		for n > 0 && !utf8.RuneStart(raw[n]) {
			n--
		}
		return raw[:n]
	}
	if len(raw) > maxInlineHeading || !strings.ContainsAny(raw, "*_`[]<>&\\!~") {
		return raw
	}
	doc := md.Parser().Parse(text.NewReader([]byte("# " + raw)))
	if full, ok := doc.FirstChild().(*ast.Heading); ok {
		return InlineText(full, []byte("# "+raw))
	}
	return raw
}

// TooDeep reports whether some line opens more than 32 containers:
// indentation (two columns a level), block-quote markers and list markers
// before its text. goldmark's cost grows super-linearly with nesting, so
// every reader of user Markdown (the chunker, apidoc's README filter)
// treats such a file as plain text.
func TooDeep(src string) bool {
	for i := 0; i < len(src); {
		depth, cols := 0, 0
		j := i
	scan:
		for ; j < len(src); j++ {
			switch src[j] {
			case ' ':
				cols++
			case '\t':
				cols += 4
			case '>':
				depth++
			case '-', '*', '+': // a list marker only when a space follows ("---" is a rule)
				if j+1 < len(src) && (src[j+1] == ' ' || src[j+1] == '\t') {
					depth++
				} else {
					break scan
				}
			default:
				break scan
			}
			if depth+cols/2 > maxNesting {
				return true
			}
		}
		nl := strings.IndexByte(src[j:], '\n')
		if nl < 0 {
			break
		}
		i = j + nl + 1
	}
	return false
}

// InlineText is the text of an inline node (a heading, a paragraph):
// text, strings and code spans, markup dropped.
func InlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch t := n.(type) {
			case *ast.Text:
				sb.Write(t.Segment.Value(src))
				if t.SoftLineBreak() {
					sb.WriteByte(' ')
				}
			case *ast.String:
				sb.Write(t.Value)
			case *ast.CodeSpan:
				for c := t.FirstChild(); c != nil; c = c.NextSibling() {
					if tt, ok := c.(*ast.Text); ok {
						sb.Write(tt.Segment.Value(src))
					}
				}
				return ast.WalkSkipChildren, nil
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(sb.String())
}

func lineStart(s string, pos int) int {
	if pos > len(s) {
		pos = len(s)
	}
	return strings.LastIndexByte(s[:pos], '\n') + 1
}

// pack groups blocks into chunks of about opt.Tokens.
func pack(src string, blocks []block, opt Options) []Chunk {
	maxTok := opt.Tokens
	overlapTok := int(float64(opt.Tokens) * opt.Overlap)
	lines := newLineIndex(src)
	var out []Chunk
	var path []string // heading titles by depth
	var levels []int  // heading levels matching path
	var cur []block   // blocks of the chunk being built
	var curPath []string
	curTok := 0

	emit := func(start, end int, hp []string) {
		t := src[start:end]
		trimmed := strings.TrimRight(t, " \t\r\n")
		lead := len(t) - len(strings.TrimLeft(t, " \t\r\n"))
		if strings.TrimSpace(trimmed) == "" {
			return
		}
		start += lead
		end = start + len(strings.TrimSpace(t))
		out = append(out, Chunk{
			Text:      src[start:end],
			Headings:  append([]string(nil), hp...),
			StartLine: lines.line(start),
			EndLine:   lines.line(end - 1),
			StartByte: start,
			EndByte:   end,
		})
	}
	flush := func(keepOverlap bool) {
		if len(cur) == 0 {
			return
		}
		emit(cur[0].start, cur[len(cur)-1].end, curPath)
		if !keepOverlap {
			cur, curTok = nil, 0
			return
		}
		// Carry the trailing blocks that fit in the overlap budget.
		var keep []block
		tok := 0
		for i := len(cur) - 1; i > 0; i-- {
			t := EstimateTokens(src[cur[i].start:cur[i].end])
			if tok+t > overlapTok {
				break
			}
			tok += t
			keep = append([]block{cur[i]}, keep...)
		}
		cur, curTok = keep, tok
	}

	for _, bl := range blocks {
		tok := EstimateTokens(src[bl.start:bl.end])
		if bl.heading > 0 {
			// A heading starts a new chunk unless the current one is too
			// small to stand alone.
			if curTok >= maxTok/4 || bl.heading <= opt.BreakLevel {
				flush(false)
			}
			for len(levels) > 0 && levels[len(levels)-1] >= bl.heading {
				levels, path = levels[:len(levels)-1], path[:len(path)-1]
			}
			levels, path = append(levels, bl.heading), append(path, bl.title)
		}
		if len(cur) == 0 {
			curPath = append([]string(nil), path...)
		}
		if tok > maxTok {
			// An oversized block: emit what we have, then cut the block on
			// line boundaries (or inside a giant line).
			flush(false)
			for _, piece := range splitBig(src, bl.start, bl.end, maxTok, overlapTok) {
				emit(piece[0], piece[1], path)
			}
			continue
		}
		if curTok+tok > maxTok && len(cur) > 0 {
			flush(true)
			if len(cur) == 0 {
				curPath = append([]string(nil), path...)
			}
		}
		cur = append(cur, bl)
		curTok += tok
	}
	flush(false)
	return out
}

// splitBig cuts src[start:end] into pieces of at most maxTok, on line
// boundaries where possible, with about overlapTok repeated.
func splitBig(src string, start, end, maxTok, overlapTok int) [][2]int {
	maxBytes := maxTok * 4
	if maxBytes < 64 {
		maxBytes = 64
	}
	var out [][2]int
	for start < end {
		stop := start
		tok := 0
		for stop < end {
			nl := strings.IndexByte(src[stop:end], '\n')
			next := end
			if nl >= 0 {
				next = stop + nl + 1
			}
			// A token is at most four bytes, so a line this long cannot
			// fit: measuring it would make splitting one huge line
			// quadratic.
			t := maxTok + 1
			if next-stop <= 4*(maxTok+1) {
				t = EstimateTokens(src[stop:next])
			}
			if tok+t > maxTok {
				if stop == start {
					next = cutRunes(src, stop, next, maxTok)
					stop = next
				}
				break
			}
			tok += t
			stop = next
		}
		out = append(out, [2]int{start, stop})
		if stop >= end {
			break
		}
		// Step back for overlap, to a line or rune boundary.
		back := stop - overlapTok*4
		if back <= start {
			back = stop
		}
		if nl := strings.IndexByte(src[back:stop], '\n'); nl >= 0 && back+nl+1 < stop {
			back = back + nl + 1
		} else {
			for back < stop && !utf8.RuneStart(src[back]) {
				back++
			}
		}
		start = back
	}
	return out
}

// cutRunes returns the offset in src[from:to] after which about maxTok
// tokens fit, on a rune boundary, preferring a space.
func cutRunes(src string, from, to, maxTok int) int {
	cjk, other := 0, 0
	i := from
	lastSpace := -1
	for i < to {
		r, size := utf8.DecodeRuneInString(src[i:])
		if isCJK(r) {
			cjk++
		} else {
			other += size
		}
		if cjk+(other+3)/4 > maxTok {
			break
		}
		if r == ' ' {
			lastSpace = i + 1
		}
		i += size
	}
	if lastSpace > from+(i-from)/2 {
		return lastSpace
	}
	if i == from {
		_, size := utf8.DecodeRuneInString(src[i:])
		i += size
	}
	return i
}

type lineIndex []int

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 1-based line holding byte off.
func (l lineIndex) line(off int) int {
	lo, hi := 0, len(l)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}
