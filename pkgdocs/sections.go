package pkgdocs

import (
	"strings"
)

// section is one headed part of a Markdown (or reStructuredText) text.
type section struct {
	Level      int
	Title      string
	Start, End int // bytes of the text, heading line included
}

// sections lists the headed parts of a README or doc file, in order:
// ATX headings outside code fences, and reStructuredText titles (a line
// underlined with = - ~ ^ " ' * + #). Text before the first heading is
// not a section.
func sections(text string) []section {
	var out []section
	fence := ""
	rstLevels := map[byte]int{}
	lines := splitKeep(text)
	off := 0
	for i, line := range lines {
		start := off
		off += len(line)
		t := strings.TrimRight(line, "\r\n")
		trim := strings.TrimSpace(t)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fence = trim[:3]
			continue
		}
		if lvl := atxLevel(t); lvl > 0 {
			out = append(out, section{Level: lvl, Title: strings.TrimSpace(strings.Trim(strings.TrimSpace(t[lvl:]), "#")), Start: start})
			continue
		}
		if i+1 < len(lines) && trim != "" && !strings.HasPrefix(trim, "..") {
			u := strings.TrimSpace(strings.TrimRight(lines[i+1], "\r\n"))
			if len(u) >= 3 && len(u) >= len([]rune(trim))-1 && strings.Count(u, u[:1]) == len(u) && strings.ContainsAny(u[:1], "=-~^\"'*+#") {
				c := u[0]
				lvl, ok := rstLevels[c]
				if !ok {
					lvl = len(rstLevels) + 1
					rstLevels[c] = lvl
				}
				out = append(out, section{Level: lvl, Title: trim, Start: start})
			}
		}
	}
	for i := range out {
		out[i].End = len(text)
		for j := i + 1; j < len(out); j++ {
			if out[j].Level <= out[i].Level {
				out[i].End = out[j].Start
				break
			}
		}
	}
	return out
}

// splitKeep splits text into lines, each keeping its newline.
func splitKeep(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// atxLevel is the level of a "# Heading" line, 0 for other lines.
func atxLevel(line string) int {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 {
		return 0
	}
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(l) && l[n] != ' ' && l[n] != '\t') {
		return 0
	}
	return n
}

// findSection returns the first section whose title matches one of the
// words (case-insensitive substring), skipping titles in not.
func findSection(text string, secs []section, words []string, not map[string]bool) (section, bool) {
	for _, s := range secs {
		t := strings.ToLower(s.Title)
		if not[t] {
			continue
		}
		for _, w := range words {
			if strings.Contains(t, w) {
				return s, true
			}
		}
	}
	return section{}, false
}

// intro is the text before the first second-level heading, without a
// leading title line.
func intro(text string, secs []section) string {
	end := len(text)
	for _, s := range secs {
		if s.Level >= 2 || s.Start > 0 {
			end = s.Start
			break
		}
	}
	body := text[:end]
	if len(secs) > 0 && secs[0].Start == 0 && secs[0].Level == 1 {
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		} else {
			body = ""
		}
	}
	return strings.TrimSpace(body)
}

// apiParts splits an API unit's Markdown (apidoc: "# Name", the kind, the
// fenced signature, the doc, "## Examples") into its doc and examples.
func apiParts(text string) (doc string, examples []string) {
	lines := splitKeep(text)
	i := 0
	// Skip the heading, the kind line and the signature fence.
	for i < len(lines) && !isFence(lines[i]) && !strings.HasPrefix(lines[i], "## ") {
		i++
	}
	if i < len(lines) && isFence(lines[i]) {
		f := fenceOf(lines[i])
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), f); i++ {
		}
		i++
	}
	var d, ex strings.Builder
	inEx, fence := false, ""
	for ; i < len(lines); i++ {
		l := lines[i]
		if fence == "" && strings.TrimSpace(l) == "## Examples" {
			inEx = true
			continue
		}
		if fence != "" && strings.HasPrefix(strings.TrimSpace(l), fence) {
			fence = ""
		} else if fence == "" && isFence(l) {
			fence = fenceOf(l)
		}
		if inEx {
			ex.WriteString(l)
		} else {
			d.WriteString(l)
		}
	}
	if s := strings.TrimSpace(ex.String()); s != "" {
		examples = splitExamples(s)
	}
	return strings.TrimSpace(d.String()), examples
}

// splitExamples cuts an Examples section into its examples: each fenced
// block with the prose just before it.
func splitExamples(s string) []string {
	if secs := sections(s); len(secs) > 0 {
		// Go's examples: one "### Example..." heading each.
		var out []string
		if pre := strings.TrimSpace(s[:secs[0].Start]); pre != "" {
			out = append(out, pre)
		}
		for _, sec := range secs {
			out = append(out, strings.TrimSpace(s[sec.Start:sec.End]))
		}
		return out
	}
	var out []string
	var cur strings.Builder
	fence := ""
	for _, l := range splitKeep(s) {
		cur.WriteString(l)
		t := strings.TrimSpace(l)
		switch {
		case fence == "" && isFence(l):
			fence = fenceOf(l)
		case fence != "" && strings.HasPrefix(t, fence):
			fence = ""
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		if len(out) > 0 {
			out[len(out)-1] += "\n\n" + rest
		} else {
			out = append(out, rest)
		}
	}
	return out
}

func isFence(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// fenceOf is the run of fence characters a fence line opens with.
func fenceOf(l string) string {
	t := strings.TrimSpace(l)
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	return t[:n]
}
