package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
)

// TestTopKAsFTS5: a search of words on Postgres, which reads the common
// words' postings only for the rows that can still reach its top
// (bm25topk.go), answers as SQLite's FTS5 scoring every row: the same
// documents, best chunks and scores, in the same order. 500 documents of
// Zipf-distributed words (a few in nearly every chunk, as "the" and "of"
// are), two collections, one to four chunks each, written to Postgres in
// six batches (several blocks per word), then a third changed (their
// postings cut out of their blocks) and a tenth removed; questions of 1–12
// words mixing common and rare ones (some twice), under limits 1 to 50,
// with and without a collection filter, ORed and ANDed, with an
// exclusion; a quarter, and questions of only common
// words or of a word in fewer documents than the limit, scored by the
// server in one statement (searchWordsSQL). The scores are equal to the bit (the old statement, which
// summed in SQL in another grouping, differed in the last bit in 519 of
// these 640 searches).
func TestTopKAsFTS5(t *testing.T) {
	ctx := context.Background()
	pg, sq := bothStores(t)

	rng := rand.New(rand.NewPCG(31, 7))
	vocab := make([]string, 400)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%03dx", i)
	}
	common := []string{"the", "of", "and", "in", "to"}
	zipf := rand.NewZipf(rng, 1.1, 3, uint64(len(vocab)-1))
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			if rng.IntN(3) == 0 {
				b.WriteString(common[rng.IntN(len(common))])
			} else {
				b.WriteString(vocab[zipf.Uint64()])
			}
		}
		for _, c := range common[:3] {
			if rng.IntN(20) != 0 {
				b.WriteString(" " + c)
			}
		}
		return b.String()
	}
	var docs []*store.Document
	for i := range 500 {
		col := "a"
		if i%3 == 0 {
			col = "b"
		}
		d := &store.Document{Collection: col, RelPath: fmt.Sprintf("%d.md", i), Hash: fmt.Sprint(i), Title: text(1 + rng.IntN(4)), NoLinks: true}
		var parts []string
		for j := range 1 + rng.IntN(4) {
			p := text(5 + rng.IntN(60))
			parts = append(parts, p)
			d.Chunks = append(d.Chunks, chunk.Chunk{Text: p, StartLine: j + 1, EndLine: j + 1})
		}
		d.Content = strings.Join(parts, "\n")
		d.Size = int64(len(d.Content))
		d.LineCount = len(parts)
		docs = append(docs, d)
	}
	// Postgres gets them in six batches (blocks of ~85 documents per
	// word), then both a third of them changed (their postings cut out of
	// the old blocks, new blocks over the same chunk ids) and a tenth
	// removed.
	putAll(t, sq, docs)
	for i := 0; i < len(docs); i += 85 {
		putAll(t, pg, docs[i:min(i+85, len(docs))])
	}
	var changed []*store.Document
	for i, d := range docs {
		if i%3 == 1 {
			c := *d
			c.Hash += "b"
			c.Chunks = nil
			for j := range 1 + rng.IntN(4) {
				c.Chunks = append(c.Chunks, chunk.Chunk{Text: text(5 + rng.IntN(60)), StartLine: j + 1, EndLine: j + 1})
			}
			changed = append(changed, &c)
		}
	}
	putAll(t, sq, changed)
	putAll(t, pg, changed)
	for _, st := range []store.Backend{sq, pg} {
		b, err := st.Begin(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs {
			if i%10 == 4 {
				m, err := st.DocByPath(ctx, d.Collection, d.RelPath)
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Remove(ctx, m.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}

	word := func() string {
		switch rng.IntN(4) {
		case 0:
			return common[rng.IntN(len(common))]
		case 1:
			return vocab[rng.IntN(len(vocab))]
		}
		return vocab[zipf.Uint64()]
	}
	checked := 0
	// Searches scored by the server (searchWordsSQL): no rare word, a
	// rare word in fewer than limit documents (θ stays 0), and, for
	// questions 60–79, every search (the rows cap at 0).
	fixed := []query.Keywords{{Terms: []string{"the"}}, {Terms: []string{"the", "of", "and"}}, {Terms: []string{"of", "the", "of"}},
		{Terms: []string{vocab[len(vocab)-1], "the", "of"}}, {Terms: []string{"and", vocab[len(vocab)-2], "in"}}, {Terms: []string{"the", "to"}, All: true}}
	for qi := range 80 + len(fixed) {
		switch qi {
		case 0:
			// A word at a time after the rarest, the words after the
			// first read in the sub-blocks that can reach θ
			// (block-max), the rarest word too common to read whole
			// first read in its best sub-block (then 50 postings).
			postgres.SetFirstRead(t, 0)
		case 30:
			postgres.SetFirstRead(t, 50)
		case 60:
			postgres.SetMaxRows(t, 0)
		case 80:
			// Only the rules on θ send these to the server.
			postgres.SetMaxRows(t, 1<<40)
		}
		var q query.Keywords
		for range 1 + rng.IntN(12) {
			q.Terms = append(q.Terms, word())
		}
		if qi%2 == 0 {
			q.Terms = append(q.Terms, common[:3]...)
		}
		switch qi % 10 {
		case 7:
			q.All = true
			q.Terms = q.Terms[:min(len(q.Terms), 2)]
		case 9:
			q.Excludes = []string{vocab[zipf.Uint64()]}
		}
		if qi >= 80 {
			q = fixed[qi-80]
		}
		for _, f := range []store.Filter{{}, {Collections: []string{"b"}}} {
			for _, limit := range []int{1, 3, 10, 50} {
				want, err := sq.SearchFTS(ctx, q, f, limit)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.SearchFTS(ctx, q, f, limit)
				if err != nil {
					t.Fatal(err)
				}
				checked++
				if !sameHits(got, want) {
					t.Errorf("%q (all %v, not %v) %v limit %d:\n postgres %v\n sqlite   %v", q.Terms, q.All, q.Excludes, f.Collections, limit, got, want)
				}
			}
		}
	}
	t.Logf("%d searches alike", checked)
}

// bothStores opens a fresh Postgres index and a fresh SQLite one, both
// closed when the test ends.
func bothStores(t *testing.T) (*postgres.Store, store.Backend) {
	t.Helper()
	pg := open(t, pgtest.Fresh(t))
	t.Cleanup(func() { pg.Close() })
	sq, err := store.OpenBackend(context.Background(), filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	return pg, sq
}

// sameHits: the same documents and chunks in the same order, with the
// same scores to the bit.
func sameHits(a, b []store.ChunkHit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// putAll writes docs to st in one batch and ends its bulk load.
func putAll(tb testing.TB, st store.Backend, docs []*store.Document) {
	tb.Helper()
	ctx := context.Background()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range docs {
		if err := b.Put(ctx, d); err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		tb.Fatal(err)
	}
	if err := st.EndBulk(ctx); err != nil {
		tb.Fatal(err)
	}
}
