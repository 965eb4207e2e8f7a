package store

import (
	"context"
	"errors"

	"github.com/gnosearch/gno/retrieval/store/wordtok"
)

// tokenizer turns a query's words into the word index's tokens exactly as
// FTS5 does: wordtok.Words is WordTokenizer in Go, proven token for token
// against FTS5 (it asked an in-memory FTS5 table before, a round of SQL
// per question).
type tokenizer struct{}

// errEmptyToken: a word cut to an empty token (a run of combining marks)
// is left to FTS5, as before (the old tokenizer could not read it back).
var errEmptyToken = errors.New("an empty token")

// tokens returns the tokens of each word, in order.
func (t *tokenizer) tokens(ctx context.Context, words []string) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]string, len(words))
	for i, w := range words {
		ts := wordtok.Words.Tokens(w)
		for _, x := range ts {
			if x == "" {
				return nil, errEmptyToken
			}
		}
		out[i] = ts
	}
	return out, nil
}

// close releases nothing: the tokenizer holds no resources.
func (t *tokenizer) close() error { return nil }
