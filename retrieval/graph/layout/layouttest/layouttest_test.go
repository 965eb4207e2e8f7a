package layouttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/graph/layout"
)

func TestScanVault(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.md":         "---\ntitle: Alpha\ntags: [x, y]\n---\nSee [[b]], [[B|again]], [c](sub/c.md), ![[pic.png]], [[Nope]] and [[#Heading]].\n",
		"b.md":         "---\naliases: [Bee]\n---\n# Beta\n",
		"sub/c.md":     "Links to [[Bee]].\n",
		".hidden/d.md": "[[a]]\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := ScanVault(dir, "v")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Docs) != 3 || in.Docs[0].Title != "Alpha" || in.Docs[1].Title != "Beta" || in.Docs[2].Title != "c" || in.Docs[2].ID != "v/sub/c.md" {
		t.Fatalf("docs %+v", in.Docs)
	}
	want := []layout.Link{{Src: 0, Dst: 1}, {Src: 0, Dst: 1}, {Src: 0, Dst: 2}, {Src: 2, Dst: 1}}
	if len(in.Links) != len(want) {
		t.Fatalf("links %v, want %v", in.Links, want)
	}
	for i := range want {
		if in.Links[i] != want[i] {
			t.Errorf("link %d: %v, want %v", i, in.Links[i], want[i])
		}
	}
	if len(in.Unresolved) != 1 || in.Unresolved[0].Target != "Nope" {
		t.Errorf("unresolved %v", in.Unresolved)
	}
}
