package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/query"
)

// TestImpactSearchExact checks that the search over the block-max
// postings returns exactly FTS5's full search (documents, chunks, scores
// to the bit, order) for questions of one to eight words of every
// frequency, with repeated words and exclusions, at limits 1, 10 and 50,
// and that it is the path taken.
func TestImpactSearchExact(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 1500, 3000, 17)
	n, err := st.rebuildImpacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("%d tokens built", n)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 120 {
		var terms []string
		for range 1 + r.IntN(8) {
			lo := []int{0, 3, 10, 40, 200, 1000}[r.IntN(6)]
			terms = append(terms, words[lo+r.IntN(lo+3)])
		}
		if i%10 == 0 {
			terms = append(terms, terms[0])
		}
		if i%7 == 0 {
			terms = append(terms, "nosuchword")
		}
		text := strings.Join(terms, " ")
		if i%6 == 0 {
			text += " -" + words[5+r.IntN(60)]
		}
		checkExact(t, st, text)
	}
	if st.prune.impacts.Load() == 0 {
		t.Fatal("no question was answered from the postings")
	}
	t.Logf("%d searches from the postings", st.prune.impacts.Load())
	// Filters: a third of the documents moved to another collection (no
	// chunk changes, so the postings stay current), some tagged.
	for _, q := range []string{
		"UPDATE documents SET collection = 'o' WHERE id % 3 = 0",
		"INSERT INTO tags(doc_id, tag) SELECT id, 'x' FROM documents WHERE id % 5 = 0",
	} {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before := st.prune.impacts.Load()
	for i := range 30 {
		text := words[3+i] + " " + words[40+7*i] + " " + words[300+i]
		for _, f := range []Filter{{Collections: []string{"o"}}, {Collections: []string{"c"}, TagsAny: []string{"x"}}, {Collections: []string{"none"}}} {
			for _, limit := range []int{1, 10} {
				p, full := searchBoth(t, st, query.Parse(text), f, limit)
				if !reflect.DeepEqual(p, full) {
					t.Fatalf("%q limit %d filter %+v:\npostings %v\nfull     %v", text, limit, f, p, full)
				}
			}
		}
	}
	if st.prune.impacts.Load() == before {
		t.Fatal("no filtered question was answered from the postings")
	}
}

