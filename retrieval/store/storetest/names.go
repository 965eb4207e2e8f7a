package storetest

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
)

// Names a file system can give (or a user can type) that not every
// backend can hold: bytes that are not UTF-8, and a NUL.
const (
	badUTF8 = "bad\xc0\xafname.md"
	withNUL = "nul\x00name.md"
)

// testPathProblem holds a backend to its word on names: a name it says it
// cannot hold is never asked of the database, so every read by it answers
// "nothing there" rather than a driver error; a name it says it can hold
// is stored and found like any other. The Go-quoted form, under which a
// sync records the skip of such a file, is one every backend holds.
func testPathProblem(t *testing.T, st store.Backend) {
	ctx := context.Background()
	for _, rel := range []string{"ok.md", "日本語/ノート.md", "a b/c-d_e.md"} {
		if p := st.PathProblem(rel); p != "" {
			t.Errorf("PathProblem(%q) = %q, want none", rel, p)
		}
	}
	put(t, st, 1, doc("c", "ok.md", "OK", "fine text", "tag"))
	for _, rel := range []string{badUTF8, withNUL} {
		key := strconv.Quote(rel)
		if p := st.PathProblem(key); p != "" {
			t.Errorf("PathProblem(%s) of the quoted name = %q, want none", key, p)
		}
		if st.PathProblem(rel) == "" && rel == badUTF8 {
			// The backend holds it: stored and found as it is.
			put(t, st, 2, doc("c", rel, "Bad", "bad name text"))
			m, err := st.DocByPath(ctx, "c", rel)
			check(t, err)
			if m.RelPath != rel {
				t.Errorf("DocByPath(%q) = %q", rel, m.RelPath)
			}
			continue
		}
		if _, err := st.DocByPath(ctx, "c", rel); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DocByPath(%s) = %v, want ErrNotFound", key, err)
		}
		if _, err := st.DocByPath(ctx, rel, "ok.md"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DocByPath in collection %s = %v, want ErrNotFound", key, err)
		}
		if _, err := st.DocByHashPrefix(ctx, rel); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DocByHashPrefix(%s) = %v, want ErrNotFound", key, err)
		}
		states, err := st.DocStatesOf(ctx, "c", []string{"ok.md", rel})
		check(t, err)
		if _, ok := states["ok.md"]; !ok || len(states) != 1 {
			t.Errorf("DocStatesOf(ok.md, %s) = %v, want ok.md alone", key, states)
		}
		list, err := st.List(ctx, []string{"c"}, rel, 10, 0)
		check(t, err)
		if len(list) != 0 {
			t.Errorf("List(prefix %s) = %d documents, want none", key, len(list))
		}
		text, state, err := st.TextAt(ctx, "c", rel, 1)
		check(t, err)
		if state != store.TextAbsent || text != "" {
			t.Errorf("TextAt(%s) = %q, %v; want absent", key, text, state)
		}
		tags, err := st.TagCounts(ctx, "c", rel)
		check(t, err)
		if len(tags) != 0 {
			t.Errorf("TagCounts(prefix %s) = %v, want none", key, tags)
		}
	}
	if _, err := st.DocByPath(ctx, "c", "ok.md"); err != nil {
		t.Errorf("DocByPath(ok.md) after the bad names: %v", err)
	}
}
