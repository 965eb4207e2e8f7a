package retrieval

import (
	"context"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStatusCounts: status's counts come from the cache file while the
// index is unchanged, equal to a fresh count; a write batch makes the file
// stale (a new writes value) and the next status counts again; a torn file
// or one with another key is never believed.
func TestStatusCounts(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the status counts are cached beside a local index file only")
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{
		"a.txt": "alpha see [[b]] and [[nowhere]]",
		"b.txt": "beta",
	})
	update(t, e)
	fresh := func() *Status {
		t.Helper()
		os.Remove(filepath.Join(e.Paths.IndexDir, statusCountsFile))
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
	if _, err := os.Stat(filepath.Join(e.Paths.IndexDir, statusCountsFile)); err != nil {
		t.Fatalf("no cache written: %v", err)
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
	p := filepath.Join(e.Paths.IndexDir, statusCountsFile)
	for name, body := range map[string]string{
		"torn":      `{"key":"w`,
		"other key": `{"key":"w1|m","stats":{"Notes":{"Name":"Notes","Docs":99}},"links":{}}`,
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cached(); got.TotalDocuments != 3 {
			t.Fatalf("%s cache file believed: %+v", name, got)
		}
	}
}
