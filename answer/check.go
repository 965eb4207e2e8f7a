package answer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval"
)

// lazyRegexp compiles expr on first use: answer is linked into every gno
// command, and only `gno ask` needs these expressions.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// bracket is one bracketed group that holds citations, e.g.
// "[#a1b2c3:12-18]", "[#a1b2c3:12-18; #d4e5f6]" or a passage number "[2]".
var bracket = lazyRegexp(`\[\s*(?:#[0-9A-Za-z]{4,}(?::\d+(?:\s*[-–]\s*\d+)?)?|\d{1,2})(?:\s*[,;]\s*(?:#[0-9A-Za-z]{4,}(?::\d+(?:\s*[-–]\s*\d+)?)?|\d{1,2}))*\s*\]`)

// one is a single citation inside a bracket group.
var one = lazyRegexp(`#([0-9A-Za-z]{4,})(?::(\d+)(?:\s*[-–]\s*(\d+))?)?|(\d{1,2})`)

// loose is anything shaped like a citation the checker does not accept
// (a short or unknown id, a malformed range): it must not reach the reader
// looking checked.
var loose = lazyRegexp(`\[\s*#[0-9A-Za-z]+(?:\s*:[\d\s\-–]*)?(?:\s*[,;]\s*#?[0-9A-Za-z]+(?:\s*:[\d\s\-–]*)?)*\s*\]`)

// Check rewrites the citations of raw against the passages: each becomes
// [#docid:start-end] with a range inside a passage of that document, or is
// dropped. It returns the cleaned text, the citations kept (once each, in
// order of first use) and the ones dropped.
//
// Kept citations stand as NUL-delimited placeholders until the end, and
// the passes repeat until nothing changes: dropping "[0]" from
// "[#0:0-[0]0]" would otherwise join its neighbours into a new,
// unchecked citation.
func Check(raw string, ps []Passage) (string, []Citation, []string) {
	byDoc := map[string][]Passage{}
	for _, p := range ps {
		id := strings.ToLower(strings.TrimPrefix(p.DocID, "#"))
		byDoc[id] = append(byDoc[id], p)
	}
	cites := []Citation{}
	seen := map[string]bool{}
	var tags, dropped []string
	out := strings.ReplaceAll(raw, "\x00", "")
	for changed := true; changed; {
		changed = false
		out = bracket().ReplaceAllStringFunc(out, func(group string) string {
			changed = true
			var kept strings.Builder
			for _, m := range one().FindAllStringSubmatch(group, -1) {
				c, ok := resolve(m, ps, byDoc)
				if !ok {
					dropped = append(dropped, m[0])
					continue
				}
				tag := fmt.Sprintf("[%s:%d-%d]", c.DocID, c.Lines.Start, c.Lines.End)
				fmt.Fprintf(&kept, "\x00%d\x00", len(tags))
				tags = append(tags, tag)
				if !seen[tag] {
					seen[tag] = true
					cites = append(cites, c)
				}
			}
			return kept.String()
		})
		out = loose().ReplaceAllStringFunc(out, func(s string) string {
			changed = true
			dropped = append(dropped, s)
			return ""
		})
	}
	out = placeholder().ReplaceAllStringFunc(out, func(s string) string {
		n, _ := strconv.Atoi(strings.Trim(s, "\x00"))
		return tags[n]
	})
	if len(dropped) > 0 {
		// A dropped citation leaves "claim ." behind.
		out = spaceBeforePunct().ReplaceAllString(out, "$1")
	}
	return strings.TrimSpace(out), cites, dropped
}

var placeholder = lazyRegexp("\x00\\d+\x00")

var spaceBeforePunct = lazyRegexp(`[ \t]+([.,;!?])`)

// resolve turns one citation match into a checked Citation.
func resolve(m []string, ps []Passage, byDoc map[string][]Passage) (Citation, bool) {
	if m[4] != "" { // a passage number
		n, _ := strconv.Atoi(m[4])
		if n < 1 || n > len(ps) {
			return Citation{}, false
		}
		p := ps[n-1]
		return Citation{DocID: p.DocID, URI: p.URI, Lines: p.Lines, Passage: p.N}, true
	}
	cands := byDoc[strings.ToLower(m[1])]
	if len(cands) == 0 {
		return Citation{}, false
	}
	if m[2] == "" {
		p := cands[0]
		return Citation{DocID: p.DocID, URI: p.URI, Lines: p.Lines, Passage: p.N}, true
	}
	from, _ := strconv.Atoi(m[2])
	to := from
	if m[3] != "" {
		to, _ = strconv.Atoi(m[3])
	}
	if to < from {
		from, to = to, from
	}
	for _, p := range cands {
		s, e := max(from, p.Lines.Start), min(to, p.Lines.End)
		if s <= e {
			return Citation{DocID: p.DocID, URI: p.URI, Lines: retrieval.LineRange{Start: s, End: e}, Passage: p.N}, true
		}
	}
	return Citation{}, false
}

// sentenceEnd splits an answer into sentences, roughly.
var sentenceEnd = lazyRegexp(`[.!?。！？](\s|$)|\n+`)

// uncited counts sentences of some length that carry no citation.
func uncited(text string) int {
	n := 0
	for _, s := range sentenceEnd().Split(text, -1) {
		s = strings.TrimSpace(s)
		if len([]rune(s)) < 25 || strings.HasPrefix(s, "[#") {
			continue
		}
		if !strings.Contains(s, "[#") {
			n++
		}
	}
	return n
}

// citation matches a checked citation in the cleaned text.
var citation = lazyRegexp(`\[(#[0-9A-Za-z]+):(\d+)-(\d+)\]`)
