package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDocStatesOf: the states of named paths equal the whole collection's
// states restricted to them, across the statement's 500-path parts, and
// paths with no document (or in another collection) are absent.
func TestDocStatesOf(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1200 {
		for _, col := range []string{"a", "b"} {
			d := &Document{Collection: col, RelPath: fmt.Sprintf("d%04d.md", i), Hash: fmt.Sprintf("h%d%s", i, col), Size: int64(i), MtimeNS: int64(2 * i), NoLinks: true}
			if err := b.Put(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	all, err := st.DocStates(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	want := map[string]DocState{}
	for i := 0; i < 1300; i += 2 {
		rel := fmt.Sprintf("d%04d.md", i)
		rels = append(rels, rel)
		if s, ok := all[rel]; ok {
			want[rel] = s
		}
	}
	got, err := st.DocStatesOf(ctx, "a", rels)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 600 || !reflect.DeepEqual(got, want) {
		t.Fatalf("DocStatesOf: %d states, want %d equal to DocStates'", len(got), len(want))
	}
}
