package retrieval

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
)

// benchEngine indexes n generated documents once per benchmark.
func benchEngine(b *testing.B, n int) *Engine {
	b.Helper()
	b.Setenv("GNO_HOME", b.TempDir())
	root := b.TempDir()
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("index query search vector embedding chunk document token model rank score fusion database write ahead log reader writer lock page cache memory disk latency budget cross encoder passage answer question claim evidence protein cell gene expression tumour immune response therapy trial patient outcome")
	for i := 0; i < n; i++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Document %d about %s\n\n", i, words[rng.Intn(len(words))])
		for p := 0; p < 4; p++ {
			for w := 0; w < 60; w++ {
				sb.WriteString(words[rng.Intn(len(words))])
				sb.WriteByte(' ')
			}
			sb.WriteString("\n\n")
		}
		os.WriteFile(filepath.Join(root, fmt.Sprintf("d%05d.md", i)), []byte(sb.String()), 0o644)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "bench", Path: root})
		return err
	})
	if _, err := e.Update(ctx, UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkSearch measures a warm BM25 search of a natural-language
// question over 5,000 documents.
func BenchmarkSearch(b *testing.B) {
	e := benchEngine(b, 5000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Search(ctx, SearchRequest{Query: "does the immune response of a tumour cell change gene expression", Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateUnchanged measures a no-change re-sync of 5,000 files.
func BenchmarkUpdateUnchanged(b *testing.B) {
	e := benchEngine(b, 5000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Update(ctx, UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
