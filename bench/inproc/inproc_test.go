package inproc

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
)

func evalDir() string {
	if d := os.Getenv("GNO_EVAL_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "eval")
}

// dataset converts SciFact into a temp folder once per benchmark.
func dataset(b *testing.B) (*beir.Dataset, string) {
	b.Helper()
	ctx := context.Background()
	ds, err := beir.Load(ctx, filepath.Join(evalDir(), "scifact"))
	if err != nil {
		b.Skipf("SciFact not available: %v", err)
	}
	docs := b.TempDir()
	if _, err := ds.WriteMarkdown(ctx, docs); err != nil {
		b.Fatal(err)
	}
	return ds, docs
}

// engine opens an engine with a fresh GNO_HOME and the collection
// registered (not yet indexed).
func engine(b *testing.B, docs string) *retrieval.Engine {
	b.Helper()
	ctx := context.Background()
	b.Setenv("GNO_HOME", b.TempDir())
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	err = e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "scifact", Path: docs})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func indexed(b *testing.B) (*retrieval.Engine, *beir.Dataset) {
	ds, docs := dataset(b)
	e := engine(b, docs)
	if _, err := e.Update(context.Background(), retrieval.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	return e, ds
}

// BenchmarkSearch cycles through the 809 SciFact claims on a warm engine.
func BenchmarkSearch(b *testing.B) {
	for _, limit := range []int{10, 100} {
		b.Run(map[int]string{10: "top10", 100: "top100"}[limit], func(b *testing.B) {
			e, ds := indexed(b)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				q := ds.Queries[i%len(ds.Queries)].Text
				i++
				if _, err := e.Search(ctx, retrieval.SearchRequest{Query: q, Limit: limit}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpdate indexes the 5,183 SciFact files from scratch.
func BenchmarkUpdate(b *testing.B) {
	_, docs := dataset(b)
	for b.Loop() {
		b.StopTimer()
		e := engine(b, docs)
		b.StartTimer()
		if _, err := e.Update(context.Background(), retrieval.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateUnchanged re-syncs the indexed corpus with nothing changed.
func BenchmarkUpdateUnchanged(b *testing.B) {
	e, _ := indexed(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
