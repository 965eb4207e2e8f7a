package storetest

import (
	"context"
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
