package postgres

import (
	"strings"
	"unicode/utf8"
)

// PathProblem names what PostgreSQL's text refuses in a path: bytes that
// are not UTF-8 and NUL.
func (s *Store) PathProblem(rel string) string { return textProblem("name", rel) }

// textProblem is why PostgreSQL's text cannot hold s ("" when it can).
func textProblem(what, s string) string {
	switch {
	case !utf8.ValidString(s):
		return what + " not valid UTF-8 (PostgreSQL cannot store it)"
	case strings.IndexByte(s, 0) >= 0:
		return what + " holds a NUL byte (PostgreSQL cannot store it)"
	}
	return ""
}

// storable reports whether PostgreSQL's text can hold every one of ss: a
// read by a value it cannot hold finds nothing, rather than failing.
func storable(ss ...string) bool {
	for _, s := range ss {
		if textProblem("", s) != "" {
			return false
		}
	}
	return true
}
