// Package query owns what a user's search text means. The text is parsed
// once (parse.go) into typed values (this file): a Doc, the query split
// into its typed variants (lex:, vec:, hyde:, intent: lines), and
// Keywords, the text for the keyword indexes, which renders itself as FTS5
// MATCH expressions, one for the word index and one for the segmented
// index of unspaced scripts (package segment).
//
// User text never reaches FTS5 syntax raw: every term is quoted, so
// quotes, '-', ':', '*', NEAR and parentheses are just text. The package
// runs no search and must not import the store or the engine.
package query

import (
	"strings"

	"github.com/gnosearch/gno/retrieval/segment"
)

// Doc is a query split into its typed variants. A plain query has only
// Text; a query document gives lex:, vec:, hyde: and intent: lines.
type Doc struct {
	// Text is the query proper: the untyped lines, or the first variant
	// when there are none. It stands for the query in meta and reranking.
	Text string
	// Lex are keyword variants, searched with BM25.
	Lex []string
	// Vec are variants searched with vectors.
	Vec []string
	// Hyde is a hypothetical answer passage, searched with vectors.
	Hyde string
	// Intent is what the user looks for, given to the reranker.
	Intent string
}

// Keywords is user text parsed for the keyword (BM25) indexes.
type Keywords struct {
	// Terms are optional words; a document matches if it has any of them
	// (ranked by BM25), because requiring every word of a natural-language
	// question finds nothing.
	Terms []string
	// Phrases are "quoted phrases": each one must match.
	Phrases []string
	// Excludes are -words or -"phrases" that must not match.
	Excludes []string
	// CJK holds runs of Chinese, Japanese, Korean or other unspaced
	// script (NFKC-normalised), searched through the segmented index
	// because unicode61 does not split them into words.
	CJK []string
	// SegPhrases and SegExcludes are quoted phrases and exclusions that
	// contain unspaced script: only the segmented index can evaluate them.
	SegPhrases  []string
	SegExcludes []string
	// All requires every term (AND): text searched as it is typed
	// (AsYouType).
	All bool
}

// AsYouType is q for a box that searches as the user types (a command
// palette): every word is required, so more words narrow the list as a
// quick switcher does, and cheaply (BM25 scores only the documents that
// have them all, where the ORed words of a sentence match most of a
// corpus: on SciFact it scores a quarter as many rows); when partial
// (the text does not end in a space) the last word is still being
// typed and is left out, unless it is the only one. A prefix query
// ("wor"*) would find the word being typed, but FTS5 merges the lists of
// every word with that prefix, which cost more than the BM25 it saved;
// titles complete by prefix elsewhere (Graph.Complete).
func (q Keywords) AsYouType(partial bool) Keywords {
	q.All = true
	if partial && len(q.Terms)+len(q.Phrases) > 1 && len(q.Terms) > 0 {
		q.Terms = q.Terms[:len(q.Terms)-1]
	}
	return q
}

// Empty reports whether the query has nothing positive to search for.
func (q Keywords) Empty() bool {
	return len(q.Terms) == 0 && len(q.Phrases) == 0 && len(q.CJK) == 0 && len(q.SegPhrases) == 0
}

// NeedsSegmented reports whether only the segmented index can answer: a
// required phrase is in unspaced script, which the word index cannot see.
func (q Keywords) NeedsSegmented() bool { return len(q.SegPhrases) > 0 }

// SegExcludeExpr renders the exclusions in unspaced script as a match
// expression for the segmented index ("" without any), so hits from the
// word index can be checked against them.
func (q Keywords) SegExcludeExpr() string {
	var ex []string
	for _, p := range q.SegExcludes {
		if e := segPhrase(p); e != "" {
			ex = append(ex, e)
		}
	}
	return strings.Join(ex, " OR ")
}

