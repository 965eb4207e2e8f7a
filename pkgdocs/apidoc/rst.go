package apidoc

import (
	"strings"
)

// The README filter for reStructuredText.

// filterRST drops reStructuredText sections named like the Markdown ones
// and badge images: headings are a line underlined (and maybe
// overlined) with one punctuation character.
func filterRST(src string) string {
	lines := strings.SplitAfter(src, "\n")
	levels := map[string]int{}
	var out strings.Builder
	dropLevel := 0
	for i := 0; i < len(lines); i++ {
		title, adorn, n := rstHeading(lines, i)
		if n > 0 {
			lv, ok := levels[adorn]
			if !ok {
				lv = len(levels) + 1
				levels[adorn] = lv
			}
			if dropLevel > 0 && lv > dropLevel {
				i += n - 1
				continue
			}
			dropLevel = 0
			if dropHeading(title) {
				dropLevel = lv
				i += n - 1
				continue
			}
			for k := 0; k < n; k++ {
				out.WriteString(lines[i+k])
			}
			i += n - 1
			continue
		}
		if dropLevel > 0 {
			continue
		}
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, ".. image::") || (strings.HasPrefix(t, ".. |") && strings.Contains(t, "image::")) {
			// the directive and its indented options
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && (lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
				i++
			}
			continue
		}
		if badgeRefLine(t) {
			continue
		}
		out.WriteString(lines[i])
	}
	return collapseBlank(out.String())
}

// badgeRefLine is a line of only |substitution| references: a badge row.
func badgeRefLine(t string) bool {
	if !strings.HasPrefix(t, "|") || !strings.HasSuffix(t, "|") {
		return false
	}
	for _, f := range strings.Fields(t) {
		if len(f) < 3 || f[0] != '|' || f[len(f)-1] != '|' {
			return false
		}
	}
	return true
}

// rstHeading reports a heading at line i: its title, adornment style and
// how many lines it takes.
func rstHeading(lines []string, i int) (string, string, int) {
	adornment := func(s string) (byte, bool) {
		s = strings.TrimRight(s, " \t\r\n")
		if len(s) < 3 {
			return 0, false
		}
		c := s[0]
		if !strings.ContainsRune("=-~^\"'`#*+_:.", rune(c)) {
			return 0, false
		}
		for j := 1; j < len(s); j++ {
			if s[j] != c {
				return 0, false
			}
		}
		return c, true
	}
	if c, ok := adornment(lines[i]); ok && i+2 < len(lines) {
		if c2, ok2 := adornment(lines[i+2]); ok2 && c2 == c && strings.TrimSpace(lines[i+1]) != "" {
			return strings.TrimSpace(lines[i+1]), "o" + string(c), 3
		}
		return "", "", 0
	}
	t := strings.TrimSpace(lines[i])
	if t == "" || i+1 >= len(lines) || lines[i][0] == ' ' {
		return "", "", 0
	}
	if c, ok := adornment(lines[i+1]); ok && len(strings.TrimRight(lines[i+1], " \t\r\n")) >= len([]rune(t)) {
		return t, string(c), 2
	}
	return "", "", 0
}
