package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// testLongWords: a chunk holding words of thousands of bytes (a base64
// blob, a minified line; Postgres keeps at most 2,046 bytes per lexeme)
// is stored with the rest of its batch, and both the long word and the
// ordinary ones beside it are found.
func testLongWords(t *testing.T, st store.Backend) {
	ctx := context.Background()
	long := strings.Repeat("QUFB", 1000)       // 4,000 bytes
	wide := strings.Repeat("é", 1500) + "tail" // 3,004 bytes, a cut inside a character
	put(t, st, 1,
		doc("n", "blob.md", "Blob", "binary payload "+long+" follows\n\nsecond "+wide+" chunk"),
		doc("n", "plain.md", "Plain", "an ordinary payload"),
	)
	for _, term := range []string{long, wide, "follows", "payload"} {
		hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{term}}, store.Filter{}, 10)
		check(t, err)
		docs := map[int64]bool{}
		for _, h := range hits {
			docs[h.DocID] = true
		}
		want := 1
		if term == "payload" {
			want = 2
		}
		if len(docs) != want {
			t.Errorf("%.12s… (%d bytes): %d documents, want %d", term, len(term), len(docs), want)
		}
	}
}

// testTieOrder: documents of equal score come in chunk-id order, on the
// fast path (fewer matches than the limit's margin) and when the limit
// cuts the ties, so one index answers in one order on every store.
func testTieOrder(t *testing.T, st store.Backend) {
	ctx := context.Background()
	var docs []*store.Document
	for i := range 120 {
		docs = append(docs, doc("n", fmt.Sprintf("%03d.md", (i*37)%120), "Same", "identical twin text"))
	}
	put(t, st, 1, docs...)
	all, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"twin"}}, store.Filter{}, len(docs))
	check(t, err)
	if len(all) != len(docs) {
		t.Fatalf("%d hits, want %d", len(all), len(docs))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Score != all[0].Score {
			t.Fatalf("equal documents score differently: %+v", all)
		}
		if all[i].ChunkID < all[i-1].ChunkID {
			t.Errorf("ties out of chunk-id order: %+v", all)
		}
	}
	top, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"twin"}}, store.Filter{}, 10)
	check(t, err)
	for i := range top {
		if top[i].ChunkID != all[i].ChunkID {
			t.Fatalf("limit 10: %+v, want the first ten of %+v", top, all[:10])
		}
	}
}
