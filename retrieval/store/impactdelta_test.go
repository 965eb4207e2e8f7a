package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
)

// deltaDoc is a document of the Zipf vocabulary written through the
// store's own batch, its chunks ranges of its content (text.go).
func deltaDoc(r *rand.Rand, words []string, rel string, chunks int) *Document {
	z := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	d := &Document{Collection: "c", RelPath: rel, Hash: fmt.Sprint(r.Uint64()), Title: words[z.Uint64()] + " " + words[z.Uint64()]}
	var content strings.Builder
	for i := range chunks {
		start := content.Len()
		for range 10 + r.IntN(120) {
			content.WriteString(words[z.Uint64()] + " ")
		}
		d.Chunks = append(d.Chunks, chunk.Chunk{Text: content.String()[start:], Headings: []string{words[z.Uint64()]}, StartLine: i + 1, EndLine: i + 1, StartByte: start, EndByte: content.Len()})
		content.WriteString("\n")
	}
	d.Content = content.String()
	return d
}

// TestImpactsDeltaExact checks the postings after syncs that change,
// add and remove documents through the store's batch (impactdelta.go):
// every search still equals FTS5's full search to the bit, answered from
// the postings, until the changed rows pass impactDeltaMax; a rebuild
// empties the delta.
func TestImpactsDeltaExact(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 600, 1200, 11)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 22))
	questions := func(n int) []string {
		var qs []string
		for i := range n {
			var terms []string
			for range 1 + r.IntN(5) {
				lo := []int{0, 3, 10, 40, 200}[r.IntN(5)]
				terms = append(terms, words[lo+r.IntN(lo+3)])
			}
			text := strings.Join(terms, " ")
			if i%5 == 0 {
				text += " -" + words[5+r.IntN(30)]
			}
			qs = append(qs, text)
		}
		// A word only the new documents hold.
		return append(qs, "zzdeltaonly "+words[4])
	}
	for round := range 4 {
		b, err := st.Begin(ctx, int64(2+round))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 15 {
			// Changed documents (rewritten under the same ids), new ones,
			// and removed ones.
			if err := b.Put(ctx, deltaDoc(r, words, fmt.Sprintf("d%d.md", 1+r.IntN(600)), 1+r.IntN(3))); err != nil {
				t.Fatal(err)
			}
			nd := deltaDoc(r, words, fmt.Sprintf("new-%d-%d.md", round, i), 1+r.IntN(2))
			if i%4 == 0 {
				nd.Chunks[0].Text += "zzdeltaonly"
				nd.Content = nd.Content[:nd.Chunks[0].EndByte] + "zzdeltaonly" + nd.Content[nd.Chunks[0].EndByte:]
				for j := 1; j < len(nd.Chunks); j++ {
					nd.Chunks[j].StartByte += len("zzdeltaonly")
					nd.Chunks[j].EndByte += len("zzdeltaonly")
				}
				nd.Chunks[0].EndByte += len("zzdeltaonly")
			}
			if err := b.Put(ctx, nd); err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(ctx, int64(1+r.IntN(600))); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		before := st.prune.impacts.Load()
		for _, q := range questions(25) {
			checkExact(t, st, q)
		}
		if st.prune.impacts.Load() == before {
			t.Fatalf("round %d: no question answered from the postings after a sync", round)
		}
		t.Logf("round %d: %d of %d searches from the postings", round, st.prune.impacts.Load()-before, 26*6)
	}
	var stale int
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_changed").Scan(&stale); err != nil || stale == 0 {
		t.Fatalf("changed rows %d, %v", stale, err)
	}
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM impacts_changed").Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("changed rows after a rebuild %d, %v", stale, err)
	}
	for _, q := range questions(10) {
		checkExact(t, st, q)
	}
}

// TestImpactsDeltaTooLarge: past impactDeltaMax changed rows FTS5
// answers, exactly.
func TestImpactsDeltaTooLarge(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 200, 400, 13)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.ExecContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i <= ?) INSERT INTO impacts_changed(row, built) SELECT (100000 + i) << 16, 0 FROM n", impactDeltaMax); err != nil {
		t.Fatal(err)
	}
	before := st.prune.impacts.Load()
	checkExact(t, st, words[2]+" "+words[9])
	if st.prune.impacts.Load() != before {
		t.Fatal("answered from the postings past impactDeltaMax")
	}
}

