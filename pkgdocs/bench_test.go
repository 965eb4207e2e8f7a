//go:build unix

package pkgdocs

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU: on a loaded machine it is the
// figure that does not depend on waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchIndex is an index holding the Swift fixture project (offline);
// bigger projects are measured by bench/cmd/gnopkgbench.
func benchIndex(b *testing.B) (*Index, string) {
	x := newIndex(b)
	dir := project(b, swiftOnly)
	add(b, x, dir, AddOptions{NoFetch: true})
	return x, dir
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkAddUnchanged: the re-run of an unchanged project (the
// fingerprint and one project row).
func BenchmarkAddUnchanged(b *testing.B) {
	x, dir := benchIndex(b)
	ctx := context.Background()
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		if res, err := x.Add(ctx, dir, AddOptions{NoFetch: true}); err != nil || !res.Unchanged {
			b.Fatal(res, err)
		}
	}
	reportCPU(b, c0)
}

// BenchmarkSearch: a warm BM25 search of the project (auto-index check
// included, as the MCP tool runs it).
func BenchmarkSearch(b *testing.B) {
	x, dir := benchIndex(b)
	ctx := context.Background()
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		if _, err := x.Search(ctx, SearchRequest{Query: "retry with exponential backoff", Projects: []string{dir}, Limit: 5, Mode: ModeSearch, MaxTokens: DefaultMaxTokens, Auto: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0)
}

// BenchmarkDescribe: describe with a symbol, as gno_describe_package.
func BenchmarkDescribe(b *testing.B) {
	x, dir := benchIndex(b)
	ctx := context.Background()
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		if _, err := x.Describe(ctx, DescribeRequest{Package: "swift-retry", Symbol: "CircuitBreaker", Projects: []string{dir}, MaxTokens: DefaultMaxTokens, Auto: true}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0)
}
