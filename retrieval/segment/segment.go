// Package segment makes text in scripts written without spaces between
// words (Chinese, Japanese, Korean word-internal runs, Thai, Lao, Khmer,
// Myanmar) searchable by FTS5's unicode61 tokenizer, which would otherwise
// index a whole run of such characters as one token.
//
// Every run of these characters becomes its overlapping two-character
// grams, plus the run's last character alone: "花火大会" indexes as
// "花火 火大 大会 会". Most Chinese and Japanese words are one or two
// characters long, so a two-character query matches one gram exactly and a
// one-character query is the prefix query "花"*, which reaches every
// occurrence (each character starts a gram or ends its run). Longer query
// runs become their grams. This is the CJK bigram scheme of Lucene's
// CJKBigramFilter and Elasticsearch's cjk analyzer, chosen over trigrams by
// measurement (bench/RESULTS.md, "CJK search").
//
// Index and query text go through the same NFKC normalisation first, so
// full-width Latin letters and digits, half-width katakana and
// compatibility ideographs match their ordinary forms.
//
// It owns the gram scheme; it must not import anything of gno.
package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer is the FTS5 tokenizer for segmented text: unicode61 must keep
// combining marks (Thai vowels, Devanagari signs) inside tokens, or a
// Thai gram would be cut apart at its vowel.
const Tokenizer = `porter unicode61 remove_diacritics 2 categories 'L* N* Co Mn Mc'`

// IsUnspaced reports whether r belongs to a script whose words are not
// separated by spaces (or, for Hangul, carry attached particles), so its
// runs are cut into grams.
func IsUnspaced(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	switch r {
	case 0x30FC, 0xFF70, 0x3005, 0x3006, 0x3007: // ー (also half-width), 々 〆 〇: script Common, yet word-internal
		return true
	}
	// Punctuation and symbols of these scripts (Thai ๚ and ฿, Khmer ៕,
	// Myanmar ။) separate tokens in FTS5 like any punctuation: inside a run
	// they would glue to a gram the tokenizer then cuts short.
	if !unicode.In(r, unicode.L, unicode.N, unicode.Mn, unicode.Mc) {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// Has reports whether s contains any character of an unspaced script.
func Has(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE0 { // every unspaced rune is three bytes or more
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if IsUnspaced(r) {
			return true
		}
	}
	return false
}

// Normalize applies NFKC when s holds anything outside ASCII.
func Normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFKC.String(s)
		}
	}
	return s
}

// Runs returns the maximal runs of unspaced-script characters in s, after
// normalisation.
func Runs(s string) []string {
	s = Normalize(s)
	var out []string
	start := -1
	for i, r := range s {
		if isRunRune(r, start >= 0) {
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

// isRunRune also keeps combining marks that continue a run.
func isRunRune(r rune, inRun bool) bool {
	return IsUnspaced(r) || (inRun && unicode.In(r, unicode.Mn, unicode.Mc))
}

// Grams splits one run into its overlapping two-character grams followed
// by its last character; a run of one character is itself. A "character"
// is a base rune with any combining marks after it.
func Grams(run string) []string {
	chars := characters(run)
	if len(chars) <= 1 {
		return chars
	}
	out := make([]string, 0, len(chars))
	for i := 0; i+1 < len(chars); i++ {
		out = append(out, chars[i]+chars[i+1])
	}
	return append(out, chars[len(chars)-1])
}

// QueryGrams is what a query run searches for: its two-character grams
// (the trailing single character adds nothing once the grams match), or
// the run itself when it is one character (searched as a prefix).
func QueryGrams(run string) []string {
	g := Grams(run)
	if len(g) > 1 {
		g = g[:len(g)-1]
	}
	return g
}

// OneChar reports whether run is a single character (a base rune and its
// combining marks): such a query run is searched as a prefix.
func OneChar(run string) bool { return run != "" && len(characters(run)) == 1 }

func characters(run string) []string {
	var out []string
	start := 0
	for i, r := range run {
		if i > start && !unicode.In(r, unicode.Mn, unicode.Mc) {
			out = append(out, run[start:i])
			start = i
		}
	}
	if start < len(run) {
		out = append(out, run[start:])
	}
	return out
}

// Text rewrites s for the segmented index: normalised, every unspaced run
// replaced by its grams separated by spaces, everything else kept.
func Text(s string) string {
	s = Normalize(s)
	if !Has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	start := -1
	flush := func(end int) {
		b.WriteByte(' ')
		for i, g := range Grams(s[start:end]) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g)
		}
		b.WriteByte(' ')
		start = -1
	}
	for i, r := range s {
		if isRunRune(r, start >= 0) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			flush(i)
		}
		b.WriteRune(r)
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}