// TestBuildPostingsPolicy: BuildPostings builds missing postings and,
// with behind, postings whose delta passed half of impactDeltaMax; else
// it leaves them.
func TestBuildPostingsPolicy(t *testing.T) {
	ctx := context.Background()
	st, _ := zipfStore(t, 100, 200, 17)
	// PostingsNeeded (asked without the lock) agrees with each build below.
	needs := func(behind, want bool) {
		t.Helper()
		if got, err := st.PostingsNeeded(ctx, behind); err != nil || got != want {
			t.Fatalf("PostingsNeeded(behind %v) = %v, %v; want %v", behind, got, err, want)
		}
	}
	needs(false, true)
	built, err := st.BuildPostings(ctx, false, nil)
	if err != nil || !built {
		t.Fatalf("missing postings: built %v, %v", built, err)
	}
	for _, behind := range []bool{false, true} {
		needs(behind, false)
		if built, err := st.BuildPostings(ctx, behind, nil); err != nil || built {
			t.Fatalf("current postings (behind %v): built %v, %v", behind, built, err)
		}
	}
	if _, err := st.db.ExecContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i <= ?) INSERT INTO impacts_changed(row, built) SELECT (100000 + i) << 16, 0 FROM n", impactDeltaMax/2); err != nil {
		t.Fatal(err)
	}
	needs(false, false)
	needs(true, true)
	if built, err := st.BuildPostings(ctx, false, nil); err != nil || built {
		t.Fatalf("a delta past half the limit without behind: built %v, %v", built, err)
	}
	if built, err := st.BuildPostings(ctx, true, func(done, total int) {}); err != nil || !built {
		t.Fatalf("a delta past half the limit with behind: built %v, %v", built, err)
	}
	// The first encoding (no tag) is rebuilt, never read.
	if _, err := st.db.ExecContext(ctx, "UPDATE meta SET value = 'x/y' WHERE key = ?", impactsKey); err != nil {
		t.Fatal(err)
	}
	if built, err := st.BuildPostings(ctx, false, nil); err != nil || !built {
		t.Fatalf("first-encoding postings: built %v, %v", built, err)
	}
}

// TestImpactDeltaIsSnapshot: with a delta in use, a sync through the
// store's batch committed before each of the search's statements in turn
// (the delta's reads included) leaves the search the state before or
// after it, never a mix.
func TestImpactDeltaIsSnapshot(t *testing.T) {
	ctx := context.Background()
	write := func(st *Store, words []string, gen int64, rel string) error {
		b, err := st.Begin(context.Background(), gen)
		if err != nil {
			return err
		}
		defer b.Rollback()
		r := rand.New(rand.NewPCG(uint64(gen), 1))
		d := deltaDoc(r, words, rel, 2)
		d.Chunks[0].Text += strings.Repeat(" "+words[2]+" "+words[9], 10)
		d.Content = d.Chunks[0].Text + "\n" + d.Content[d.Chunks[1].StartByte:]
		shift := len(d.Chunks[0].Text) + 1 - d.Chunks[1].StartByte
		d.Chunks[0].EndByte = len(d.Chunks[0].Text)
		d.Chunks[1].StartByte += shift
		d.Chunks[1].EndByte += shift
		if err := b.Put(context.Background(), d); err != nil {
			return err
		}
		if err := b.Remove(context.Background(), gen); err != nil {
			return err
		}
		return b.Commit()
	}
	fresh := func() (*Store, []string) {
		st, words := zipfStore(t, 200, 400, 5)
		if _, err := st.rebuildImpacts(ctx); err != nil {
			t.Fatal(err)
		}
		if err := write(st, words, 2, "d7.md"); err != nil {
			t.Fatal(err)
		}
		return st, words
	}
	snapshotEachStatement(t, fresh, func(st *Store, words []string) {
		if err := write(st, words, 3, "new.md"); err != nil {
			t.Error(err)
		}
	}, 40)
}
