package apidoc

import "bytes"

// maxJSNesting bounds bracket nesting in a .js file: the JavaScript
// parser recurses once per level with no limit of its own, so a file of
// a million "[" or "(" overflows the goroutine stack, a fatal error that
// recover cannot catch. Real code stays far below this.
const maxJSNesting = 1000

// jsTooDeep reports whether brackets ("(", "[", "{" and a template's
// "${") nest deeper than max in src. It skips strings, template text and
// comments roughly (regular expression literals are not recognised); it
// only needs to bound what the parser will recurse into.
func jsTooDeep(src []byte, max int) bool {
	var stack []byte // the open brackets; '`' for a template's "${"
	// template scans template text from i (after "`" or an interpolation's
	// "}") to the closing "`" or an opening "${", pushing it.
	template := func(i int) int {
		for ; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '`':
				return i
			case '$':
				if i+1 < len(src) && src[i+1] == '{' {
					stack = append(stack, '`')
					return i + 1
				}
			}
		}
		return i
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '/':
			if i+1 >= len(src) {
				break
			}
			switch src[i+1] {
			case '/':
				if n := bytes.IndexByte(src[i:], '\n'); n >= 0 {
					i += n
				} else {
					i = len(src)
				}
			case '*':
				if n := bytes.Index(src[i+2:], []byte("*/")); n >= 0 {
					i += n + 3
				} else {
					i = len(src)
				}
			}
		case '\'', '"':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '`':
			i = template(i + 1)
		case '(', '[', '{':
			stack = append(stack, c)
		case ')', ']', '}':
			if len(stack) == 0 {
				break
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if c == '}' && top == '`' {
				i = template(i + 1)
			}
		}
		if len(stack) > max {
			return true
		}
	}
	return false
}
