package corpus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hashTree hashes every file's path and content under dir.
func hashTree(t *testing.T, dir string) []byte {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return h.Sum(nil)
}

func TestDeterministic(t *testing.T) {
	o := Options{Docs: 200, Seed: 42}
	a, b := t.TempDir(), t.TempDir()
	sa, err := Generate(context.Background(), a, o)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Generate(context.Background(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	if sa != sb || sa.Files != 200 {
		t.Fatalf("stats differ or wrong: %+v %+v", sa, sb)
	}
	if !bytes.Equal(hashTree(t, a), hashTree(t, b)) {
		t.Fatal("two runs with the same options wrote different corpora")
	}
	other := Document(Options{Docs: 200, Seed: 43}, 0)
	if bytes.Equal(other.Body, Document(o, 0).Body) {
		t.Fatal("a different seed gave the same document")
	}
}

func TestShape(t *testing.T) {
	o := Options{Docs: 500, Seed: 7}
	var total int
	var fences, lists, links, headings, frontMatter int
	for i := range o.Docs {
		d := Document(o, i)
		s := string(d.Body)
		total += len(s)
		if strings.HasPrefix(s, "---\ntitle: "+d.Title+"\ntags: [") {
			frontMatter++
		}
		if strings.Count(s, "```")%2 != 0 {
			t.Fatalf("doc %d has an unclosed code fence", i)
		}
		if strings.Contains(s, "\n```") {
			fences++
		}
		if strings.Contains(s, "\n- ") || strings.Contains(s, "\n1. ") {
			lists++
		}
		if strings.Contains(s, "](") || strings.Contains(s, "[[") {
			links++
		}
		if strings.Contains(s, "\n## ") {
			headings++
		}
	}
	mean := total / o.Docs
	if mean < 4000 || mean > 6000 {
		t.Errorf("mean size %d bytes, want about 5,000", mean)
	}
	if frontMatter != o.Docs {
		t.Errorf("%d of %d documents have front matter", frontMatter, o.Docs)
	}
	for name, n := range map[string]int{"code fences": fences, "lists": lists, "links": links, "headings": headings} {
		if n < o.Docs/4 {
			t.Errorf("only %d of %d documents have %s", n, o.Docs, name)
		}
	}
}

func TestQueries(t *testing.T) {
	o := Options{Docs: 100, Seed: 1}
	q1, q2 := Queries(o, 20), Queries(o, 20)
	for i := range q1 {
		if q1[i] != q2[i] {
			t.Fatalf("query %d differs between calls: %+v vs %+v", i, q1[i], q2[i])
		}
		if len(strings.Fields(q1[i].Text)) < 2 {
			t.Fatalf("query %d too short: %q", i, q1[i].Text)
		}
	}
	if _, err := Generate(context.Background(), t.TempDir(), Options{}); err == nil {
		t.Fatal("want an error for zero documents")
	}
}

func BenchmarkDocument(b *testing.B) {
	o := Options{Docs: 10000, Seed: 1}
	var n int64
	for i := 0; b.Loop(); i++ {
		n += int64(len(Document(o, i%o.Docs).Body))
	}
	b.SetBytes(n / int64(b.N))
}
