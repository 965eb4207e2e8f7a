package query

import (
	"strings"

	"github.com/gnosearch/gno/retrieval/segment"
	"unicode"
	"unicode/utf8"
)

// maxTerms bounds the work a single query can cause.
const maxTerms = 64

// Parse reads user search text: words, "exact phrases", -word and
// -"phrase" exclusions (a word starting "--", a flag, is a word). It never fails; text with nothing searchable gives
// an Empty query.
func Parse(s string) Keywords {
	s = segment.Normalize(s)
	var q Keywords
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
			if segment.Has(body) {
				// The segmented index holds the whole phrase, Latin
				// words included.
				q.SegPhrases = append(q.SegPhrases, body)
				q.CJK = append(q.CJK, segment.Runs(body)...)
			} else if p := phrase(body); p != "" {
				q.Phrases = append(q.Phrases, p)
			}
		case r == '-' && (i == 0 || isSpace(s[i-1])) && i+1 < len(s) && !isSpace(s[i+1]) && s[i+1] != '-':
			// "-word" excludes; "--version" is a command-line flag asked
			// about (it fell to an exclusion of "version"), so it is text.
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
			if segment.Has(body) {
				q.SegExcludes = append(q.SegExcludes, body)
			} else if p := phrase(body); p != "" {
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
			q.CJK = append(q.CJK, segment.Runs(s[i:j])...)
			i = j
		}
	}
	// A query of only stop words ("to be or not to be") still searches.
	if len(q.Terms) == 0 && len(q.Phrases) == 0 && len(q.CJK) == 0 {
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
// runs of letters and digits. Runs of unspaced scripts are left to the
// segmented index.
func words(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) }) {
		if hasCJK(f) {
			// Keep any Latin part of a mixed token ("API接口").
			for _, g := range strings.FieldsFunc(segment.Normalize(f), segment.IsUnspaced) {
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

func hasCJK(s string) bool { return segment.Has(s) }

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

// ParseDoc reads a plain query or a query document of typed lines.
// Untyped lines of a query document join the plain text.
func ParseDoc(s string) Doc {
	var d Doc
	var plain []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch k := strings.ToLower(strings.TrimSpace(key)); {
		case ok && k == "lex" && val != "":
			d.Lex = append(d.Lex, val)
		case ok && k == "vec" && val != "":
			d.Vec = append(d.Vec, val)
		case ok && k == "hyde" && val != "":
			d.Hyde = val
		case ok && k == "intent" && val != "":
			d.Intent = val
		case line != "":
			plain = append(plain, line)
		}
	}
	d.Text = strings.Join(plain, " ")
	if d.Text == "" {
		// The first variant stands for the query in meta and reranking.
		switch {
		case len(d.Lex) > 0:
			d.Text = d.Lex[0]
		case len(d.Vec) > 0:
			d.Text = d.Vec[0]
		default:
			d.Text = d.Hyde
		}
	}
	return d
}
