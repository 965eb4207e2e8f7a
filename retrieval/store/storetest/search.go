package storetest

import (
	"context"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// The contract of searches and vectors.

// testBM25Score: a search's score is FTS5's BM25 (k1 1.2, b 0.75, the
// column weights title 2, headings 1.5, body 1, the length of a row all
// its columns' words), whichever backend computes it.
func testBM25Score(t *testing.T, st store.Backend) {
	ctx := context.Background()
	// Rows (title words + body words): "T" is one word of title.
	put(t, st, 1,
		doc("c", "1.md", "T", "kiwi apple apple"),   // kiwi ×1 body, 4 words
		doc("c", "2.md", "kiwi", "pear plum"),       // kiwi ×1 title, 3 words
		doc("c", "3.md", "T", "plum plum plum fig"), // no kiwi, 5 words
	)
	const k1, b = 1.2, 0.75
	n, avg := 3.0, 12.0/3
	idf := math.Log((n - 2 + 0.5) / (2 + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	want := func(freq, length float64) float64 {
		return idf * freq * (k1 + 1) / (freq + k1*(1-b+b*length/avg))
	}
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"kiwi"}}, store.Filter{}, 10)
	check(t, err)
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2", len(hits))
	}
	got := map[string]float64{}
	docs, _ := st.Docs(ctx, []int64{hits[0].DocID, hits[1].DocID})
	for _, h := range hits {
		got[docs[h.DocID].RelPath] = h.Score
	}
	for rel, w := range map[string]float64{"1.md": want(1, 4), "2.md": want(2, 3)} {
		if math.Abs(got[rel]-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: score %g, want %g", rel, got[rel], w)
		}
	}
	if docs[hits[0].DocID].RelPath != "2.md" {
		t.Errorf("a title match ranks below a body match: %v", hits)
	}
	// A word one batch writes and drops again leaves no count behind: a
	// document written with "durian", then again without it.
	bt, err := st.Begin(ctx, 2)
	check(t, err)
	check(t, bt.Put(ctx, doc("c", "4.md", "F", "durian")))
	check(t, bt.Put(ctx, doc("c", "4.md", "F", "fig")))
	check(t, bt.Commit())
	put(t, st, 3, doc("c", "5.md", "D", "durian fig"))
	n, avg = 5, 17.0/5 // rows of 4, 3, 5, 2 and 3 words
	idf = math.Log((n - 1 + 0.5) / (1 + 0.5))
	hits, err = st.SearchFTS(ctx, query.Keywords{Terms: []string{"durian"}}, store.Filter{}, 10)
	check(t, err)
	if w := idf * 1 * (k1 + 1) / (1 + k1*(1-b+b*3/avg)); len(hits) != 1 || math.Abs(hits[0].Score-w) > 1e-9*math.Max(1, math.Abs(w)) {
		t.Errorf("durian after a batch wrote and dropped it: %+v, want one hit scoring %g", hits, w)
	}
}

