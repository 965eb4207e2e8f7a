package apidoc

import "strings"

// The TypeScript, Rust and Swift readers share this lexer: it knows each
// language's comments and string literals (the only places where a brace
// or a keyword does not count) and nothing of its grammar. Declarations
// are then found on the token stream by small per-language walkers.

type tokKind uint8

const (
	tIdent   tokKind = iota // identifiers, keywords, numbers
	tPunct                  // one character, or "=>", "->", "::"
	tString                 // any string, char or template literal
	tComment                // a comment that is not documentation
	tDoc                    // an outer doc comment: /** */, ///
	tInner                  // an inner doc comment: //!, /*! */ (Rust)
)

type tok struct {
	kind       tokKind
	start, end int
	nl         bool // a newline precedes it
}

type lexLang struct {
	nestedComments bool // Rust and Swift block comments nest
	tripleSlash    bool // "///" is a doc comment (Rust, Swift)
	rust           bool // raw and byte strings, char literals and lifetimes
	swift          bool // """ and #" strings, \( interpolation, `name`
	ts             bool // ' strings, ` templates
}

var (
	langTS    = lexLang{ts: true}
	langRust  = lexLang{nestedComments: true, tripleSlash: true, rust: true}
	langSwift = lexLang{nestedComments: true, tripleSlash: true, swift: true}
)

// maxLexNesting bounds recursion into interpolations.
const maxLexNesting = 16

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// lex tokenizes src; it never fails: an unterminated literal or comment
// runs to the end of the input.
func lex(src string, l lexLang) []tok {
	toks := make([]tok, 0, len(src)/4+16)
	nl := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			nl = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		}
		start := i
		kind := tPunct
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += i
			}
			kind = tComment
			if l.tripleSlash && strings.HasPrefix(src[i:], "///") && !strings.HasPrefix(src[i:], "////") {
				kind = tDoc
			} else if l.rust && strings.HasPrefix(src[i:], "//!") {
				kind = tInner
			}
			i = end
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i = skipBlockComment(src, i, l.nestedComments)
			kind = tComment
			body := src[start:i]
			if strings.HasPrefix(body, "/**") && !strings.HasPrefix(body, "/**/") && !strings.HasPrefix(body, "/***") {
				kind = tDoc
			} else if l.rust && strings.HasPrefix(body, "/*!") {
				kind = tInner
			}
		case c == '"':
			kind = tString
			if l.swift && strings.HasPrefix(src[i:], `"""`) {
				i = skipSwiftString(src, i, 0, true, 0)
			} else if l.swift {
				i = skipSwiftString(src, i, 0, false, 0)
			} else {
				i = skipQuoted(src, i+1, '"')
			}
		case c == '\'' && l.ts:
			kind = tString
			i = skipQuoted(src, i+1, '\'')
		case c == '`' && l.ts:
			kind = tString
			i = skipTemplate(src, i+1, 0)
		case c == '`' && l.swift:
			kind = tIdent // `default`: a keyword used as a name
			end := strings.IndexAny(src[i+1:], "`\n")
			if end < 0 {
				i = len(src)
			} else {
				i += end + 2
			}
		case c == '\'' && l.rust:
			kind, i = rustQuote(src, i)
		case l.swift && c == '#' && rawStart(src, i) > 0:
			kind = tString
			i = skipSwiftString(src, i+rawStart(src, i), rawStart(src, i), strings.HasPrefix(src[i+rawStart(src, i):], `"""`), 0)
		case l.rust && (c == 'r' || c == 'b' || c == 'c') && rustStringPrefix(src, i) > 0:
			kind = tString
			i = skipRustString(src, i+rustStringPrefix(src, i))
		case isIdentByte(c):
			kind = tIdent
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
		default:
			i++
			if i < len(src) {
				two := src[start : i+1]
				if two == "=>" || two == "->" || two == "::" {
					i++
				}
			}
		}
		if i <= start { // never stall
			i = start + 1
		}
		if i > len(src) {
			i = len(src)
		}
		toks = append(toks, tok{kind: kind, start: start, end: i, nl: nl})
		nl = false
	}
	return toks
}

func skipBlockComment(src string, i int, nested bool) int {
	depth := 0
	for i < len(src) {
		if strings.HasPrefix(src[i:], "/*") {
			if depth == 0 || nested {
				depth++
			}
			i += 2
			continue
		}
		if strings.HasPrefix(src[i:], "*/") {
			depth--
			i += 2
			if depth == 0 {
				return i
			}
			continue
		}
		i++
	}
	return len(src)
}

// skipQuoted scans past a one-line quoted literal opened before i.
func skipQuoted(src string, i int, q byte) int {
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case q:
			return i + 1
		case '\n':
			return i // unterminated: stop at the line's end
		}
		i++
	}
	return len(src)
}

// skipTemplate scans past a TypeScript template literal opened before i,
// through ${ } substitutions that may hold strings and templates.
func skipTemplate(src string, i, depth int) int {
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			return i + 1
		case '$':
			if i+1 < len(src) && src[i+1] == '{' && depth < maxLexNesting {
				i = skipBalanced(src, i+1, depth+1)
				continue
			}
		}
		i++
	}
	return len(src)
}

