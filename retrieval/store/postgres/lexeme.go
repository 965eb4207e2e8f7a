package postgres

import (
	"context"
	"unicode/utf8"
)

// maxLexeme is the longest term the store keeps, in bytes. FTS5 takes a
// word of any length, but a tsvector lexeme may not pass 2,046 bytes and
// a b-tree row (the postings' index) 2,704: a file of one long run of
// letters (a base64 blob, a minified line) failed the whole sync. Longer
// terms are cut at a character boundary, on the way in and in queries
// alike, so such a word is still found; two words that share their first
// maxLexeme bytes count as one, a difference from SQLite no real text
// meets.
const maxLexeme = 1024

// tokenize returns the tokens of each row in index ix (cut), each
// term cut to maxLexeme bytes.
func (t *tokenizer) tokenize(ctx context.Context, ix int, rows []row) ([][]token, error) {
	out, err := t.cut(ctx, ix, rows)
	for _, ts := range out {
		for i := range ts {
			ts[i].term = cutLexeme(ts[i].term)
		}
	}
	return out, err
}

// cutLexeme is term cut to at most maxLexeme bytes, at a character
// boundary.
func cutLexeme(term string) string {
	if len(term) <= maxLexeme {
		return term
	}
	i := maxLexeme
	for i > 0 && !utf8.RuneStart(term[i]) {
		i--
	}
	return term[:i]
}
