package postgres

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/segment"
)

// TestTokens: the tokens are FTS5's (porter, unicode61, diacritics
// removed), each with its column and offset, and the tsvector literal
// keeps each position once.
func TestTokens(t *testing.T) {
	tok, err := newTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	defer tok.Close()
	ctx := context.Background()
	got, err := tok.tokenize(ctx, ixWords, []row{{"Running Café", "", `it's a b\c`}, {"", "", ""}})
	if err != nil {
		t.Fatal(err)
	}
	want := []token{{"run", 0, 0}, {"cafe", 0, 1}, {"it", 2, 0}, {"s", 2, 1}, {"a", 2, 2}, {"b", 2, 3}, {"c", 2, 4}}
	if !reflect.DeepEqual(got[0], want) || len(got[1]) != 0 {
		t.Errorf("tokens %v, want %v", got, want)
	}
	tsv, n, terms, wf := tsvector(append(got[0], token{"run", 2, 5}, token{"run", 2, 20000}, token{"run", 2, 30000}))
	if n != 10 || len(terms) != 7 || wf[5] != 5 || !strings.Contains(tsv.String(), "'run':1A,2006,16383") {
		t.Errorf("tsvector %q, %d, %v, %v", tsv.String(), n, terms, wf)
	}
	if q := quoteLexeme(`o'b\`); q != `'o''b\\'` {
		t.Errorf("quoteLexeme: %s", q)
	}
	seg, err := tok.terms(ctx, ixSeg, segment.Text("数据库"))
	if err != nil || len(seg) == 0 || seg[0] != "数据" {
		t.Errorf("segmented: %v, %v", seg, err)
	}
}

// BenchmarkTokenize: a sync's chunks through the tokenizer.
func BenchmarkTokenize(b *testing.B) {
	tok, err := newTokenizer()
	if err != nil {
		b.Fatal(err)
	}
	defer tok.Close()
	body := strings.Repeat("Several lines of evidence indicate that proteins regulate cells in mice. ", 20)
	rows := []row{{"A title of the document", "Head > Sub", body}, {"A title of the document", "", body}}
	for b.Loop() {
		if _, err := tok.tokenize(context.Background(), ixWords, rows); err != nil {
			b.Fatal(err)
		}
	}
}