// skipBalanced scans from an opening brace at i past its closing one,
// skipping strings and templates inside.
func skipBalanced(src string, i, depth int) int {
	level := 0
	for i < len(src) {
		switch src[i] {
		case '{':
			level++
		case '}':
			level--
			if level == 0 {
				return i + 1
			}
		case '"', '\'':
			i = skipQuoted(src, i+1, src[i])
			continue
		case '`':
			i = skipTemplate(src, i+1, depth)
			continue
		}
		i++
	}
	return len(src)
}

// rawStart returns how many '#' open a Swift raw string at i, or 0.
func rawStart(src string, i int) int {
	n := 0
	for i+n < len(src) && src[i+n] == '#' {
		n++
	}
	if i+n < len(src) && src[i+n] == '"' {
		return n
	}
	return 0
}

// skipSwiftString scans a Swift string whose opening quote is at i:
// hashes raw delimiters, multi for """ literals, \( ) interpolations
// (which may hold strings) in non-raw ones.
func skipSwiftString(src string, i, hashes int, multi bool, depth int) int {
	closing := `"` + strings.Repeat("#", hashes)
	if multi {
		closing = `"""` + strings.Repeat("#", hashes)
		i += 3
	} else {
		i++
	}
	for i < len(src) {
		c := src[i]
		if c == '\\' {
			if hashes == 0 && i+1 < len(src) && src[i+1] == '(' && depth < maxLexNesting {
				i = skipSwiftInterp(src, i+1, depth+1)
				continue
			}
			i += 2
			continue
		}
		if c == '\n' && !multi {
			return i
		}
		if strings.HasPrefix(src[i:], closing) {
			return i + len(closing)
		}
		i++
	}
	return len(src)
}

func skipSwiftInterp(src string, i, depth int) int {
	level := 0
	for i < len(src) {
		switch src[i] {
		case '(':
			level++
		case ')':
			level--
			if level == 0 {
				return i + 1
			}
		case '"':
			i = skipSwiftString(src, i, 0, strings.HasPrefix(src[i:], `"""`), depth)
			continue
		case '\n':
			return i
		}
		i++
	}
	return len(src)
}

// rustStringPrefix returns the length of a raw/byte/C string prefix at i
// up to the quote (r", r#", b", br#", c", cr"), or 0.
func rustStringPrefix(src string, i int) int {
	if i > 0 && isIdentByte(src[i-1]) {
		return 0
	}
	j := i
	if src[j] == 'b' || src[j] == 'c' {
		j++
		if j < len(src) && src[j] == '"' {
			return j - i
		}
		if j < len(src) && src[j] == '\'' && src[i] == 'b' {
			return 0 // b'x' is lexed as a char literal after the ident "b"
		}
	}
	if j < len(src) && src[j] == 'r' {
		j++
		for j < len(src) && src[j] == '#' {
			j++
		}
		if j < len(src) && src[j] == '"' {
			return j - i
		}
	}
	return 0
}

// skipRustString scans a string whose prefix ended at i (at the quote,
// after r and hashes when raw).
func skipRustString(src string, i int) int {
	hashes := 0
	raw := false
	for k := i - 1; k >= 0 && (src[k] == '#' || src[k] == 'r'); k-- {
		if src[k] == 'r' {
			raw = true
			break
		}
		hashes++
	}
	if !raw {
		for i++; i < len(src); i++ { // may span lines
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(src)
	}
	closing := `"` + strings.Repeat("#", hashes)
	end := strings.Index(src[i+1:], closing)
	if end < 0 {
		return len(src)
	}
	return i + 1 + end + len(closing)
}

// rustQuote tells a char literal ('a', '\n', '\u{1F600}') from a
// lifetime or label ('a, 'static) at i.
func rustQuote(src string, i int) (tokKind, int) {
	if i+1 < len(src) && src[i+1] == '\\' {
		end := strings.IndexByte(src[i+2:], '\'')
		if end < 0 || end > 12 {
			return tPunct, i + 1
		}
		return tString, i + 2 + end + 1
	}
	// one rune then a quote: a char literal
	j := i + 1
	if j < len(src) {
		j++
		for j < len(src) && src[j]&0xC0 == 0x80 {
			j++
		}
		if j < len(src) && src[j] == '\'' {
			return tString, j + 1
		}
	}
	j = i + 1
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	if j == i+1 {
		return tPunct, i + 1
	}
	return tIdent, j
}

// matchBrackets returns, for each opening (, [ or { token, the index of
// its closing token (len(toks) when unclosed); other entries are -1. A
// stray closer is ignored; a closer of the wrong kind closes the nearest
// opener of its kind, leaving those between unclosed.
func matchBrackets(src string, toks []tok) []int {
	m := make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		m[i] = -1
		if t.kind != tPunct || t.end-t.start != 1 {
			continue
		}
		switch c := src[t.start]; c {
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			open := byte('(')
			if c == ']' {
				open = '['
			} else if c == '}' {
				open = '{'
			}
			for k := len(stack) - 1; k >= 0; k-- {
				if src[toks[stack[k]].start] == open {
					for _, u := range stack[k+1:] {
						m[u] = len(toks)
					}
					m[stack[k]] = i
					stack = stack[:k]
					break
				}
			}
		}
	}
	for _, u := range stack {
		m[u] = len(toks)
	}
	return m
}
