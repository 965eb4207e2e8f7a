package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
)

// TestUnembeddedExcept: chunks of the collections in except are neither
// listed nor counted (a package index's standard libraries, left to
// BM25), the others are until they have a vector.
func TestUnembeddedExcept(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(key string, n int) {
		docs := make([]*Document, n)
		units := make([]PkgUnit, n)
		for i := range docs {
			text := "# unit\n\nsome text " + key + string(rune('a'+i)) + "\n"
			docs[i] = &Document{Collection: key, RelPath: "api/x" + string(rune('a'+i)), Hash: key + string(rune('a'+i)), Title: "x",
				Mime: "text/markdown", Content: text, Size: int64(len(text)), Chunks: chunk.Markdown(text, chunk.Options{})}
			units[i] = PkgUnit{Kind: "api"}
		}
		if _, err := st.PutPkgVersion(ctx, &PkgVersion{Key: key, Ecosystem: "go", Name: key, Version: "1"}, docs, units); err != nil {
			t.Fatal(err)
		}
	}
	put("go:stdlib@go1", 3)
	put("go:cobra@v1", 2)
	for _, tc := range []struct {
		except []string
		want   int
	}{{nil, 5}, {[]string{"go:stdlib@go1"}, 2}, {[]string{"go:stdlib@go1", "go:cobra@v1"}, 0}} {
		n, err := st.UnembeddedCount(ctx, "", tc.except...)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := st.Unembedded(ctx, "", tc.except...)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want || len(cs) != tc.want {
			t.Errorf("except %v: count %d, listed %d, want %d", tc.except, n, len(cs), tc.want)
		}
		// The embedding queue lists the same chunks, without their text.
		q, err := st.EmbedQueue(ctx, "", tc.except...)
		if err != nil {
			t.Fatal(err)
		}
		if len(q) != tc.want {
			t.Errorf("except %v: queue of %d, want %d", tc.except, len(q), tc.want)
		}
		for i := range q {
			if q[i].ID != cs[i].ID || q[i].Bytes <= 0 {
				t.Errorf("queue %+v, unembedded %+v", q[i], cs[i])
			}
		}
	}
	cs, _ := st.Unembedded(ctx, "go:cobra@v1")
	if err := st.PutVectors(ctx, "m", []int64{cs[0].ID}, [][]float32{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.UnembeddedCount(ctx, "", "go:stdlib@go1"); n != 1 {
		t.Errorf("after one vector: %d unembedded, want 1", n)
	}
	if q, _ := st.EmbedQueue(ctx, "go:cobra@v1"); len(q) != 1 || q[0].ID != cs[1].ID {
		t.Errorf("after one vector, the queue: %+v", q)
	}
	texts, err := st.ChunkTexts(ctx, []int64{cs[0].ID, cs[1].ID, 12345})
	if err != nil || len(texts) != 2 || texts[cs[1].ID].Body != cs[1].Body {
		t.Errorf("chunk texts %+v %v", texts, err)
	}
	if n, err := st.ChunkCount(ctx); err != nil || n != 5 {
		t.Errorf("chunk count %d %v", n, err)
	}
}
