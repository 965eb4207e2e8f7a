package storetest

import (
	"context"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
)

// testCountsCache: the status counts' cache gives back what was last put
// (nothing at first), and keeping it is no write of the index: the writes
// counter, its key, stays as it was.
func testCountsCache(t *testing.T, st store.Backend) {
	ctx := context.Background()
	b, err := st.CountsCache(ctx)
	check(t, err)
	if b != nil {
		t.Fatalf("a new index has cached counts %q", b)
	}
	before, err := st.LinkVersion(ctx)
	check(t, err)
	for _, body := range []string{`{"key":"w1"}`, `{"key":"w2","stats":{}}`} {
		check(t, st.PutCountsCache(ctx, []byte(body)))
		b, err := st.CountsCache(ctx)
		check(t, err)
		if string(b) != body {
			t.Fatalf("cached %q, put %q", b, body)
		}
	}
	if after, err := st.LinkVersion(ctx); err != nil || after != before {
		t.Fatalf("the writes counter moved from %q to %q (%v)", before, after, err)
	}
}
