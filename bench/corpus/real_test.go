package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealVocab derives the vocabulary from the eval data and checks that
// documents drawn from it are deterministic, sized like the source and
// that some carry Chinese.
func TestRealVocab(t *testing.T) {
	// The repo's sibling ../shared/eval, as gnobench and gnoscale use it;
	// GNO_EVAL_DIR points elsewhere (a worktree).
	dir := filepath.Join("..", "..", "..", "shared", "eval")
	if d := os.Getenv("GNO_EVAL_DIR"); d != "" {
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, "scifact", "corpus.jsonl")); err != nil {
		t.Skipf("no eval data at %s: %v", dir, err)
	}
	v, err := LoadVocab(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Words[0] != "the" || v.Sigma <= 0 || v.MeanBytes < 500 {
		t.Fatalf("vocabulary: first %q, σ %.2f, mean %.0f", v.Words[0], v.Sigma, v.MeanBytes)
	}
	o := Options{Docs: 2000, Seed: 3, Vocab: v}
	cjk, total := 0, 0
	for i := range o.Docs {
		d := Document(o, i)
		if !bytes.Equal(d.Body, Document(o, i).Body) {
			t.Fatalf("document %d differs between two draws", i)
		}
		total += len(d.Body)
		if strings.Contains(string(d.Body), "。") {
			cjk++
		}
	}
	if mean := float64(total) / float64(o.Docs); mean < 0.7*v.MeanBytes || mean > 2*v.MeanBytes {
		t.Errorf("mean size %.0f, source mean %.0f", mean, v.MeanBytes)
	}
	if cjk == 0 || cjk > o.Docs/10 {
		t.Errorf("%d of %d documents carry Chinese", cjk, o.Docs)
	}
}
