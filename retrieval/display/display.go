// Package display holds the text helpers every front end shares when it
// shows engine results: numbered lines, cut content, snippets without
// their match markers. It owns no data and must not import the engine;
// how a front end lays results out (CLI colours, MCP text, HTML) stays
// with that front end.
package display

import (
	"fmt"
	"strings"
)

// SplitLines splits content into lines, without the final line end; an
// empty content is one empty line.
func SplitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{""}
	}
	return strings.Split(s, "\n")
}

// NumberLines prefixes each line with its 1-based number, starting at from.
func NumberLines(content string, from int) string {
	lines := SplitLines(content)
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%d: %s\n", from+i, l)
	}
	return b.String()
}

// Truncated is the marker appended to content cut to a length.
const Truncated = "... [truncated]"

// Truncate cuts s to at most n characters (runes), marking the cut; n <= 0
// leaves s whole.
func Truncate(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			return s[:i] + Truncated, true
		}
		count++
	}
	return s, false
}

// StripMarks removes the match markers (\x01, \x02) from a snippet.
func StripMarks(s string) string {
	return strings.NewReplacer("\x01", "", "\x02", "").Replace(s)
}