func testSearch(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1,
		doc("n", "zebra.md", "Zebras", "The zebra is a striped horse.\n\nZebras live in Africa."),
		doc("n", "horse.md", "Horses", "A horse runs fast. Horses are running animals."),
		doc("n", "cafe.md", "Café", "The café serves coffee."),
		doc("m", "other.md", "Other", "A horse of another collection."),
	)
	rels := func(q query.Keywords, f store.Filter) []string {
		hits, err := st.SearchFTS(ctx, q, f, 10)
		check(t, err)
		var ids []int64
		for _, h := range hits {
			ids = append(ids, h.DocID)
			if store.DocOfChunk(h.ChunkID) != h.DocID || h.Score <= 0 {
				t.Errorf("hit %+v", h)
			}
		}
		docs, err := st.Docs(ctx, ids)
		check(t, err)
		var out []string
		for _, h := range hits {
			out = append(out, docs[h.DocID].RelPath)
		}
		return out
	}
	// Stemming: "running" finds "runs"/"running"; one hit per document.
	if got := rels(query.Keywords{Terms: []string{"running"}}, store.Filter{}); !reflect.DeepEqual(got, []string{"horse.md"}) {
		t.Errorf("running: %v", got)
	}
	// Diacritics fold: "cafe" finds "café".
	if got := rels(query.Keywords{Terms: []string{"cafe"}}, store.Filter{}); !reflect.DeepEqual(got, []string{"cafe.md"}) {
		t.Errorf("cafe: %v", got)
	}
	got := rels(query.Keywords{Terms: []string{"horse"}}, store.Filter{Collections: []string{"n"}})
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"horse.md", "zebra.md"}) {
		t.Errorf("horse in n: %v", got)
	}
	if got := rels(query.Keywords{Terms: []string{"horse"}, Excludes: []string{"zebra"}}, store.Filter{Collections: []string{"n"}}); !reflect.DeepEqual(got, []string{"horse.md"}) {
		t.Errorf("horse -zebra: %v", got)
	}
	if got := rels(query.Keywords{Phrases: []string{"striped horse"}}, store.Filter{}); !reflect.DeepEqual(got, []string{"zebra.md"}) {
		t.Errorf(`"striped horse": %v`, got)
	}
	if got := rels(query.Keywords{Phrases: []string{"horse striped"}}, store.Filter{}); len(got) != 0 {
		t.Errorf(`"horse striped": %v`, got)
	}
	if got := rels(query.Keywords{Terms: []string{"horse", "striped"}, All: true}, store.Filter{}); !reflect.DeepEqual(got, []string{"zebra.md"}) {
		t.Errorf("horse AND striped: %v", got)
	}
	if got := rels(query.Keywords{Terms: []string{"nothing"}}, store.Filter{}); len(got) != 0 {
		t.Errorf("nothing: %v", got)
	}
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"horse"}}, store.Filter{}, 1)
	check(t, err)
	if len(hits) != 1 {
		t.Errorf("limit 1: %d hits", len(hits))
	}
}

// testSearchSegmented: a word of unspaced script is found through the
// segmented index, as SQLite's FTS finds it.
func testSearchSegmented(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1,
		doc("z", "zh.md", "数据库", "全文检索是数据库的功能。"),
		doc("z", "ja.md", "メモ", "SQLiteの全文検索"),
		doc("z", "en.md", "En", "full text search"),
	)
	for _, c := range []struct {
		q    string
		want string
	}{{"数据库", "zh.md"}, {"检索", "zh.md"}, {"検索", "ja.md"}} {
		hits, err := st.SearchFTS(ctx, query.Parse(c.q), store.Filter{}, 10)
		check(t, err)
		if len(hits) == 0 {
			t.Errorf("%s: no hits", c.q)
			continue
		}
		docs, _ := st.Docs(ctx, []int64{hits[0].DocID})
		if docs[hits[0].DocID].RelPath != c.want {
			t.Errorf("%s: first %s, want %s", c.q, docs[hits[0].DocID].RelPath, c.want)
		}
	}
}

