package ingest

import (
	"context"
	"reflect"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
)

func TestNormalize(t *testing.T) {
	got, bad := Normalize([]byte("\xef\xbb\xbfa\r\nb\rc\xff\xfed"))
	if got != "a\nb\nc\ufffd\ufffdd" || bad != 2 {
		t.Fatalf("got %q, %d invalid", got, bad)
	}
}

func TestFrontMatter(t *testing.T) {
	fm, off := SplitFrontMatter("---\ntitle: T\ntags: a, B\nlang: EN\n---\n# H\n")
	if fm.Title != "T" || !reflect.DeepEqual(fm.Tags, []string{"a", "b"}) || fm.Lang != "en" || off != 37 {
		t.Fatalf("%+v %d", fm, off)
	}
	// Broken YAML is body text, not an error.
	if fm, off := SplitFrontMatter("---\ntitle: [unclosed\n---\nbody"); off != 0 || fm.Title != "" {
		t.Fatalf("broken yaml: %+v %d", fm, off)
	}
	// No closing fence: not front matter.
	if _, off := SplitFrontMatter("---\njust a rule\n"); off != 0 {
		t.Fatal("unclosed front matter taken")
	}
}

func TestTitle(t *testing.T) {
	if got := Title(FrontMatter{}, "intro\n# Real Title #\n", "dir/file.md"); got != "Real Title" {
		t.Fatal(got)
	}
	if got := Title(FrontMatter{}, "no heading", "dir/my-notes.md"); got != "my-notes" {
		t.Fatal(got)
	}
}

func TestConvertVanishedAndExcluded(t *testing.T) {
	dir := t.TempDir()
	cv := convertFile(context.Background(), config.Collection{Name: "c", Path: dir}, candidate{rel: "gone.md"}, map[string]store.DocState{}, nil, Options{MaxFileBytes: 1 << 20})
	if cv.skip != SkipVanished {
		t.Fatalf("deleted between scan and read: %+v", cv)
	}
	if !excluded([]string{"drafts/**"}, "drafts/") || !excluded([]string{"**/*.tmp.md"}, "a/b.tmp.md") || excluded([]string{"drafts/**"}, "notes/a.md") {
		t.Fatal("exclude patterns")
	}
}

func TestConvertLinesAndChunks(t *testing.T) {
	doc := Convert(config.Collection{Name: "c"}, "a.md", []byte("---\ntitle: X\n---\n# A\n\ntext\n"), chunkOpts)
	if doc.Title != "X" || doc.LineCount != 6 || len(doc.Chunks) != 1 || doc.Chunks[0].StartLine != 4 {
		t.Fatalf("%+v", doc)
	}
	if doc.Content[doc.Chunks[0].StartByte:doc.Chunks[0].EndByte] != doc.Chunks[0].Text {
		t.Fatal("chunk byte range not in document coordinates")
	}
}

var chunkOpts = chunk.Options{}
