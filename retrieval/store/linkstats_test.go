package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/links"
)

// TestLinkStatsCounts: counting links without the link index gives the
// counts the index gives, over links of every kind that resolve by path,
// by name, by alias, to a heading, to an attachment or nowhere, in two
// collections.
func TestLinkStatsCounts(t *testing.T) {
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
	for i := range 300 {
		col := []string{"a", "b"}[i%2]
		d := &Document{Collection: col, RelPath: fmt.Sprintf("dir%d/n%d.md", i%7, i), Hash: fmt.Sprint(i), Content: "x"}
		if i%5 == 0 {
			d.Aliases = []string{fmt.Sprintf("Alias %d", i)}
		}
		for j := range i % 6 {
			k := (i*31 + j*17) % 330 // past 300: no such note
			var l links.Link
			switch j % 6 {
			case 0:
				l = links.Link{Kind: links.Wiki, Target: fmt.Sprintf("n%d", k)}
			case 1:
				l = links.Link{Kind: links.Markdown, Target: fmt.Sprintf("../dir%d/n%d.md", k%7, k)}
			case 2:
				l = links.Link{Kind: links.Wiki, Target: fmt.Sprintf("alias %d", k)}
			case 3:
				l = links.Link{Kind: links.Wiki, Fragment: "Heading"}
			case 4:
				l = links.Link{Kind: links.Embed, Target: fmt.Sprintf("img%d.png", k)}
			case 5:
				l = links.Link{Kind: links.URI, Target: fmt.Sprintf("gno://%s/dir%d/n%d.md", []string{"a", "b"}[k%2], k%7, k)}
			}
			d.Links = append(d.Links, l)
		}
		if err := b.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	counted, err := st.LinkStats(ctx) // no index held: counted
	if err != nil {
		t.Fatal(err)
	}
	if st.links.idx != nil {
		t.Fatal("LinkStats built the link index")
	}
	idx, err := st.linkIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := idx.stats()
	if !reflect.DeepEqual(counted, want) {
		t.Fatalf("counted %v, the index gives %v", fmtStats(counted), fmtStats(want))
	}
	var all LinkStats
	for _, c := range want {
		all.Links, all.Unresolved, all.Attachments = all.Links+c.Links, all.Unresolved+c.Unresolved, all.Attachments+c.Attachments
	}
	if len(want) != 2 || all.Unresolved == 0 || all.Attachments == 0 || all.Unresolved+all.Attachments == all.Links {
		t.Fatalf("the corpus does not exercise every case: %v", fmtStats(want))
	}
	if got, err := st.LinkStats(ctx); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("from the held index: %v %v", fmtStats(got), err)
	}
}

func fmtStats(m map[string]*LinkStats) string {
	s := ""
	for c, st := range m {
		s += fmt.Sprintf("%s:%+v ", c, *st)
	}
	return s
}

// TestLinkDocHash: the link index gives back every hash as stored, in
// its compact form or not.
func TestLinkDocHash(t *testing.T) {
	for _, h := range []string{"", "h", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", strings.Repeat("0", 64), strings.Repeat("g", 64)} {
		var d linkDoc
		d.setHash(h)
		if got := d.Hash(); got != h {
			t.Errorf("hash %q read back as %q", h, got)
		}
	}
}