func testVectors(t *testing.T, st store.Backend) {
	ctx := context.Background()
	put(t, st, 1, doc("c", "a.md", "A", "one\n\ntwo"), doc("d", "b.md", "B", "three"))
	a, _ := st.DocByPath(ctx, "c", "a.md")
	bm, _ := st.DocByPath(ctx, "d", "b.md")
	if m, err := st.VectorModel(ctx); err != nil || m != "" {
		t.Errorf("VectorModel of none: %q, %v", m, err)
	}
	todo, err := st.Unembedded(ctx, "", "d")
	check(t, err)
	if len(todo) != 2 || todo[0].Title != "A" {
		t.Errorf("Unembedded except d: %+v", todo)
	}
	if n, err := st.UnembeddedCount(ctx, ""); err != nil || n != 3 {
		t.Errorf("UnembeddedCount: %d, %v", n, err)
	}
	a0, a1, b0 := store.ChunkID(a.ID, 0), store.ChunkID(a.ID, 1), store.ChunkID(bm.ID, 0)
	q, err := st.EmbedQueue(ctx, "", "d")
	check(t, err)
	if len(q) != 2 || q[0].ID != a0 || q[1].ID != a1 || q[0].Collection != "c" || q[0].Bytes != max(1, int(a.Size)/2) {
		t.Errorf("EmbedQueue except d: %+v", q)
	}
	texts, err := st.ChunkTexts(ctx, []int64{a1, b0, store.ChunkID(bm.ID+77, 0)})
	check(t, err)
	if len(texts) != 2 || texts[a1].Body != "two" || texts[b0].Title != "B" {
		t.Errorf("ChunkTexts: %+v", texts)
	}
	if n, err := st.ChunkCount(ctx); err != nil || n != 3 {
		t.Errorf("ChunkCount: %d, %v", n, err)
	}
	check(t, st.PutVectors(ctx, "m", []int64{a0, a1}, [][]float32{{1, 0, 0.5}, {0, 1, -0.25}}))
	// A chunk that is gone gets no vector.
	check(t, st.PutVectors(ctx, "m", []int64{b0, store.ChunkID(bm.ID+77, 0)}, [][]float32{{0, 0, 1}, {1, 1, 1}}))
	if n, d, err := st.VectorCount(ctx, "m"); err != nil || n != 3 || d != 3 {
		t.Errorf("VectorCount: %d×%d, %v", n, d, err)
	}
	if m, _ := st.VectorModel(ctx); m != "m" {
		t.Errorf("VectorModel: %q", m)
	}
	exact, err := st.VectorsOf(ctx, "m", []int64{a1, store.ChunkID(bm.ID+77, 0), a0})
	check(t, err)
	if len(exact) != 3 || !reflect.DeepEqual(exact[0], []float32{0, 1, -0.25}) || exact[1] != nil || !reflect.DeepEqual(exact[2], []float32{1, 0, 0.5}) {
		t.Errorf("VectorsOf: %v", exact)
	}
	got := map[int64][]float32{}
	check(t, st.EachVector(ctx, "m", -1, func(id int64, v []float32) { got[id] = v }))
	if !reflect.DeepEqual(got[a1], []float32{0, 1, -0.25}) || len(got) != 3 {
		t.Errorf("EachVector: %v", got)
	}
	vs, err := st.DocVectors(ctx, a.ID)
	check(t, err)
	if len(vs) != 2 || vs[0].Model != "m" || !reflect.DeepEqual(vs[0].Vec, []float32{1, 0, 0.5}) {
		t.Errorf("DocVectors: %+v", vs)
	}
	set, err := st.VectorChunks(ctx, "m")
	check(t, err)
	if !set[a0] || !set[b0] || len(set) != 3 {
		t.Errorf("VectorChunks: %v", set)
	}
	if n, _ := st.UnembeddedCount(ctx, ""); n != 0 {
		t.Errorf("UnembeddedCount after: %d", n)
	}
	if s, _ := st.Stats(ctx, "m"); s["c"].Embedded != 2 {
		t.Errorf("Stats embedded: %+v", s["c"])
	}
	// A re-indexed document loses its vectors.
	put(t, st, 2, doc("c", "a.md", "A", "changed"))
	if n, _, _ := st.VectorCount(ctx, "m"); n != 1 {
		t.Errorf("vectors after re-index: %d, want 1", n)
	}
	// DropVectors moves the write state (writes and vectors_version)
	// that caches of the vectors are keyed by, even with no PutVectors
	// after it (an embed --force killed before its first batch).
	writeState := func() string {
		t.Helper()
		w, err := st.LinkVersion(ctx)
		check(t, err)
		v, err := st.Meta(ctx, "vectors_version")
		check(t, err)
		return w + "/" + v
	}
	before := writeState()
	check(t, st.DropVectors(ctx, "other"))
	if n, _, _ := st.VectorCount(ctx, "m"); n != 0 {
		t.Errorf("vectors after DropVectors: %d", n)
	}
	if after := writeState(); after == before {
		t.Errorf("DropVectors left the write state at %s", after)
	}
	// Nothing is stored at the new version: the rows since the old one
	// are none (a graph loading them adds nothing dropped back).
	var since int
	check(t, st.EachVector(ctx, "m", -1, func(int64, []float32) { since++ }))
	if since != 0 {
		t.Errorf("EachVector after DropVectors: %d rows", since)
	}
	if err := st.PutVectors(ctx, "m", []int64{a0}, nil); err == nil {
		t.Error("PutVectors with fewer vectors than ids: no error")
	}
}
