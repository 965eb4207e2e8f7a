package pkgdocs

import (
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
