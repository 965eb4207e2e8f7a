package packages

import (
	"runtime"
	"strconv"
	"strings"
)

// PEP 508 environment markers, evaluated for the project's interpreter.
// A requirement whose marker does not hold (an extra nobody asked for, a
// Python version or platform that is not this one) does not make a
// distribution a dependency. Hand-written for the same reason as
// parseRequirement; only the common keys are known, and a comparison on
// an unknown key, or one that cannot be read, counts as holding, which
// keeps a distribution rather than dropping it.

// markerEnv is what markers are evaluated against; a key absent from
// vars is unknown.
type markerEnv struct {
	vars   map[string]string
	extras map[string]bool // normalised extras asked for; none: the plain requirement
}

// newMarkerEnv describes this machine's interpreter: pyVersion is "3.11"
// (from pyvenv.cfg), full "3.11.7" when known, impl its implementation
// name ("cpython") when known.
func newMarkerEnv(pyVersion, full, impl string) markerEnv {
	v := map[string]string{}
	if pyVersion != "" {
		v["python_version"] = pyVersion
	}
	if full != "" {
		v["python_full_version"] = full
	}
	if impl != "" {
		v["implementation_name"] = strings.ToLower(impl)
		v["platform_python_implementation"] = impl
	}
	switch runtime.GOOS {
	case "linux":
		v["sys_platform"], v["platform_system"], v["os_name"] = "linux", "Linux", "posix"
	case "darwin":
		v["sys_platform"], v["platform_system"], v["os_name"] = "darwin", "Darwin", "posix"
	case "windows":
		v["sys_platform"], v["platform_system"], v["os_name"] = "win32", "Windows", "nt"
	case "freebsd":
		v["sys_platform"], v["platform_system"], v["os_name"] = "freebsd", "FreeBSD", "posix"
	}
	return markerEnv{vars: v}
}

// with returns env with these extras asked for.
func (e markerEnv) with(extras ...string) markerEnv {
	e.extras = map[string]bool{}
	for _, x := range extras {
		if x != "" {
			e.extras[normalizePyName(x)] = true
		}
	}
	return e
}

// markerHolds evaluates a marker ("" holds).
func markerHolds(marker string, env markerEnv) bool {
	if strings.TrimSpace(marker) == "" {
		return true
	}
	p := &markerParser{toks: markerTokens(marker), env: env}
	v := p.or(0)
	if p.bad || p.i != len(p.toks) {
		return true // unreadable: safe
	}
	return v
}

// maxMarkerDepth bounds parenthesis nesting.
const maxMarkerDepth = 32

type markerParser struct {
	toks []string
	i    int
	env  markerEnv
	bad  bool
}

func (p *markerParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *markerParser) or(depth int) bool {
	v := p.and(depth)
	for !p.bad && p.peek() == "or" {
		p.i++
		w := p.and(depth)
		v = v || w
	}
	return v
}

func (p *markerParser) and(depth int) bool {
	v := p.expr(depth)
	for !p.bad && p.peek() == "and" {
		p.i++
		w := p.expr(depth)
		v = v && w
	}
	return v
}

func (p *markerParser) expr(depth int) bool {
	if p.peek() == "(" {
		if depth >= maxMarkerDepth {
			p.bad = true
			return true
		}
		p.i++
		v := p.or(depth + 1)
		if p.peek() != ")" {
			p.bad = true
			return true
		}
		p.i++
		return v
	}
	l, lok := p.operand()
	op := p.peek()
	switch op {
	case "<", "<=", "!=", "==", ">=", ">", "~=", "===", "in":
		p.i++
	case "not":
		p.i++
		if p.peek() != "in" {
			p.bad = true
			return true
		}
		p.i++
		op = "not in"
	default:
		p.bad = true
		return true
	}
	r, rok := p.operand()
	if p.bad {
		return true
	}
	// extra: compared against the extras asked for, whichever side
	if l.key == "extra" || r.key == "extra" {
		other := r
		if r.key == "extra" {
			other = l
		}
		if !other.lit {
			return true
		}
		has := p.env.extras[normalizePyName(other.val)]
		switch op {
		case "==", "===":
			return has
		case "!=":
			return !has
		}
		return true
	}
	if !lok || !rok {
		return true // an unknown key: holds
	}
	return compareMarker(l.val, op, r.val, l.key == "" && r.key == "" || isVersionKey(l.key) || isVersionKey(r.key))
}