// quote renders s as an FTS5 string literal.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// MatchExpr renders the word-index expression, or "" if the query has no
// word terms or phrases.
func (q Keywords) MatchExpr() string {
	phrases := make([]string, len(q.Phrases))
	for i, p := range q.Phrases {
		phrases[i] = quote(p)
	}
	terms := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		terms[i] = quote(t)
	}
	excludes := make([]string, len(q.Excludes))
	for i, e := range q.Excludes {
		excludes[i] = quote(e)
	}
	if q.All {
		// Every term required: they join the phrases.
		phrases, terms = append(phrases, terms...), nil
	}
	return render(terms, phrases, excludes)
}

// SegmentExpr renders the segmented-index expression: the word terms and
// the grams of every unspaced run ORed (a one-character run is a prefix
// query, reaching every gram that starts with it), phrases and exclusions
// as before, their unspaced runs as phrases of grams. The segmented index
// also holds the Latin words of its chunks (often glued to kana, as in
// "SQLiteの"), so it is searched for every query.
func (q Keywords) SegmentExpr() string {
	var terms []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			terms = append(terms, s)
		}
	}
	for _, t := range q.Terms {
		add(quote(t))
	}
	// A lone character between punctuation in a longer question ("《X》是")
	// is a prefix query over many grams: it cost CMRC2018 20% more time
	// and changed no ranking, so it is searched only when it is all there is.
	long := false
	for _, run := range q.CJK {
		long = long || !segment.OneChar(run)
	}
	for _, run := range q.CJK {
		if long && segment.OneChar(run) {
			continue
		}
		for _, g := range runTerms(run) {
			add(g)
		}
	}
	phrases := make([]string, 0, len(q.Phrases)+len(q.SegPhrases))
	for _, p := range q.Phrases {
		phrases = append(phrases, quote(p))
	}
	for _, p := range q.SegPhrases {
		if e := segPhrase(p); e != "" {
			phrases = append(phrases, e)
		}
	}
	excludes := make([]string, 0, len(q.Excludes)+len(q.SegExcludes))
	for _, e := range q.Excludes {
		excludes = append(excludes, quote(e))
	}
	for _, p := range q.SegExcludes {
		if e := segPhrase(p); e != "" {
			excludes = append(excludes, e)
		}
	}
	return render(terms, phrases, excludes)
}

// runTerms are the rendered grams of one query run.
func runTerms(run string) []string {
	gs := segment.QueryGrams(run)
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = quote(g)
		if len(gs) == 1 && segment.OneChar(g) {
			out[i] += "*"
		}
	}
	return out
}

// segPhrase renders a quoted phrase holding unspaced script: each run as
// the phrase of its consecutive grams, ANDed with the phrase's words.
func segPhrase(p string) string {
	var parts []string
	if w := phrase(p); w != "" {
		parts = append(parts, quote(w))
	}
	for _, run := range segment.Runs(p) {
		gs := segment.QueryGrams(run)
		if len(gs) == 1 && segment.OneChar(gs[0]) {
			parts = append(parts, quote(gs[0])+"*")
			continue
		}
		parts = append(parts, quote(strings.Join(gs, " ")))
	}
	if len(parts) == 0 {
		return ""
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// render joins pre-rendered parts: optional terms ORed, required phrases
// ANDed, exclusions NOTed. With a required phrase, loose terms only rank.
func render(terms, phrases, excludes []string) string {
	parts := append([]string(nil), phrases...)
	if len(terms) > 0 {
		group := strings.Join(terms, " OR ")
		if len(parts) > 0 && len(terms) > 1 {
			group = "(" + group + ")"
		}
		if len(parts) == 0 {
			parts = append(parts, group)
		} else {
			parts[0] = "(" + parts[0] + " OR (" + parts[0] + " AND " + group + "))"
		}
	}
	if len(parts) == 0 {
		return ""
	}
	expr := strings.Join(parts, " AND ")
	if len(excludes) > 0 {
		expr = "(" + expr + ") NOT (" + strings.Join(excludes, " OR ") + ")"
	}
	return expr
}