// TestImpactsFollowWrites checks that postings older than the index are
// not used (a write in between: FTS5 answers, exactly), that a rebuild
// brings them back, and that a word of several tokens or a filter leaves
// the search to FTS5.
func TestImpactsFollowWrites(t *testing.T) {
	ctx := context.Background()
	st, words := zipfStore(t, 400, 800, 3)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	text := words[2] + " " + words[9]
	used := func() bool {
		t.Helper()
		before := st.prune.impacts.Load()
		checkExact(t, st, text)
		return st.prune.impacts.Load() > before
	}
	if !used() {
		t.Fatal("fresh postings not used")
	}
	// A write that changes no chunk (an unchanged sync) keeps them.
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bumpWrites(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if !used() {
		t.Fatal("postings dropped after a write that changed no chunk")
	}
	// A new chunk with both words: written as the store's writers do,
	// with the writes counter.
	tx, err = st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat(words[2]+" "+words[9]+" ", 30)
	if _, err := tx.ExecContext(ctx, `INSERT INTO documents(id, collection, rel_path, hash, title, added_gen, changed_gen) VALUES (9999, 'c', 'new.md', 'h', 't', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, 't', '', ?)`, 9999<<16, body); err != nil {
		t.Fatal(err)
	}
	if err := bumpWrites(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if used() {
		t.Fatal("postings older than the index were used")
	}
	hits, err := st.SearchFTS(ctx, query.Parse(text), Filter{}, 1)
	if err != nil || len(hits) != 1 || hits[0].DocID != 9999 {
		t.Fatalf("new chunk not first: %v, %v", hits, err)
	}
	if _, err := st.rebuildImpacts(ctx); err != nil {
		t.Fatal(err)
	}
	if !used() {
		t.Fatal("rebuilt postings not used")
	}
	toks, err := st.tok.tokens(ctx, []string{"e-mail", "Running", "café"})
	if err != nil || impactWords(toks) != "e+mail run cafe" {
		t.Errorf("tokens %q, %v", toks, err)
	}
	for _, q := range []string{words[2] + ` "` + words[9] + ` ` + words[2] + `"`, words[2] + " " + words[3] + " " + words[4]} {
		before := st.prune.impacts.Load()
		checkExact(t, st, q)
		if strings.Contains(q, `"`) && st.prune.impacts.Load() != before {
			t.Errorf("%q was answered from the postings", q)
		}
	}
}

// TestImpactBlocks checks the block encoding: headers bound their blocks
// and every posting decodes back.
func TestImpactBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ps []impactPosting
	row := int64(0)
	for range 1000 {
		row += 1 + r.Int64N(1<<20)
		ps = append(ps, impactPosting{row, 2 + uint64(r.IntN(40))})
	}
	length := func(row int64) int64 { return row % 977 }
	data := encodeImpacts(ps, func(i int) int64 { return length(ps[i].row) })
	hdrs, df, err := decodeHeaders(data)
	if err != nil || df != int64(len(ps)) {
		t.Fatalf("headers: %d postings, %v", df, err)
	}
	var got []impactPosting
	for _, h := range hdrs {
		start := len(got)
		if got, err = decodeBlock(data, h, got); err != nil {
			t.Fatal(err)
		}
		for _, p := range got[start:] {
			if p.f2 > h.maxF2 || length(p.row) < h.minD || p.row <= h.first || p.row > h.last {
				t.Fatalf("posting %v outside its block's header %+v", p, h)
			}
		}
	}
	if !reflect.DeepEqual(got, ps) {
		t.Fatal("postings differ after decoding")
	}
}

// FuzzImpactBlocks checks that damaged postings (and stored rows) are
// refused, never a panic, and that what decodes re-encodes to the same
// postings.
func FuzzImpactBlocks(f *testing.F) {
	f.Add(encodeImpacts([]impactPosting{{3, 4}, {9, 2}, {70000, 7}}, func(int) int64 { return 12 }))
	f.Add([]byte{1, 5, 2, 3, 2, 5, 2})
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		// A stored row: the token, then the blocks (impactstore.go).
		if term, blocks, ok := splitStored(data); ok && len(term)+len(blocks) >= len(data) {
			t.Fatalf("a stored row of %d bytes split into %d + %d", len(data), len(term), len(blocks))
		}
		hdrs, _, err := decodeHeaders(data)
		if err != nil {
			return
		}
		var ps []impactPosting
		for _, h := range hdrs {
			if ps, err = decodeBlock(data, h, ps); err != nil {
				return
			}
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].row < ps[i-1].row {
				return // zero deltas are not written but decode
			}
		}
		again := encodeImpacts(ps, func(int) int64 { return 0 })
		h2, _, err := decodeHeaders(again)
		if err != nil {
			t.Fatalf("re-encoded postings do not decode: %v", err)
		}
		var ps2 []impactPosting
		for _, h := range h2 {
			if ps2, err = decodeBlock(again, h, ps2); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(ps, ps2) && !(len(ps) == 0 && len(ps2) == 0) {
			t.Fatalf("postings changed: %v vs %v", ps, ps2)
		}
	})
}

// TestImpactSearchIndex builds the postings on a copy of a real index
// (GNO_PRUNE_INDEX, questions from GNO_PRUNE_QUERIES as for
// TestPrunedSearchSciFact) and compares every question with FTS5's full
// search, timing both paths.
func TestImpactSearchIndex(t *testing.T) {
	src := os.Getenv("GNO_PRUNE_INDEX")
	if src == "" {
		t.Skip("GNO_PRUNE_INDEX not set")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	copyFile(t, src, path)
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now()
	n, err := st.rebuildImpacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d tokens in %v", n, time.Since(t0))
	rank := "bm25(chunks_fts, " + bm25Weights + ")"
	for _, limit := range []int{10, 50} {
		var ti, tp time.Duration
		used := st.prune.impacts.Load()
		claims := questions(t)
		for _, c := range claims {
			q := query.Parse(c)
			expr := q.MatchExpr()
			if expr == "" || q.NeedsSegmented() {
				continue
			}
			t0 := time.Now()
			h, err := st.SearchFTS(ctx, q, Filter{}, limit)
			if err != nil {
				t.Fatal(err)
			}
			t1 := time.Now()
			p, ok, err := st.searchPruned(ctx, q, expr, rank, "", nil, limit)
			if err == nil && !ok {
				p, err = st.bestPerDoc(ctx, "chunks_fts", rank, expr, "", nil, limit)
			}
			if err != nil {
				t.Fatal(err)
			}
			// SearchFTS also merges the segmented index's hits (chunks with
			// unspaced script: the generated corpora have some).
			var seg []ChunkHit
			if se := q.SegmentExpr(); se != "" {
				if seg, err = st.bestPerDoc(ctx, "chunks_seg", "bm25(chunks_seg, "+bm25Weights+")", se, "", nil, limit); err != nil {
					t.Fatal(err)
				}
			}
			p = mergeHits(p, seg, limit)
			ti += t1.Sub(t0)
			tp += time.Since(t1)
			full, err := st.bestPerDoc(ctx, "chunks_fts", rank, expr, "", nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			full = mergeHits(full, seg, limit)
			if !reflect.DeepEqual(h, full) {
				t.Errorf("%q limit %d:\npostings %v\nFTS5     %v", c, limit, h, full)
			}
			if !reflect.DeepEqual(p, full) {
				t.Logf("%q limit %d: FTS5's pruned search differs from its full one", c, limit)
			}
		}
		t.Logf("limit %d: %d questions, %d from the postings; mean %.2f ms postings vs %.2f ms FTS5 pruned", limit, len(claims),
			st.prune.impacts.Load()-used, float64(ti.Microseconds())/1000/float64(len(claims)), float64(tp.Microseconds())/1000/float64(len(claims)))
	}
}

// impactWords renders tokens per word, joined by + within a word.
func impactWords(toks [][]string) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Join(t, "+"))
	}
	return b.String()
}