type markerOperand struct {
	key string // the variable's name; "" for a literal
	val string
	lit bool
}

// operand reads a literal or a variable; ok is false for an unknown
// variable.
func (p *markerParser) operand() (markerOperand, bool) {
	t := p.peek()
	if t == "" {
		p.bad = true
		return markerOperand{}, false
	}
	p.i++
	if t[0] == '"' || t[0] == '\'' {
		return markerOperand{val: t[1 : len(t)-1], lit: true}, true
	}
	if !isMarkerIdent(t) {
		p.bad = true
		return markerOperand{}, false
	}
	if t == "extra" {
		return markerOperand{key: t}, true
	}
	v, ok := p.env.vars[t]
	return markerOperand{key: t, val: v}, ok
}

func isVersionKey(k string) bool {
	return k == "python_version" || k == "python_full_version" || k == "implementation_version" || k == "platform_release"
}

// compareMarker compares two values: as versions when the key is a
// version and both parse, else as strings (== and != and in only; an
// ordering of strings that are no versions holds).
func compareMarker(l, op, r string, version bool) bool {
	if version {
		if lv, ok := parseMarkerVersion(l); ok {
			if rv, ok := parseMarkerVersion(r); ok {
				if wild := strings.HasSuffix(strings.TrimSpace(r), ".*"); wild && (op == "==" || op == "!=") {
					same := compareVersions(prefix(lv, len(rv)), rv) == 0
					return same == (op == "==")
				}
				if op == "~=" {
					// ~= X.Y.Z: >= X.Y.Z and == X.Y.*
					if len(rv) < 2 {
						return true
					}
					return compareVersions(lv, rv) >= 0 && compareVersions(prefix(lv, len(rv)-1), rv[:len(rv)-1]) == 0
				}
				c := compareVersions(lv, rv)
				switch op {
				case "<":
					return c < 0
				case "<=":
					return c <= 0
				case ">":
					return c > 0
				case ">=":
					return c >= 0
				case "==", "===":
					return c == 0
				case "!=":
					return c != 0
				}
			}
		}
	}
	switch op {
	case "==", "===":
		return l == r
	case "!=":
		return l != r
	case "in":
		return strings.Contains(r, l)
	case "not in":
		return !strings.Contains(r, l)
	}
	return true
}

// parseMarkerVersion reads a release "3.11.7" (what follows the numbers,
// a pre-release, "final.0" or ".*", is ignored).
func parseMarkerVersion(s string) ([]int, bool) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ".") {
		j := 0
		for j < len(part) && part[j] >= '0' && part[j] <= '9' {
			j++
		}
		if j == 0 {
			if len(out) > 0 { // "3.*", "3.12.1.final.0"
				break
			}
			return nil, false
		}
		n, err := strconv.Atoi(part[:j])
		if err != nil {
			return nil, false
		}
		out = append(out, n)
		if j < len(part) {
			break
		}
	}
	return out, len(out) > 0
}

func prefix(v []int, n int) []int {
	if len(v) >= n {
		return v[:n]
	}
	out := append([]int(nil), v...)
	for len(out) < n {
		out = append(out, 0)
	}
	return out
}

// compareVersions compares releases, missing parts counting as 0.
func compareVersions(a, b []int) int {
	for k := 0; k < max(len(a), len(b)); k++ {
		var x, y int
		if k < len(a) {
			x = a[k]
		}
		if k < len(b) {
			y = b[k]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func isMarkerIdent(t string) bool {
	for k := 0; k < len(t); k++ {
		c := t[k]
		if !(isAlnum(c) || c == '_' || c == '.') {
			return false
		}
	}
	return t != ""
}

// markerTokens splits a marker into strings (quotes kept), operators,
// parentheses and words. An unterminated string runs to the end and
// becomes an unreadable token.
func markerTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			out = append(out, string(c))
			i++
		case c == '"' || c == '\'':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return append(out, "?")
			}
			out = append(out, s[i:i+end+2])
			i += end + 2
		case strings.ContainsRune("<>=!~", rune(c)):
			j := i
			for j < len(s) && strings.ContainsRune("<>=!~", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r()\"'<>=!~", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}
