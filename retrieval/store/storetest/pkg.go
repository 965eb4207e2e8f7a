package storetest

import (
	"context"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// testPkgSectionTitles: a package guide's section chunk carries its own
// heading in its title column (SectionTitles), an API item's chunk only
// its document's title and keywords, on every backend.
func testPkgSectionTitles(t *testing.T, st store.Backend) {
	ctx := context.Background()
	const key = "go:cobra@v1"
	guide := "# User Guide\n\nIntro.\n\n## Persistent Flags\n\nInherited by every subcommand.\n"
	api := "PersistentFlags returns the persistent FlagSet.\n"
	docs := []*store.Document{
		{Collection: key, RelPath: "site/user_guide.md", Hash: "g", Title: "User Guide", Mime: "text/markdown", Content: guide,
			Size: int64(len(guide)), NoLinks: true, Keywords: "cobra", SectionTitles: true, Chunks: []chunk.Chunk{
				{Text: "# User Guide\n\nIntro.", Headings: []string{"User Guide"}, StartLine: 1, EndLine: 3, StartByte: 0, EndByte: 20},
				{Text: "## Persistent Flags\n\nInherited by every subcommand.", Headings: []string{"User Guide", "Persistent Flags"},
					StartLine: 5, EndLine: 7, StartByte: 22, EndByte: len(guide) - 1}}},
		{Collection: key, RelPath: "api/Command.PersistentFlags", Hash: "a", Title: "Command.PersistentFlags", Mime: "text/markdown",
			Content: api, Size: int64(len(api)), NoLinks: true, Keywords: "cobra persistent flags", Chunks: []chunk.Chunk{
				{Text: api[:len(api)-1], Headings: []string{"Command.PersistentFlags"}, StartLine: 1, EndLine: 1, EndByte: len(api) - 1}}},
	}
	id, err := st.PutPkgVersion(ctx, &store.PkgVersion{Key: key, Ecosystem: "go", Name: "github.com/spf13/cobra", Version: "v1"},
		docs, []store.PkgUnit{{Kind: "doc"}, {Kind: "api", Symbol: "Command.PersistentFlags", SymbolKind: "method"}})
	check(t, err)
	if id == 0 {
		t.Fatal("no version id")
	}
	g, err := st.DocByPath(ctx, key, "site/user_guide.md")
	check(t, err)
	a, err := st.DocByPath(ctx, key, "api/Command.PersistentFlags")
	check(t, err)
	g0, g1, a0 := store.ChunkID(g.ID, 0), store.ChunkID(g.ID, 1), store.ChunkID(a.ID, 0)
	texts, err := st.ChunkTexts(ctx, []int64{g0, g1, a0})
	check(t, err)
	want := map[int64]string{g0: "User Guide cobra", g1: "Persistent Flags · User Guide cobra", a0: "Command.PersistentFlags cobra persistent flags"}
	for id, w := range want {
		if texts[id].Title != w {
			t.Errorf("chunk %d title %q, want %q", id&0xffff, texts[id].Title, w)
		}
	}
	// the section is found by its heading in the title column
	hits, err := st.SearchFTS(ctx, query.Keywords{Terms: []string{"persistent", "flags"}, All: true}, store.Filter{Collections: []string{key}}, 10)
	check(t, err)
	found := false
	for _, h := range hits {
		found = found || h.ChunkID == g1
	}
	if !found {
		t.Errorf("the Persistent Flags section is not found: %+v", hits)
	}
}
