package postgres_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// TestBlocksMergeAsFTS5: a daemon's one-note syncs (200 of them here,
// each one document new or changed, every seventh also removing one)
// add a block per term and sync; the flushes merge a term's small
// blocks, so no term has more than a few blocks, and every search still
// answers as SQLite's FTS5 does, to the bit. The first 40 are a bulk
// load, which leaves its blocks unmerged; the syncs after shrink its
// piles.
func TestBlocksMergeAsFTS5(t *testing.T) {
	ctx := context.Background()
	pg, sq := bothStores(t)

	rng := rand.New(rand.NewPCG(5, 11))
	vocab := make([]string, 60)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("v%02dy", i)
	}
	zipf := rand.NewZipf(rng, 1.2, 2, uint64(len(vocab)-1))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ") + " the"
	}
	doc := func(i int, hash string) *store.Document {
		d := &store.Document{Collection: "n", RelPath: fmt.Sprintf("%d.md", i), Hash: hash, Title: text(2), NoLinks: true}
		var parts []string
		for j := range 1 + rng.IntN(3) {
			p := text(3 + rng.IntN(30))
			parts = append(parts, p)
			d.Chunks = append(d.Chunks, chunk.Chunk{Text: p, StartLine: j + 1, EndLine: j + 1})
		}
		d.Content = strings.Join(parts, "\n")
		d.Size, d.LineCount = int64(len(d.Content)), len(parts)
		return d
	}
	// sync writes d and removes the document at gone (if any) in one
	// batch, as a daemon's sync of a note does (no EndBulk).
	sync := func(st store.Backend, d *store.Document, gone string) {
		t.Helper()
		b, err := st.Begin(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
		if gone != "" {
			m, err := st.DocByPath(ctx, "n", gone)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	// alike checks 240 searches against FTS5's and returns their number.
	qrng := rand.New(rand.NewPCG(8, 3))
	alike := func() int {
		t.Helper()
		n := 0
		for qi := range 60 {
			var q query.Keywords
			for range 1 + qrng.IntN(5) {
				q.Terms = append(q.Terms, vocab[qrng.IntN(len(vocab))])
			}
			if qi%3 == 0 {
				q.Terms = append(q.Terms, "the")
			}
			switch qi % 10 {
			case 7:
				q.All = true
				q.Terms = q.Terms[:min(len(q.Terms), 2)]
			case 9:
				q.Excludes = []string{vocab[zipf.Uint64()]}
			}
			for _, limit := range []int{1, 5, 20, 100} {
				want, err := sq.SearchFTS(ctx, q, store.Filter{}, limit)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.SearchFTS(ctx, q, store.Filter{}, limit)
				if err != nil {
					t.Fatal(err)
				}
				n++
				// The two number documents apart (Postgres's upserts use up
				// ids): compare paths, chunks' places and scores.
				if !sameHits(named(t, pg, got), named(t, sq, want)) {
					t.Errorf("%q (all %v, not %v) limit %d:\n postgres %v\n sqlite   %v", q.Terms, q.All, q.Excludes, limit, got, want)
				}
			}
		}
		return n
	}
	// most is the most blocks a term has.
	most := func() (most, rows int) {
		t.Helper()
		if err := pg.OneForTest(ctx, "SELECT coalesce(max(c), 0), coalesce(sum(c), 0) FROM (SELECT count(*) AS c FROM fts_blocks GROUP BY ix, term) x", &most, &rows); err != nil {
			t.Fatal(err)
		}
		return most, rows
	}
	live := map[int]bool{}
	checked := 0
	for _, st := range []store.Backend{sq, pg} {
		if err := st.BeginBulk(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		if i == 40 {
			// The first 40 were a bulk load: unmerged, a block per
			// sync for "the"; the syncs after merge them 16 at a time.
			for _, st := range []store.Backend{sq, pg} {
				if err := st.EndBulk(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// (Less those whose one document changed or went: the cut
			// deletes a block it empties.)
			m, rows := most()
			if m <= 16 {
				t.Errorf("a bulk load of 40 one-note batches left at most %d blocks a term; want more than 16, mergeMax (unmerged)", m)
			}
			t.Logf("after a bulk load of 40 one-note batches: at most %d blocks a term, %d blocks", m, rows)
			checked += alike()
		}
		n := i
		if i%5 == 4 && len(live) > 0 {
			n = rng.IntN(i) // a change of an earlier note (or its return)
		}
		d := doc(n, fmt.Sprint(i))
		gone := ""
		if i%7 == 6 {
			for _, k := range slices.Sorted(maps.Keys(live)) {
				if k != n {
					gone = fmt.Sprintf("%d.md", k)
					delete(live, k)
					break
				}
			}
		}
		live[n] = true
		sync(sq, d, gone)
		sync(pg, d, gone)
	}

	// Fewer than 8 small blocks a term (mergeAt), and no large one here.
	m, rows := most()
	if m >= 8 {
		t.Errorf("a term has %d blocks after 200 one-note syncs; want fewer than 8", m)
	}
	t.Logf("after 200 one-note syncs (the first 40 a bulk load): at most %d blocks a term, %d blocks", m, rows)

	t.Logf("%d searches alike", alike()+checked)
}

// named gives hits their documents' places (the number in its path) in
// place of their ids, and their chunks' numbers within the document.
func named(t *testing.T, st store.Backend, hits []store.ChunkHit) []store.ChunkHit {
	t.Helper()
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.DocID
	}
	docs, err := st.Docs(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]store.ChunkHit, len(hits))
	for i, h := range hits {
		m := docs[h.DocID]
		if m == nil {
			t.Fatalf("hit of document %d, not found", h.DocID)
		}
		var n int64
		if _, err := fmt.Sscanf(m.RelPath, "%d.md", &n); err != nil {
			t.Fatal(err)
		}
		out[i] = store.ChunkHit{ChunkID: h.ChunkID & 0xffff, DocID: n, Score: h.Score}
	}
	return out
}
