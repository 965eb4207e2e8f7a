package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/query"
)

// zipfCorpus writes docs documents of one to three chunks whose words
// follow Zipf's law over a vocabulary of vocab words, so that queries mix
// words in most chunks with rare ones, as natural-language questions do.
func zipfCorpus(t testing.TB, path string, docs, vocab int, seed uint64) []string {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	words := make([]string, vocab)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	r := rand.New(rand.NewPCG(seed, seed+1))
	z := rand.NewZipf(r, 1.1, 2, uint64(vocab-1))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[z.Uint64()])
			b.WriteByte(' ')
		}
		return b.String()
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for d := 1; d <= docs; d++ {
		_, err := tx.Exec(`INSERT INTO documents(id, collection, rel_path, hash, title, added_gen, changed_gen)
			VALUES (?, 'c', ?, 'h', ?, 1, 1)`, d, fmt.Sprintf("d%d.md", d), text(3))
		if err != nil {
			t.Fatal(err)
		}
		for c := range 1 + r.IntN(3) {
			// The word index is contentless: its row is written beside the
			// chunk's, as the store's writers do.
			title, heads, body := text(3), text(2), text(20+r.IntN(200))
			_, err := tx.Exec(`INSERT INTO chunks(id, doc_id, seq, title, headings, body, start_line, end_line, start_byte, end_byte)
				VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 0)`, d<<16|c, d, c, title, heads, body)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, ?, ?, ?)`, d<<16|c, title, heads, body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return words
}

// zipfStore opens a store over a new zipfCorpus, closed with the test.
func zipfStore(t testing.TB, docs, vocab int, seed uint64) (*Store, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	words := zipfCorpus(t, path, docs, vocab, seed)
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, words
}

// searchBoth runs q pruned (as SearchFTS does) and unpruned.
func searchBoth(t testing.TB, st *Store, q query.Keywords, f Filter, limit int) (pruned, full []ChunkHit) {
	t.Helper()
	ctx := context.Background()
	pruned, err := st.SearchFTS(ctx, q, f, limit)
	if err != nil {
		t.Fatal(err)
	}
	where, args := f.where()
	full, err = st.bestPerDoc(ctx, "chunks_fts", "bm25(chunks_fts, "+bm25Weights+")", q.MatchExpr(), where, args, limit)
	if err != nil {
		t.Fatal(err)
	}
	return pruned, full
}

// checkExact compares the pruned search of text with the full one at
// limits 1, 10 and 50, with and without a collection filter.
func checkExact(t *testing.T, st *Store, text string) {
	t.Helper()
	q := query.Parse(text)
	for _, limit := range []int{1, 10, 50} {
		for _, f := range []Filter{{}, {Collections: []string{"c"}}} {
			p, full := searchBoth(t, st, q, f, limit)
			if !reflect.DeepEqual(p, full) {
				t.Fatalf("%q limit %d filter %v:\npruned %v\nfull   %v", text, limit, f, p, full)
			}
		}
	}
}

// TestPrunedSearchExact checks that the pruned word-index search returns
// exactly the full search's documents, chunks and scores, in order, over
// random questions on a Zipf corpus, with and without a filter, and that
// it does prune.
func TestPrunedSearchExact(t *testing.T) {
	st, words := zipfStore(t, 1500, 3000, 7)
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.05, 4, uint64(len(words)-1))
	n := 60
	for i := range n {
		var terms []string
		for range 2 + r.IntN(9) {
			terms = append(terms, words[z.Uint64()])
		}
		if i%5 == 0 {
			// Mid-frequency words only: no term is common, the skew
			// between them decides (commonTerms).
			terms = []string{words[20+r.IntN(30)], words[200+r.IntN(800)]}
		}
		text := strings.Join(terms, " ")
		if i%7 == 0 {
			text += " -" + words[r.IntN(50)]
		}
		checkExact(t, st, text)
	}
	first, second, full := st.prune.first.Load(), st.prune.second.Load(), st.prune.full.Load()
	// The fallback to the full search (full) is the reference itself;
	// the two pruned outcomes are what must be exercised.
	if first == 0 || second == 0 {
		t.Errorf("proven on the first pass %d, on the second %d, full search %d: the test should exercise both passes", first, second, full)
	}
	t.Logf("proven on the first pass %d, on the second %d, full search %d", first, second, full)
}

// TestFTS5Varint checks the decoder against SQLite's varint format.
func TestFTS5Varint(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want uint64
		ok   bool
	}{
		{[]byte{0x05}, 5, true},
		{[]byte{0x81, 0x00}, 128, true},
		{[]byte{0x82, 0xbf, 0x1b, 0xff}, 40859, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, true},
		{[]byte{0x81}, 0, false},
		{nil, 0, false},
	} {
		got, ok := fts5Varint(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("fts5Varint(%x) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestPrunedSearchSciFact checks exactness and reports speed on every
// SciFact claim, or on the questions of GNO_PRUNE_QUERIES (one a line:
// the scale bench's, `gnoscale -print-queries`), against a copy of an
// index (GNO_PRUNE_INDEX; skipped without it). It compares the word
// index's search (the segmented index's hits, which SearchFTS merges in,
// are not pruned).
func TestPrunedSearchSciFact(t *testing.T) {
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
	claims := questions(t)
	rank := "bm25(chunks_fts, " + bm25Weights + ")"
	for _, limit := range []int{10, 50} {
		var tp, tf time.Duration
		first, second, sets := st.prune.first.Load(), st.prune.second.Load(), st.prune.sets.Load()
		for _, c := range claims {
			q := query.Parse(c)
			expr := q.MatchExpr()
			if expr == "" || q.NeedsSegmented() {
				continue
			}
			t0 := time.Now()
			p, ok, err := st.searchPruned(ctx, q, expr, rank, "", nil, limit)
			if err == nil && !ok {
				p, err = st.bestPerDoc(ctx, "chunks_fts", rank, expr, "", nil, limit)
			}
			if err != nil {
				t.Fatal(err)
			}
			t1 := time.Now()
			full, err := st.bestPerDoc(ctx, "chunks_fts", rank, expr, "", nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			tp += t1.Sub(t0)
			tf += time.Since(t1)
			if !reflect.DeepEqual(p, full) {
				t.Fatalf("%q limit %d:\npruned %v\nfull   %v", c, limit, p, full)
			}
		}
		t.Logf("limit %d: %d questions, %d proven on MaxScore's first pass, %d on its second, %d by term sets; mean %.2f ms pruned path vs %.2f ms full", limit, len(claims),
			st.prune.first.Load()-first, st.prune.second.Load()-second, st.prune.sets.Load()-sets, float64(tp.Microseconds())/1000/float64(len(claims)), float64(tf.Microseconds())/1000/float64(len(claims)))
	}
}

// questions returns the lines of GNO_PRUNE_QUERIES, or SciFact's claims.
func questions(t testing.TB) []string {
	t.Helper()
	path := os.Getenv("GNO_PRUNE_QUERIES")
	if path == "" {
		return sciFactClaims(t)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func sciFactClaims(t testing.TB) []string {
	t.Helper()
	dir := os.Getenv("GNO_EVAL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "eval")
	}
	f, err := os.Open(filepath.Join(dir, "scifact", "queries.jsonl"))
	if err != nil {
		t.Skipf("SciFact not available: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		out = append(out, q.Text)
	}
	return out
}

// FuzzFTS5Varint checks the varint decoder never reads past its input
// and decodes what SQLite's encoding of a value gives back.
func FuzzFTS5Varint(f *testing.F) {
	f.Add([]byte{0x05})
	f.Add([]byte{0x82, 0xbf, 0x1b})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := fts5Varint(b)
		if !ok {
			return
		}
		enc := sqliteVarint(v)
		if got, ok := fts5Varint(enc); !ok || got != v {
			t.Fatalf("%x decodes to %d, whose encoding %x decodes to %d, %v", b, v, enc, got, ok)
		}
	})
}

// sqliteVarint encodes v as SQLite does (sqlite3PutVarint).
func sqliteVarint(v uint64) []byte {
	if v>>56 != 0 {
		out := make([]byte, 9)
		out[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			out[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return out
	}
	var rev []byte
	for {
		rev = append(rev, byte(v&0x7f)|0x80)
		v >>= 7
		if v == 0 {
			break
		}
	}
	rev[0] &= 0x7f
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// TestCommonTerms checks the split of the first pass: terms above the
// common share first, else the skewed head.
func TestCommonTerms(t *testing.T) {
	for _, c := range []struct {
		hits []int64
		want int
	}{
		{[]int64{900, 100, 5}, 1},       // 900 in over 7 % of 10,000 rows
		{[]int64{600, 100, 5}, 1},       // 600 ≥ 4×105
		{[]int64{300, 100, 5}, 2},       // 300 < 4×105, 400 ≥ 4×5
		{[]int64{500, 400, 200, 90}, 3}, // 900 < 4×290, 1,100 ≥ 4×90
		{[]int64{300, 200, 100}, 2},
		{[]int64{50, 40}, 0},
	} {
		got := commonTerms(len(c.hits), func(i int) int64 { return c.hits[i] }, 10000)
		if got != c.want {
			t.Errorf("hits %v: %d common, want %d", c.hits, got, c.want)
		}
	}
}
