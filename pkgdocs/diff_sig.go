package pkgdocs

import (
	"fmt"
	"slices"
	"strings"
)

// How a diff compares two versions' signatures: comments, whitespace and
// re-wrapping are no change; a multi-line declaration's change is shown
// as the lines only in one or the other.

// sigLines are the lines of a signature compared: comments dropped,
// whitespace collapsed, blank lines left out.
func sigLines(sig string) []string {
	var out []string
	inBlock := false
	for _, l := range strings.Split(sig, "\n") {
		l, inBlock = stripComments(l, inBlock)
		l = strings.Join(strings.Fields(l), " ")
		switch {
		case l == "":
		case len(out) > 0 && continuesLine(l):
			// A wrapped union or return type ("| None", "-> T") belongs to
			// the line above: a re-wrap is no change.
			out[len(out)-1] += " " + l
		default:
			out = append(out, l)
		}
	}
	return out
}

// continuesLine reports a line that reads as the tail of the one above.
func continuesLine(l string) bool {
	for _, p := range []string{"| ", "& ", "-> ", "=> ", "+ ", "? ", ": "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// stripComments drops // and /* */ comments (and a Python or Rust
// "# " line comment at a line's start) from a line, outside string
// literals; inBlock carries an open /* across lines.
func stripComments(l string, inBlock bool) (string, bool) {
	if t := strings.TrimSpace(l); strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "///") {
		return "", inBlock
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case inBlock:
			if c == '*' && i+1 < len(l) && l[i+1] == '/' {
				inBlock = false
				i++
			}
			continue
		case quote != 0:
			if c == '\\' && quote != '`' && i+1 < len(l) {
				b.WriteByte(c)
				i++
				c = l[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(l) && l[i+1] == '/':
			return b.String(), false
		case c == '/' && i+1 < len(l) && l[i+1] == '*':
			inBlock = true
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), inBlock
}

// containsAll reports whether every line of sub is in lines (an overload
// already seen).
func containsAll(lines, sub []string) bool {
	for _, l := range sub {
		if !slices.Contains(lines, l) {
			return false
		}
	}
	return true
}

// delta lists the lines only in a ("- ") and only in b ("+ "), at most
// maxDelta, saying how many more.
func delta(a, b []string) []string {
	in := func(l []string) map[string]bool {
		m := make(map[string]bool, len(l))
		for _, x := range l {
			m[x] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for _, l := range a {
		if !inb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b {
		if !ina[l] {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > maxDelta {
		out = append(out[:maxDelta], fmt.Sprintf("… %d more lines", len(out)-maxDelta))
	}
	return out
}
