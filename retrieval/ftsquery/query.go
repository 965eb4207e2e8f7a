// Package ftsquery turns a user's search text into a typed query and
// renders it as an FTS5 MATCH expression. User text never reaches FTS5
// syntax raw: every term is quoted, so quotes, '-', ':', '*', NEAR and
// parentheses are just text.
package ftsquery

import "strings"

// Query is a parsed keyword query.
type Query struct {
	// Terms are optional words; a document matches if it has any of them
	// (ranked by BM25), because requiring every word of a natural-language
	// question finds nothing.
	Terms []string
	// Phrases are "quoted phrases": each one must match.
	Phrases []string
	// Excludes are -words or -"phrases" that must not match.
	Excludes []string
	// CJK holds runs of Chinese, Japanese or Korean text, searched through
	// the trigram index because unicode61 does not split them into words.
	CJK []string
}

// Empty reports whether the query has nothing positive to search for.
func (q Query) Empty() bool {
	return len(q.Terms) == 0 && len(q.Phrases) == 0 && len(q.CJK) == 0
}

// quote renders s as an FTS5 string literal.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// MatchExpr renders the word-index expression, or "" if the query has no
// word terms or phrases.
func (q Query) MatchExpr() string {
	var parts []string
	for _, p := range q.Phrases {
		parts = append(parts, quote(p))
	}
	if len(q.Terms) > 0 {
		ts := make([]string, len(q.Terms))
		for i, t := range q.Terms {
			ts[i] = quote(t)
		}
		group := strings.Join(ts, " OR ")
		if len(parts) > 0 && len(ts) > 1 {
			group = "(" + group + ")"
		}
		if len(parts) == 0 {
			parts = append(parts, group)
		} else {
			// With a required phrase, loose terms only rank: match on the
			// phrase, and let the terms add score when present.
			parts[0] = "(" + parts[0] + " OR (" + parts[0] + " AND " + group + "))"
		}
	}
	if len(parts) == 0 {
		return ""
	}
	expr := strings.Join(parts, " AND ")
	if len(q.Excludes) > 0 {
		ex := make([]string, len(q.Excludes))
		for i, e := range q.Excludes {
			ex[i] = quote(e)
		}
		expr = "(" + expr + ") NOT (" + strings.Join(ex, " OR ") + ")"
	}
	return expr
}

// TrigramExpr renders the trigram-index expression for the CJK runs: each
// run becomes its overlapping three-character grams, ORed, so a question
// matches passages sharing any of its words.
func (q Query) TrigramExpr() string {
	var grams []string
	seen := map[string]bool{}
	for _, run := range q.CJK {
		rs := []rune(run)
		if len(rs) < 3 {
			continue
		}
		for i := 0; i+3 <= len(rs); i++ {
			g := string(rs[i : i+3])
			if !seen[g] {
				seen[g] = true
				grams = append(grams, quote(g))
			}
		}
	}
	return strings.Join(grams, " OR ")
}
