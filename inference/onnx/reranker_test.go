package onnx

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gnosearch/gno/models"
)

func TestTestCrossEncoder(t *testing.T) {
	c := testCache(t)
	spec, err := c.Installed("gno-test-cross-encoder")
	if errors.Is(err, models.ErrNotInstalled) {
		t.Skip("skipping: gno-test-cross-encoder not installed (run `make models`)")
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := OpenReranker(ctx, Options{ModelDir: c.ModelDir(spec.Name), Spec: spec, MaxTokens: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.IsTestModel() {
		t.Fatal("the test cross-encoder must say it is a test model")
	}
	q := "what reduces the risk of heart attack"
	passages := []string{
		"Aspirin reduces the risk of heart attack.",
		strings.Repeat("A very long passage about cardiology and statins. ", 200),
		"",
		"Bananas are yellow.",
	}
	all, err := r.Score(ctx, q, passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(passages) {
		t.Fatalf("%d scores for %d passages", len(all), len(passages))
	}
	for i, p := range passages {
		one, err := r.Score(ctx, q, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if one[0] != all[i] {
			t.Errorf("passage %d: score %v alone, %v in a batch", i, one[0], all[i])
		}
		if all[i] <= 0 || all[i] >= 1 {
			t.Errorf("passage %d: score %v outside (0, 1)", i, all[i])
		}
	}
	if st := r.Stats(); st.Truncated != 2 {
		t.Errorf("the long passage should be truncated (twice scored): %+v", st)
	}
	if _, err := OpenReranker(ctx, Options{ModelDir: c.ModelDir(spec.Name), Spec: tinySpec(models.PoolMean)}); err == nil {
		t.Error("an embedding model opened as a reranker")
	}
}
