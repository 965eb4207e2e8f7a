package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/segment"
	"github.com/gnosearch/gno/retrieval/store/wordtok"
	"github.com/jackc/pgx/v5/pgtype"
)

// Tokens.
//
// Postgres's text search parsers and stemmers are not SQLite's (its
// english config is Snowball, with stop words; its parser cuts words
// differently), and a search must mean the same on both backends. So the
// words are cut by the tokenizers of the SQLite index, in Go:
// store/wordtok is FTS5's unicode61 and porter tokenizer with SQLite's
// own character tables, proven token for token against FTS5 (the word
// index's store.WordTokenizer, the segmented index's segment.Tokenizer
// over segment.Text). The Postgres store keeps them as a tsvector whose
// lexemes are those tokens, so candidate finding (GIN) and BM25 see
// exactly the words SQLite's FTS5 sees. (It asked an in-memory FTS5 table
// before: half of a sync's CPU went to reading the tokens back.)

// The two indexes, as the ix column of the statistics names them.
const (
	ixWords = 0
	ixSeg   = 1
)

// columns of a chunk, in FTS5's order, with the base position each gets
// in the tsvector (phrases match within a column, never across) and its
// weight letter (the BM25 column weight).
var colBase = [3]int{1, 1001, 2001}

const colWeights = "ABD"

// colWeight is each column's BM25 weight (SQLite's bm25Weights).
var colWeight = [3]float64{2, 1.5, 1}

// maxPos is the largest tsvector position.
const maxPos = 16383

// tokenizer cuts text into FTS5's tokens (a value for the store to hold;
// wordtok keeps no state per store).
type tokenizer struct{}

func newTokenizer() (*tokenizer, error) { return &tokenizer{}, nil }

// Close releases nothing: the tokenizer holds no resources.
func (t *tokenizer) Close() error { return nil }

// row is one chunk's three columns.
type row [3]string

// token is one token of a row: its column and offset there.
type token struct {
	term     string
	col, off int
}

// cut returns the tokens of each row in index ix as FTS5 cuts them (the
// segmented index's rows must already be segment.Text), by column then
// offset; tokenize (lexeme.go) is what the store uses.
func (t *tokenizer) cut(ctx context.Context, ix int, rows []row) ([][]token, error) {
	tk := wordtok.Words
	if ix == ixSeg {
		tk = wordtok.Segmented
	}
	out := make([][]token, len(rows))
	var terms []string
	for i, r := range rows {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("tokenize: %w", err)
			}
		}
		ts := make([]token, 0, (len(r[0])+len(r[1])+len(r[2]))/6+1)
		for col := range r {
			terms = tk.Append(terms[:0], r[col])
			for off, term := range terms {
				ts = append(ts, token{term: term, col: col, off: off})
			}
		}
		out[i] = ts
	}
	return out, nil
}

// terms tokenizes one query string (a quoted FTS5 string) as the body of
// index ix: its tokens in order.
func (t *tokenizer) terms(ctx context.Context, ix int, s string) ([]string, error) {
	if ix == ixSeg {
		// A query string of the segmented index is already its grams
		// (query.SegmentExpr); the index's text went through segment.Text,
		// which normalises the same way.
		s = segment.Normalize(s)
	}
	toks, err := t.tokenize(ctx, ix, []row{{"", "", s}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(toks[0]))
	for i, tk := range toks[0] {
		out[i] = tk.term
	}
	return out, nil
}

// tsvector turns tokens into a tsvector: each term with its positions
// (the column's base plus the offset, at most 256, increasing), weighted
// by column. It also returns the row's length (its number of tokens, as
// FTS5 counts them for BM25), its distinct terms in byte order and each
// one's frequency weighted by column (BM25's f, the postings' wf).
func tsvector(toks []token) (tsv pgtype.TSVector, length int, terms []string, wf []float64) {
	tsv.Valid = true
	if len(toks) == 0 {
		return tsv, 0, nil, nil
	}
	// One map from term to its entry (a chunk has a few hundred tokens:
	// the map, not the tokens, was this function's cost).
	type entry struct {
		ps []pgtype.TSVectorPosition
		f  float64
	}
	idx := make(map[string]int32, len(toks)/2+1)
	ents := make([]entry, 0, len(toks)/2+1)
	terms = make([]string, 0, len(toks)/2+1)
	for _, tk := range toks {
		pos := min(colBase[tk.col]+tk.off, maxPos)
		if tk.col < 2 {
			pos = min(pos, colBase[tk.col+1]-1)
		}
		i, ok := idx[tk.term]
		if !ok {
			i = int32(len(ents))
			idx[tk.term] = i
			ents = append(ents, entry{})
			terms = append(terms, tk.term)
		}
		e := &ents[i]
		e.f += colWeight[tk.col]
		// tsvector keeps at most 256 positions of a lexeme (BM25's
		// frequency saturates long before), each once: the tokens come
		// in position order, so a repeat (a clamped position) is the
		// last one.
		if len(e.ps) < 256 && (len(e.ps) == 0 || int(e.ps[len(e.ps)-1].Position) != pos) {
			e.ps = append(e.ps, pgtype.TSVectorPosition{Position: uint16(pos), Weight: pgtype.TSVectorWeight(colWeights[tk.col])})
		}
	}
	sort.Strings(terms)
	wf = make([]float64, len(terms))
	tsv.Lexemes = make([]pgtype.TSVectorLexeme, len(terms))
	for i, t := range terms {
		e := ents[idx[t]]
		wf[i] = e.f
		tsv.Lexemes[i] = pgtype.TSVectorLexeme{Word: t, Positions: e.ps}
	}
	return tsv, len(toks), terms, wf
}

// quoteLexeme quotes a term for a tsvector or tsquery literal.
func quoteLexeme(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
