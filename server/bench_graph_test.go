package server

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

var (
	graphBenchOnce sync.Once
	graphBenchHome string
	graphBenchErr  error
)

// graphBenchIndex indexes (once per run) the generated 5,000-note vault.
func graphBenchIndex(b *testing.B) {
	graphBenchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gno-graph-bench-")
		if graphBenchErr = err; err != nil {
			return
		}
		if _, graphBenchErr = vaultgen.Generate(filepath.Join(dir, "vault"), 5000); graphBenchErr != nil {
			return
		}
		graphBenchHome = filepath.Join(dir, "home")
		os.Setenv("GNO_HOME", graphBenchHome)
		ctx := context.Background()
		e, err := retrieval.Open(ctx, retrieval.Options{})
		if graphBenchErr = err; err != nil {
			return
		}
		defer e.Close()
		if graphBenchErr = e.UpdateConfig(ctx, func(c *config.Config) error {
			_, err := c.AddCollection(config.Collection{Name: "vault", Path: filepath.Join(dir, "vault")})
			return err
		}); graphBenchErr != nil {
			return
		}
		_, graphBenchErr = e.Update(ctx, retrieval.UpdateOptions{})
	})
	if graphBenchErr != nil {
		b.Fatal(graphBenchErr)
	}
	b.Setenv("GNO_HOME", graphBenchHome)
}

// BenchmarkGraphTools times gno_links, gno_find_path and gno_hubs round
// trips through a warm in-process MCP server (stdio transport, JSON-RPC
// both ways) on the generated 5,000-note vault.
//
//	go test -run '^$' -bench GraphTools -benchtime 200x ./server/
func BenchmarkGraphTools(b *testing.B) {
	graphBenchIndex(b)
	s := New(Options{Open: func(ctx context.Context) (*retrieval.Engine, error) { return retrieval.Open(ctx, retrieval.Options{}) }})
	defer s.Close()
	c := startClient(b, s)
	note := func(i int) string { return "vault/" + vaultgen.Rel(i%4980) }
	cases := []struct {
		name string
		args func(i int) map[string]any
	}{
		{"gno_links", func(i int) map[string]any { return map[string]any{"ref": note(i * 37)} }},
		{"gno_links_hub", func(i int) map[string]any { return map[string]any{"ref": note(i % 10), "limit": 50} }},
		{"gno_find_path", func(i int) map[string]any {
			return map[string]any{"source": note(i * 37), "target": note(i*2477 + 1000), "maxDepth": 50}
		}},
		{"gno_hubs", func(i int) map[string]any { return map[string]any{"metric": "in_degree", "limit": 10} }},
		{"gno_hubs_pagerank", func(i int) map[string]any { return map[string]any{"metric": "pagerank", "limit": 10} }},
	}
	for _, tc := range cases {
		tool := tc.name
		if tool == "gno_links_hub" {
			tool = "gno_links"
		}
		if tool == "gno_hubs_pagerank" {
			tool = "gno_hubs"
		}
		c.toolOK(tool, tc.args(0)) // warm: opens the index, builds the graph
		b.Run(tc.name, func(b *testing.B) {
			d := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				sc := c.toolOK(tool, tc.args(i))
				d = append(d, time.Since(start))
				if tool == "gno_find_path" && sc["found"] != true {
					b.Fatalf("no path: %v", tc.args(i))
				}
			}
			reportPercentiles(b, d)
		})
	}
	c.drain()
}
