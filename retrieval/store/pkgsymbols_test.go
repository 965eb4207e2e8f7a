package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
)

// TestPkgSymbolsByLeaf: the candidates of an exact lookup are a
// version's API items whose last part is one of the leaves, any case,
// shortest first, and the first chunk of each is where its text begins.
func TestPkgSymbolsByLeaf(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "p.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	doc := func(path string) *Document {
		return &Document{RelPath: path, Hash: path, Title: path, Mime: "text/markdown", Content: "# " + path + "\n\nsecond chunk\n",
			Chunks: []chunk.Chunk{{Text: "# " + path, StartLine: 1, EndLine: 1}, {Text: "second chunk", StartLine: 3, EndLine: 3}}}
	}
	put := func(key string, syms ...string) int64 {
		var docs []*Document
		var units []PkgUnit
		for _, s := range syms {
			docs = append(docs, doc("api/"+s))
			units = append(units, PkgUnit{Kind: "api", Symbol: s, SymbolKind: "method"})
		}
		docs = append(docs, doc("readme.md"))
		units = append(units, PkgUnit{Kind: "readme"})
		for _, d := range docs {
			d.Collection = key
		}
		id, err := st.PutPkgVersion(ctx, &PkgVersion{Key: key, Ecosystem: "go", Name: key, Version: "v1"}, docs, units)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a := put("go:a@v1", "Command.PersistentFlags", "PersistentFlags", "Command.Flags", "errgroup.Group.SetLimit")
	b := put("go:b@v1", "X.PersistentFlags")
	us, err := st.PkgSymbolsByLeaf(ctx, []int64{a, b}, []string{"persistentflags", "setlimit"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range us {
		got = append(got, u.Symbol)
	}
	want := []string{"PersistentFlags", "X.PersistentFlags", "Command.PersistentFlags", "errgroup.Group.SetLimit"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if us, err := st.PkgSymbolsByLeaf(ctx, []int64{b}, []string{"setlimit"}, 10); err != nil || len(us) != 0 {
		t.Fatalf("another version's item: %v %v", us, err)
	}
	if us, err := st.PkgSymbolsByLeaf(ctx, nil, []string{"setlimit"}, 10); err != nil || us != nil {
		t.Fatalf("no versions: %v %v", us, err)
	}
	first, err := st.PkgFirstChunks(ctx, []int64{us[0].DocID})
	if err != nil || len(first) != 1 || first[us[0].DocID] != ChunkID(us[0].DocID, 0) {
		t.Fatalf("first chunks %v %v (want %d)", first, err, ChunkID(us[0].DocID, 0))
	}
}

// TestPkgSymbolLeafCase: a name not stored as written falls back to its
// last part; the item whose last part has the written case comes first
// (the function click.command, not the class click.Command).
func TestPkgSymbolLeafCase(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "p.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var docs []*Document
	var units []PkgUnit
	for _, u := range []struct{ path, sym, kind string }{{"click/core.py", "click.Command", "class"}, {"click/decorators.py", "click.command", "function"}} {
		docs = append(docs, &Document{Collection: "python:click@8", RelPath: u.path, Hash: u.path, Title: u.sym, Mime: "text/markdown", Content: "# " + u.sym + "\n",
			Chunks: []chunk.Chunk{{Text: "# " + u.sym, StartLine: 1, EndLine: 1}}})
		units = append(units, PkgUnit{Kind: "api", Symbol: u.sym, SymbolKind: u.kind})
	}
	id, err := st.PutPkgVersion(ctx, &PkgVersion{Key: "python:click@8", Ecosystem: "python", Name: "click", Version: "8"}, docs, units)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"click.decorators.command": "click.command", "click.core.Command": "click.Command", "decorators.COMMAND": "click.Command"} {
		us, err := st.PkgSymbol(ctx, id, name)
		if err != nil || len(us) != 2 || us[0].Symbol != want {
			t.Errorf("PkgSymbol(%q) = %+v, %v: want %s first", name, us, err, want)
		}
	}
}
