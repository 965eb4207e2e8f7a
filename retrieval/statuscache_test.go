package retrieval

import (
	"context"
	"reflect"
	"testing"
)

// TestStatusCounts: status's counts come from the cache file while the
// index is unchanged, equal to a fresh count; a write batch makes the file
// stale (a new writes value) and the next status counts again; a torn file
// or one with another key is never believed.
func TestStatusCounts(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{
		"a.txt": "alpha see [[b]] and [[nowhere]]",
		"b.txt": "beta",
	})
	update(t, e)
	fresh := func() *Status {
		t.Helper()
		putCounts(t, e, "")
		s, err := e.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cached := func() *Status {
		t.Helper()
		s, err := e.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := fresh()
	if b := countsCache(t, e); len(b) == 0 {
		t.Fatal("no cache written")
	}
	if got := cached(); !reflect.DeepEqual(got, want) || got.TotalDocuments != 2 {
		t.Fatalf("cached status %+v, fresh %+v", got, want)
	}
	// A change: the cache's key is stale.
	write(t, root, "c.txt", "gamma")
	update(t, e)
	if got := cached(); got.TotalDocuments != 3 || !reflect.DeepEqual(got, fresh()) {
		t.Fatalf("after a sync: %+v", got)
	}
	for name, body := range map[string]string{
		"torn":      `{"key":"w`,
		"other key": `{"key":"w1|m","stats":{"Notes":{"Name":"Notes","Docs":99}},"links":{}}`,
	} {
		putCounts(t, e, body)
		if got := cached(); got.TotalDocuments != 3 {
			t.Fatalf("%s cache file believed: %+v", name, got)
		}
	}
}

// countsCache is the store's status counts cache (a file beside a SQLite
// index, a meta row on Postgres).
func countsCache(t *testing.T, e *Engine) []byte {
	t.Helper()
	st, err := e.store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CountsCache(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// putCounts stores body as the cache, as a torn or foreign one would be.
func putCounts(t *testing.T, e *Engine, body string) {
	t.Helper()
	st, err := e.store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutCountsCache(context.Background(), []byte(body)); err != nil {
		t.Fatal(err)
	}
}
