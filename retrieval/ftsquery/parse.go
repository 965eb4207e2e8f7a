package ftsquery

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTerms bounds the work a single query can cause.
const maxTerms = 64

// Parse reads user search text: words, "exact phrases", -word and
// -"phrase" exclusions. It never fails; text with nothing searchable gives
// an Empty query.
func Parse(s string) Query {
	var q Query
	seen := map[string]bool{}
	addTerm := func(w string) {
		if len(q.Terms) < maxTerms && !seen[w] {
			seen[w] = true
			q.Terms = append(q.Terms, w)
		}
	}
	var stop []string
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			end := strings.IndexByte(s[i+1:], '"')
			var body string
			if end < 0 {
				body, i = s[i+1:], len(s)
			} else {
				body, i = s[i+1:i+1+end], i+1+end+1
			}
			if p := phrase(body); p != "" {
				q.Phrases = append(q.Phrases, p)
			}
			q.CJK = append(q.CJK, cjkRuns(body)...)
		case r == '-' && (i == 0 || isSpace(s[i-1])) && i+1 < len(s) && !isSpace(s[i+1]):
			i++
			var body string
			if s[i] == '"' {
				end := strings.IndexByte(s[i+1:], '"')
				if end < 0 {
					body, i = s[i+1:], len(s)
				} else {
					body, i = s[i+1:i+1+end], i+1+end+1
				}
			} else {
				j := i
				for j < len(s) && !isSpace(s[j]) {
					j++
				}
				body, i = s[i:j], j
			}
			if p := phrase(body); p != "" {
				q.Excludes = append(q.Excludes, p)
			}
		default:
			j := i
			for j < len(s) && !isSpace(s[j]) && s[j] != '"' {
				j++
			}
			if j == i {
				i += size
				continue
			}
			for _, w := range words(s[i:j]) {
				if stopwords[w] {
					stop = append(stop, w)
					continue
				}
				addTerm(w)
			}
			q.CJK = append(q.CJK, cjkRuns(s[i:j])...)
			i = j
		}
	}
	// A query of only stop words ("to be or not to be") still searches.
	if len(q.Terms) == 0 && len(q.Phrases) == 0 {
		for _, w := range stop {
			addTerm(w)
		}
	}
	return q
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// words splits text into lowercase word tokens the way unicode61 does:
// runs of letters and digits. CJK runs are left to the trigram side.
func words(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) }) {
		if hasCJK(f) {
			// Keep any Latin part of a mixed token ("API接口").
			for _, g := range strings.FieldsFunc(f, isCJKRune) {
				out = append(out, strings.ToLower(g))
			}
			continue
		}
		out = append(out, strings.ToLower(f))
	}
	return out
}

// phrase normalises a quoted phrase to its words joined by spaces.
func phrase(s string) string {
	return strings.Join(words(s), " ")
}

func isCJKRune(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func hasCJK(s string) bool { return strings.IndexFunc(s, isCJKRune) >= 0 }

// HasCJK reports whether text contains Chinese, Japanese or Korean script.
func HasCJK(s string) bool { return hasCJK(s) }

func cjkRuns(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if isCJKRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// stopwords are English function words dropped from OR queries: they match
// nearly every document, cost time and add no ranking signal.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by for from has have had he her his i if in into is it its
	of on or our she so than that the their them then there these they this those to was we were what when where which
	while who whom why will with would you your do does did not no can could should may might been being am`) {
		m[w] = true
	}
	return m
}()
