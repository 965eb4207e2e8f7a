//go:build unix

package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

// BenchmarkSyncLinks times a full sync of a fresh index with and without
// link extraction and resolution: on the generated 5,000-note vault (link
// dense: about three links per 300-byte note), and on the folder named by
// GNO_BENCH_VAULT when set (a real vault).
//
//	TMPDIR=/dev/shm go test -run '^$' -bench SyncLinks -benchtime 5x ./retrieval/
func BenchmarkSyncLinks(b *testing.B) {
	gen := b.TempDir()
	if _, err := vaultgen.Generate(gen, 5000); err != nil {
		b.Fatal(err)
	}
	roots := map[string]string{"generated5k": gen}
	if v := os.Getenv("GNO_BENCH_VAULT"); v != "" {
		roots["real"] = v
	}
	for name, root := range roots {
		// Each iteration syncs once without and once with links, so drift
		// in the machine's load falls on both alike.
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			col := config.Collection{Name: "v", Path: root}
			var cpu, wall [2]time.Duration
			for i := 0; i < b.N; i++ {
				for _, skip := range []bool{i%2 == 0, i%2 != 0} {
					v := 1
					if skip {
						v = 0
					}
					st, err := store.Open(ctx, filepath.Join(b.TempDir(), "index.sqlite"))
					if err != nil {
						b.Fatal(err)
					}
					c0, w0 := cpuTime(), time.Now()
					if _, err := ingest.Sync(ctx, st, col, 1, ingest.Options{SkipLinks: skip}); err != nil {
						b.Fatal(err)
					}
					cpu[v] += cpuTime() - c0
					wall[v] += time.Since(w0)
					st.Close()
				}
			}
			n := float64(b.N)
			b.ReportMetric(cpu[0].Seconds()/n, "nolinks-cpu-s")
			b.ReportMetric(cpu[1].Seconds()/n, "links-cpu-s")
			b.ReportMetric(100*(cpu[1].Seconds()/cpu[0].Seconds()-1), "cpu-overhead-%")
			b.ReportMetric(100*(wall[1].Seconds()/wall[0].Seconds()-1), "wall-overhead-%")
		})
	}
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGraphRebuild times what the first graph question after a sync
// pays on the generated 5,000-note vault: loading documents and links from
// SQLite, resolving every link, building the graph and computing PageRank;
// "whole" is the graph view's Graph.Whole on top (tags, the layout input,
// its digest).
func BenchmarkGraphRebuild(b *testing.B) {
	for _, whole := range []bool{false, true} {
		name := "hubs"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) { benchGraphRebuild(b, whole) })
	}
}

func benchGraphRebuild(b *testing.B, whole bool) {
	b.Setenv("GNO_HOME", b.TempDir())
	root := b.TempDir()
	if _, err := vaultgen.Generate(root, 5000); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "v", Path: root})
		return err
	})
	if _, err := e.Update(ctx, UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	db := rawDB(b, e)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// What a committed write does: the store's link index is stale.
		if _, err := db.ExecContext(ctx, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'writes'"); err != nil {
			b.Fatal(err)
		}
		e.graph.mu.Lock()
		e.graph.g = nil
		e.graph.mu.Unlock()
		if whole {
			if _, err := e.Graph().Whole(ctx); err != nil {
				b.Fatal(err)
			}
		} else if _, err := e.Graph().Hubs(ctx, HubsRequest{Metric: MetricPageRank, Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
