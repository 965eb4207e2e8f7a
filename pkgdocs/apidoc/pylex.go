package apidoc

import (
	"strings"
)

// Python source as logical lines: what the tokenizer joins (brackets,
// backslashes, strings of any quoting) is one line, blank and comment
// lines are dropped.

// pyLine is one logical line: brackets, strings and backslashes joined.
type pyLine struct {
	start, end int // bytes of the line, indentation excluded
	indent     int
	colon      int // the first ":" outside brackets and strings, or -1
	str        int // end of the string literal the line starts with, or -1
	onlyStr    bool
}

// pyLines splits Python source into logical lines, skipping blank and
// comment-only ones. It never fails: an unterminated string or bracket
// runs to the end.
func pyLines(src string) []pyLine {
	var out []pyLine
	i := 0
	for i < len(src) {
		// indentation
		indent := 0
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f') {
			if src[i] == '\t' {
				indent += 8 - indent%8
			} else {
				indent++
			}
			i++
		}
		if i >= len(src) {
			break
		}
		if src[i] == '\n' || src[i] == '\r' || src[i] == '#' {
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i++
			continue
		}
		ln := pyLine{start: i, indent: indent, colon: -1, str: -1, onlyStr: true}
		depth := 0
		first := true
	scan:
		for i < len(src) {
			c := src[i]
			switch {
			case c == '\n':
				if depth == 0 {
					break scan
				}
				i++
			case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
				i += 2
				if i < len(src) && src[i-1] == '\r' && src[i] == '\n' {
					i++
				}
			case c == '#':
				for i < len(src) && src[i] != '\n' {
					i++
				}
			case c == '"' || c == '\'' || (isPyStrPrefix(src, i) > 0):
				p := isPyStrPrefix(src, i)
				j := pySkipString(src, i+p, strings.ContainsAny(strings.ToLower(src[i:i+p]), "f"), 0)
				if first {
					ln.str = j
				}
				first = false
				i = j
			case c == ' ' || c == '\t' || c == '\r' || c == '\f':
				i++
			default:
				ln.onlyStr = false
				first = false
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					if depth > 0 {
						depth--
					}
				case ':':
					if depth == 0 && ln.colon < 0 {
						ln.colon = i
					}
				}
				if isIdentByte(c) {
					for i < len(src) && isIdentByte(src[i]) {
						i++
					}
					continue
				}
				i++
			}
		}
		if ln.str < 0 {
			ln.onlyStr = false
		}
		ln.end = i
		if ln.end > len(src) {
			ln.end = len(src)
		}
		out = append(out, ln)
		i++
	}
	return out
}

// isPyStrPrefix returns the length of a string prefix (r, b, u, f, rb,
// br, fr, rf in any case) at i when a quote follows, else 0.
func isPyStrPrefix(src string, i int) int {
	if i > 0 && isIdentByte(src[i-1]) {
		return 0
	}
	for n := 1; n <= 2 && i+n < len(src); n++ {
		p := strings.ToLower(src[i : i+n])
		ok := false
		switch p {
		case "r", "b", "u", "f", "rb", "br", "fr", "rf", "t", "tr", "rt":
			ok = true
		}
		if !ok {
			return 0
		}
		if src[i+n] == '"' || src[i+n] == '\'' {
			return n
		}
	}
	return 0
}

// pySkipString scans a string literal whose quote is at i; in an
// f-string, replacement fields may hold strings of their own.
func pySkipString(src string, i int, fstr bool, depth int) int {
	if i >= len(src) {
		return len(src)
	}
	q := src[i]
	triple := strings.HasPrefix(src[i:], strings.Repeat(string(q), 3))
	if triple {
		i += 3
	} else {
		i++
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			i += 2
			continue
		case c == q:
			if !triple {
				return i + 1
			}
			if strings.HasPrefix(src[i:], strings.Repeat(string(q), 3)) {
				return i + 3
			}
		case c == '\n' && !triple:
			return i
		case fstr && c == '{':
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			if depth < maxLexNesting {
				i = pySkipField(src, i+1, depth+1, triple)
				continue
			}
		}
		i++
	}
	return len(src)
}

func pySkipField(src string, i, depth int, multi bool) int {
	level := 1
	for i < len(src) {
		c := src[i]
		switch {
		case c == '{' || c == '[' || c == '(':
			level++
		case c == '}' || c == ']' || c == ')':
			level--
			if level == 0 {
				return i + 1
			}
		case c == '"' || c == '\'':
			// a string inside a replacement field is an f-string only
			// when prefixed so
			f := i > 0 && (src[i-1] == 'f' || src[i-1] == 'F')
			i = pySkipString(src, i, f, depth)
			continue
		case c == '\n' && !multi:
			return i
		}
		i++
	}
	return len(src)
}

// Literal helpers for the statements the parser reads (pyparse.go).

// pyCode is s with its string literals and comments removed.
func pyCode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			i = pySkipString(s, i, false, 0) - 1
			b.WriteByte(' ')
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pySplitTop splits a bracketed literal's body at its top-level commas.
func pySplitTop(v string) []string {
	v = strings.TrimSpace(v)
	if len(v) < 2 {
		return nil
	}
	body := v[1:]
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"' || c == '\'':
			i = pySkipString(body, i, false, 0) - 1
		case c == '#':
			for i < len(body) && body[i] != '\n' {
				i++
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if s := strings.TrimSpace(body[start:i]); s != "" {
					out = append(out, s)
				}
				return out
			}
			depth--
		case c == ',' && depth == 0:
			if s := strings.TrimSpace(body[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	return out
}

// pyCutTop cuts s at the first sep outside strings and brackets.
func pyCutTop(s string, sep byte) (string, string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			i = pySkipString(s, i, false, 0) - 1
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// pyStrings returns the plain string literals in s, unquoted (prefixed
// or triple-quoted ones are skipped: names are never written so).
func pyStrings(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '#' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		if c != '"' && c != '\'' {
			continue
		}
		j := pySkipString(s, i, false, 0)
		if lit := s[i:j]; len(lit) >= 2 && lit[len(lit)-1] == c && !strings.HasPrefix(lit, `"""`) && !strings.HasPrefix(lit, "'''") {
			out = append(out, lit[1:len(lit)-1])
		}
		i = j - 1
	}
	return out
}

// pyStripComments removes # comments (an import statement holds no
// strings).
func pyStripComments(s string) string {
	if !strings.Contains(s, "#") {
		return strings.Join(strings.Fields(strings.ReplaceAll(s, "\\\n", " ")), " ")
	}
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if k := strings.IndexByte(l, '#'); k >= 0 {
			l = l[:k]
		}
		b.WriteString(l)
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(b.String(), "\\ ", " ")), " ")
}

func pyIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) || s[i] == '$' {
			return false
		}
	}
	return true
}

func pyDotted(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if !pyIdent(p) {
			return false
		}
	}
	return s != ""
}

func pyParent(mod string) string {
	if i := strings.LastIndexByte(mod, '.'); i >= 0 {
		return mod[:i]
	}
	return ""
}