// BenchmarkImpactSearch times the questions of BenchmarkSetSearch (two
// and three words of alike frequency) and SciFact-like longer ones on a
// Zipf corpus of 10,000 documents: from the block-max postings, and with
// FTS5 pruned (prune.go, prunesets.go).
func BenchmarkImpactSearch(b *testing.B) {
	ctx := context.Background()
	st, words := zipfStore(b, 10000, 20000, 13)
	if _, err := st.rebuildImpacts(ctx); err != nil {
		b.Fatal(err)
	}
	var qs []query.Keywords
	for i := range 20 {
		lo := []int{150, 400}[i%2]
		qs = append(qs, query.Parse(words[lo+i]+" "+words[lo+i+7]+strings.Repeat(" "+words[2*lo+i], i%2)))
	}
	for i := range 10 {
		var ws []string
		for j := range 9 {
			ws = append(ws, words[[]int{1, 5, 20, 60, 300, 1000, 3, 40, 2000}[j]+i])
		}
		qs = append(qs, query.Parse(strings.Join(ws, " ")))
	}
	rank := "bm25(chunks_fts, " + bm25Weights + ")"
	b.Run("postings", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := st.SearchFTS(ctx, qs[i%len(qs)], Filter{}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fts5-pruned", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			q := qs[i%len(qs)]
			h, ok, err := st.searchPruned(ctx, q, q.MatchExpr(), rank, "", nil, 10)
			if err == nil && !ok {
				_, err = st.bestPerDoc(ctx, "chunks_fts", rank, q.MatchExpr(), "", nil, 10)
			}
			if err != nil {
				b.Fatal(err)
			}
			_ = h
		}
	})
}

// BenchmarkBuildImpacts times the postings build over the index at
// $GNO_BENCH_INDEX (a copy: the build rewrites its postings) and logs a
// digest of the table built, to compare builds byte for byte; it skips
// without one.
func BenchmarkBuildImpacts(b *testing.B) {
	path := os.Getenv("GNO_BENCH_INDEX")
	if path == "" {
		b.Skip("GNO_BENCH_INDEX names no index copy")
	}
	ctx := context.Background()
	st, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// The writer is held by each merge step (start or the last "merge"
	// to the next), the build's first transaction (the last step to
	// "read", less the snapshot's first read) and its install ("install"
	// to the end).
	var start, read, install, step time.Time
	var steps int
	var longest time.Duration
	impactBuildHook = func(stage string) {
		switch stage {
		case "merge":
			longest = max(longest, time.Since(step))
			step = time.Now()
			steps++
		case "read":
			read = time.Now()
		case "install":
			install = time.Now()
		}
	}
	defer func() { impactBuildHook = func(string) {} }()
	for b.Loop() {
		start = time.Now()
		step = start
		if _, err := st.rebuildImpacts(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("merge steps %d (longest %v) and prepare %v, read and encode (snapshot) %v, install (writer) %v", steps, longest, read.Sub(start), install.Sub(read), time.Since(install))
	}
	b.Log("impacts digest", impactsDigest(b, st))
}

// impactsDigest is a SHA-256 of the postings table (hash and data, in
// hash order) and the build's meta record.
func impactsDigest(t testing.TB, st *Store) string {
	h := sha256.New()
	rows, err := st.db.Query("SELECT h, data FROM impact_postings ORDER BY h")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var data []byte
		if err := rows.Scan(&key, &data); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%d:%d:", key, len(data))
		h.Write(data)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var built string
	if err := st.db.QueryRow("SELECT value FROM meta WHERE key = ?", impactsKey).Scan(&built); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(h, "%s", built)
	return hex.EncodeToString(h.Sum(nil))
}
