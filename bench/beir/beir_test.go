package beir

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAndWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	writeFile(t, filepath.Join(dir, "corpus.jsonl"),
		`{"_id": "10", "title": "Alpha", "text": "alpha text"}`+"\n"+
			`{"_id": "2", "title": "", "text": "no title here"}`+"\n")
	writeFile(t, filepath.Join(dir, "queries.jsonl"),
		`{"_id": "10", "text": "later query"}`+"\n"+
			`{"_id": "9", "text": "earlier query"}`+"\n"+
			`{"_id": "7", "text": "unjudged"}`+"\n")
	writeFile(t, filepath.Join(dir, "qrels", "train.tsv"),
		"query-id\tcorpus-id\tscore\n9\t10\t1\n10\t2\t3\n7\t2\t0\n")

	ds, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "tiny" || ds.Split != "train" || len(ds.Docs) != 2 {
		t.Fatalf("name=%q split=%q docs=%d", ds.Name, ds.Split, len(ds.Docs))
	}
	if len(ds.Queries) != 2 || ds.Queries[0].ID != "9" || ds.Queries[1].ID != "10" {
		t.Fatalf("queries = %+v, want judged ones in numeric order 9, 10", ds.Queries)
	}
	if ds.Qrels["10"]["2"] != 3 {
		t.Fatalf("qrels = %v", ds.Qrels)
	}

	out := t.TempDir()
	st, err := ds.WriteMarkdown(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 {
		t.Fatalf("files = %d", st.Files)
	}
	got, err := os.ReadFile(filepath.Join(out, "10.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "# Alpha\n\nalpha text\n" {
		t.Fatalf("10.md = %q", got)
	}
	got, _ = os.ReadFile(filepath.Join(out, "2.md"))
	if string(got) != "no title here\n" {
		t.Fatalf("2.md = %q", got)
	}
	if id := DocIDFromPath("sub/dir/31715818.md"); id != "31715818" {
		t.Fatalf("DocIDFromPath = %q", id)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(context.Background(), dir); err == nil {
		t.Fatal("want an error for a folder without corpus.jsonl")
	}
	writeFile(t, filepath.Join(dir, "corpus.jsonl"), `{"_id": "../x", "title": "t", "text": "x"}`+"\n")
	writeFile(t, filepath.Join(dir, "queries.jsonl"), `{"_id": "1", "text": "q"}`+"\n")
	writeFile(t, filepath.Join(dir, "qrels", "test.tsv"), "1\t../x\t1\n")
	if _, err := Load(context.Background(), dir); err == nil {
		t.Fatal("want an error for an id that is not a file name")
	}
	writeFile(t, filepath.Join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\n1\t../x\tbad\n")
	if _, err := ReadQrels(filepath.Join(dir, "qrels", "test.tsv")); err == nil {
		t.Fatal("want an error for a non-numeric score")
	}
}

// TestRealDatasets checks the shared eval data loads, when it is present.
func TestRealDatasets(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "eval")
	for _, name := range []string{"scifact", "cranfield", "cmrc2018-zh"} {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("skip %s: %v", name, err)
			continue
		}
		ds, err := Load(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d docs, %d judged queries, split %s", name, len(ds.Docs), len(ds.Queries), ds.Split)
	}
}
