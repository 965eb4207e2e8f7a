package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
)

// BenchmarkTopKSearch: the memory and time of a search of words on
// Postgres (bm25topk.go) at 20,000 chunks (5,000 documents of four
// chunks, "the", "of" and "and" in nearly every one, other words
// Zipf-distributed): only near-universal words (the server scores), a
// rare word with common ones (MaxScore in Go), and words in ~500 and ~2,000
// chunks with common ones both ways (rows=go: MaxScore holding its
// candidate rows; rows=server: the server's statement), which is what
// maxRows was chosen from. Run with GNO_TEST_PG_URL set.
func BenchmarkTopKSearch(b *testing.B) {
	u := pgtest.Fresh(b)
	ctx := context.Background()
	pg, err := postgres.Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	rng := rand.New(rand.NewPCG(5, 9))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("v%04dq", i)
	}
	zipf := rand.NewZipf(rng, 1.05, 2, uint64(len(vocab)-1))
	df := make([]int, len(vocab)) // chunks (and titles) holding each word
	text := func(n int) string {
		var sb strings.Builder
		sb.WriteString("the of and")
		seen := map[uint64]bool{}
		for range n {
			w := zipf.Uint64()
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
			sb.WriteString(" " + vocab[w])
		}
		return sb.String()
	}
	var docs []*store.Document
	for i := range 5000 {
		d := &store.Document{Collection: "a", RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i), Title: text(2), NoLinks: true}
		var parts []string
		for j := range 4 {
			p := text(20 + rng.IntN(40))
			parts = append(parts, p)
			d.Chunks = append(d.Chunks, chunk.Chunk{Text: p, StartLine: j + 1, EndLine: j + 1})
		}
		d.Content = strings.Join(parts, "\n")
		d.Size, d.LineCount = int64(len(d.Content)), len(parts)
		docs = append(docs, d)
	}
	putAll(b, pg, docs)
	// The words whose rows are nearest 500 and 2,000 (under 1/8 of the
	// rows: read whole).
	near := func(n int) string {
		best := 0
		for i, d := range df {
			if abs(d-n) < abs(df[best]-n) {
				best = i
			}
		}
		return vocab[best]
	}
	m500, m2000, rare := near(500), near(2000), near(20)
	for _, c := range []struct {
		name  string
		terms []string
		rows  int64
	}{
		{"the", []string{"the"}, 0},
		{"the_of_and", []string{"the", "of", "and"}, 0},
		{"rare", []string{rare, "the", "of"}, 0},
		{"500/rows=go", []string{m500, "the", "of"}, 1 << 40},
		{"500/rows=server", []string{m500, "the", "of"}, -1},
		{"2000/rows=go", []string{m2000, "the", "of"}, 1 << 40},
		{"2000/rows=server", []string{m2000, "the", "of"}, -1},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.rows != 0 {
				postgres.SetMaxRows(b, max(c.rows, 0))
			}
			q := query.Keywords{Terms: c.terms}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pg.SearchFTS(ctx, q, store.Filter{}, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func abs(n int) int { return max(n, -n) }
