package store

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/gnosearch/gno/retrieval/store/wordtok"
)

// tokenizer turns a query's words, and the changed rows of the block-max
// delta, into the word index's tokens exactly as FTS5 does: wordtok.Words
// is WordTokenizer in Go, proven token for token against FTS5 (both asked
// an in-memory FTS5 table before: a round of SQL per question, an insert
// and an instance-table read per changed row). The Postgres store cuts
// its rows with the same tokenizer.
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

// rowText is a chunk's row of the word index: its id and columns.
type rowText struct {
	id                    int64
	title, headings, body string
}

// rowPostings tokenizes chunks' rows as the word index does and returns
// each token's postings (ascending rows, the weighted frequency doubled as
// in the impacts table) and each row's token count. Every token counts,
// an empty one too: FTS5 writes and counts those as well, and the delta
// checks each count against the row's stored length.
func (t *tokenizer) rowPostings(ctx context.Context, rows []rowText) (map[string][]impactPosting, map[int64]int64, error) {
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b rowText) int { return cmp.Compare(a.id, b.id) })
	post := map[string][]impactPosting{}
	counts := map[int64]int64{}
	for i, r := range sorted {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		for c, text := range [3]string{r.title, r.headings, r.body} {
			for _, term := range wordtok.Words.Tokens(text) {
				counts[r.id]++
				ps := post[term]
				if n := len(ps); n > 0 && ps[n-1].row == r.id {
					ps[n-1].f2 += colWeights2[c]
				} else {
					post[term] = append(ps, impactPosting{r.id, colWeights2[c]})
				}
			}
		}
	}
	return post, counts, nil
}
