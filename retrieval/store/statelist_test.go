package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocStateListCoveringUpgrade: an index of schema 6 gains the covering
// (collection, rel_path, size, mtime_ns) index on its first open, and the
// list is read from that index alone (no table row), in path order.
func TestDocStateListCoveringUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"b.md", "a/x.md", "a-b.md"} {
		if err := b.Put(ctx, &Document{Collection: "c", RelPath: rel, Hash: "h", Size: 1, MtimeNS: 2, Content: "x", NoLinks: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	// What schema 6 had: no covering index.
	if _, err := st.db.ExecContext(ctx, "DROP INDEX documents_state; PRAGMA user_version = 6"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v, n int
	if err := st.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'documents_state'), (SELECT user_version FROM pragma_user_version)").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != 1 || v != schemaVersion {
		t.Fatalf("after the upgrade: covering index %d, schema %d", n, v)
	}
	var plan []string
	rows, err := st.db.QueryContext(ctx, "EXPLAIN QUERY PLAN SELECT id, rel_path, size, mtime_ns FROM documents WHERE collection = ? ORDER BY rel_path", "c")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	rows.Close()
	if p := strings.Join(plan, "; "); !strings.Contains(p, "COVERING INDEX documents_state") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("plan: %s", p)
	}
	l, err := st.DocStateList(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 3 || l.Rel(0) != "a-b.md" || l.Rel(1) != "a/x.md" || l.Rel(2) != "b.md" {
		t.Errorf("list: %d %q %q %q", l.Len(), l.Rel(0), l.Rel(1), l.Rel(2))
	}
}

// TestStateListSortsWhatItIsGiven: a backend's order is checked, not
// trusted: a list filled out of byte order is sorted by Sort.
func TestStateListSortsWhatItIsGiven(t *testing.T) {
	l := &StateList{}
	for i, rel := range []string{"b", "a/x", "a-b", "B", "a"} {
		l.Add([]byte(rel), DocState{ID: int64(i), Size: int64(10 * i), MtimeNS: int64(100 * i)})
	}
	l.Sort()
	want := []string{"B", "a", "a-b", "a/x", "b"}
	ids := []int64{3, 4, 2, 1, 0}
	for i, rel := range want {
		if s := l.State(i); l.Rel(i) != rel || s.ID != ids[i] || s.Size != 10*ids[i] || s.MtimeNS != 100*ids[i] {
			t.Errorf("%d: %q %+v, want %q id %d", i, l.Rel(i), s, rel, ids[i])
		}
	}
}

// TestDocStateListDirectRead: the list read through the driver's own rows
// (a collection that is most of the index, outside a snapshot) equals the
// one read through database/sql (inside a snapshot), and a collection
// beside it reads only its own documents.
func TestDocStateListDirectRead(t *testing.T) {
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
	rels := []string{"b.md", "a/x.md", "a-b.md", "é.md", "Z.md", "a0.md", "bad\xff.md"}
	for i, rel := range rels {
		if err := b.Put(ctx, &Document{Collection: "c", RelPath: rel, Hash: "h", Size: int64(i), MtimeNS: int64(1e18) + int64(i), Content: "x", NoLinks: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Put(ctx, &Document{Collection: "small", RelPath: "s.md", Hash: "h", Size: 7, MtimeNS: 8, Content: "x", NoLinks: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	direct, err := st.DocStateList(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var viaSQL *StateList
	if err := st.Read(ctx, func(ctx context.Context) error {
		viaSQL, err = st.DocStateList(ctx, "c")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if direct.Len() != len(rels) || viaSQL.Len() != len(rels) {
		t.Fatalf("lengths %d and %d, want %d", direct.Len(), viaSQL.Len(), len(rels))
	}
	for i := range direct.Len() {
		if direct.Rel(i) != viaSQL.Rel(i) || direct.State(i) != viaSQL.State(i) {
			t.Errorf("%d: direct %q %+v, database/sql %q %+v", i, direct.Rel(i), direct.State(i), viaSQL.Rel(i), viaSQL.State(i))
		}
		if i > 0 && direct.Compare(i-1, direct.Rel(i)) >= 0 {
			t.Errorf("order at %d: %q before %q", i, direct.Rel(i-1), direct.Rel(i))
		}
	}
	small, err := st.DocStateList(ctx, "small")
	if err != nil {
		t.Fatal(err)
	}
	if small.Len() != 1 || small.Rel(0) != "s.md" || small.State(0).Size != 7 || small.State(0).MtimeNS != 8 {
		t.Errorf("small: %d %q", small.Len(), small.Rel(0))
	}
}
