package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
)

// A damaged link list is reported by Check and by every link read, with
// the way out, and never taken for "no links".
func TestDamagedLinkList(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "i.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := st.Begin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Document{
		{Collection: "c", RelPath: "a.md", Hash: "ha", Content: "[[b]]\n", Links: links.Extract("[[b]]\n")},
		{Collection: "c", RelPath: "b.md", Hash: "hb", Content: "b\n"},
	} {
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	a, _ := st.DocByPath(ctx, "c", "a.md")
	out, err := st.LinksFrom(ctx, a.ID)
	if err != nil || len(out) != 1 || out[0].Other == nil || out[0].Other.RelPath != "b.md" {
		t.Fatalf("links of a.md: %+v %v", out, err)
	}
	// Cut the list short behind the store's back; the counter moves as a
	// write's would.
	if _, err := st.db.Exec("UPDATE doc_links SET links = substr(links, 1, 3); UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'writes'"); err != nil {
		t.Fatal(err)
	}
	p, err := st.Check(ctx)
	if err != nil || !strings.Contains(strings.Join(p, "; "), "1 documents with undecodable links") {
		t.Fatalf("check: %v %v", p, err)
	}
	if _, err := st.LinksFrom(ctx, a.ID); err == nil || !strings.Contains(err.Error(), "gno update --rebuild") || !strings.Contains(err.Error(), "c/a.md") {
		t.Fatalf("read of a damaged list: %v", err)
	}
}

// FuzzDecodeLinks: any bytes decode or fail cleanly, and links encode and
// decode to themselves.
func FuzzDecodeLinks(f *testing.F) {
	f.Add(EncodeLinks(links.Extract("[[a#h|x]] ![[b]] [t](c.md#f) gno://c/d.md\n")), "t", "f", "a", 3)
	f.Add([]byte{linksFormat, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "", "", "", 0)
	f.Add([]byte{}, "x", "", "", 1)
	f.Fuzz(func(t *testing.T, data []byte, target, fragment, alias string, line int) {
		decodeLinks(data)
		l := links.Link{Kind: links.Markdown, Target: target, Fragment: fragment, Alias: alias, Line: max(line, 0) % (1 << 31)}
		got, err := decodeLinks(EncodeLinks([]links.Link{l, l}))
		if err != nil || len(got) != 2 || got[1].Target != target || got[1].Fragment != fragment || got[1].Alias != alias || got[1].Line != l.Line || got[1].Kind != l.Kind {
			t.Fatalf("round trip of %+v: %+v %v", l, got, err)
		}
	})
}

// A reader whose snapshot began before a sync builds the older link index
// for itself and leaves the newer one in the cache for the readers after it.
func TestLinkCacheKeepsNewest(t *testing.T) {
	ctx := context.Background()
	s := snapStore(t)
	rctx, end, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	old, err := s.LinkVersion(rctx) // the snapshot starts here
	if err != nil {
		t.Fatal(err)
	}
	snapChange(t, s)
	newer, err := s.linkIndex(ctx)
	if err != nil || newer.writes == old {
		t.Fatalf("index after the sync: %v %v", newer, err)
	}
	mine, err := s.linkIndex(rctx)
	if err != nil || mine.writes != old {
		t.Fatalf("the old snapshot's index: %v %v", mine, err)
	}
	if s.links.idx != newer {
		t.Fatalf("the cache holds writes %q, want the newest %q", s.links.idx.writes, newer.writes)
	}
	for _, c := range []struct {
		a, b  string
		older bool
	}{{"", "1", true}, {"", "", false}, {"9", "10", true}, {"10", "9", false}, {"5", "5", false}, {"x", "5", false}, {"5", "", false}} {
		if got := olderWrites(c.a, c.b); got != c.older {
			t.Errorf("olderWrites(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
