package pkgdocs

import (
	"math"
	"regexp"
	"sort"
	"strings"
)

// PeerSection is one README section as the peer ("MCP package docs",
// sammcj/mcp-package-docs) cuts it.
type PeerSection struct {
	Heading, Content string
}

// peerSkip are the heading words whose sections the peer drops
// (search-utils.ts, parseNpmDoc).
var peerSkip = []string{"sponsor", "author", "contributor", "license", "changelog", "people", "community", "triager",
	"tc ", "committee", "security", "test", "contributing"}

var peerSplit = regexp.MustCompile(`(?m)^#+ `)

// PeerSections splits a README the peer's way: before every line that
// starts with "#" and a space, keeping sections with content whose
// heading names none of the skipped topics; the package summary comes
// first as its own section.
func PeerSections(summary, readme string) []PeerSection {
	var out []PeerSection
	if summary != "" {
		out = append(out, PeerSection{Heading: "description", Content: summary})
	}
	idx := peerSplit.FindAllStringIndex(readme, -1)
	starts := []int{0}
	for _, m := range idx {
		if m[0] > 0 {
			starts = append(starts, m[0])
		}
	}
	for i, s := range starts {
		end := len(readme)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		sec := readme[s:end]
		heading, content, _ := strings.Cut(sec, "\n")
		content = strings.TrimSpace(content)
		if content == "" {
			continue
		}
		lh := strings.ToLower(heading)
		skip := false
		for _, w := range peerSkip {
			skip = skip || strings.Contains(lh, w)
		}
		if skip {
			continue
		}
		out = append(out, PeerSection{Heading: heading, Content: heading + "\n" + content})
	}
	return out
}

// PeerSearch is the peer's search_package_docs with fuzzy: true over one
// package's sections: Fuse.js (threshold 0.4, key content, ignoreLocation,
// findAllMatches), sorted by score, the first limit (the peer returns 5).
func PeerSearch(sections []PeerSection, query string, limit int) []PeerSection {
	type scored struct {
		s     PeerSection
		score float64
		i     int
	}
	var hits []scored
	for i, s := range sections {
		if sc, ok := fuseScore(s.Content, query, 0.4); ok {
			hits = append(hits, scored{s, sc, i})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score < hits[b].score })
	var out []PeerSection
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		out = append(out, h.s)
	}
	return out
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

// SectionsBM25 ranks one package's README sections by BM25 (k1 1.2,
// b 0.75) over lowercase words, stop words kept: not the peer's ranking,
// but the best a README-only approach could do with a good one, to tell
// what indexing the API adds from what ranking adds.
func SectionsBM25(sections []PeerSection, query string, limit int) []PeerSection {
	docs := make([]map[string]int, len(sections))
	lens := make([]int, len(sections))
	df := map[string]int{}
	total := 0
	for i, s := range sections {
		docs[i] = map[string]int{}
		for _, w := range wordRE.FindAllString(strings.ToLower(s.Content), -1) {
			if docs[i][w] == 0 {
				df[w]++
			}
			docs[i][w]++
			lens[i]++
		}
		total += lens[i]
	}
	if len(sections) == 0 {
		return nil
	}
	avg := float64(total) / float64(len(sections))
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	for i := range sections {
		sc := 0.0
		for _, w := range wordRE.FindAllString(strings.ToLower(query), -1) {
			tf := float64(docs[i][w])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(sections))-float64(df[w])+0.5)/(float64(df[w])+0.5))
			sc += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(lens[i])/avg))
		}
		if sc > 0 {
			hits = append(hits, scored{i, sc})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	var out []PeerSection
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		out = append(out, sections[h.i])
	}
	return out
}
