//go:build unix

package packages

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine it
// says what a benchmark costs when wall time is inflated by other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ms/op metric to the benchmark.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkDiscover measures discovery of a project with 100 direct
// dependencies (40 npm, 30 Go, 20 Python, 10 Rust), each with one
// transitive dependency, generated on disk as the clients lay them out:
// a full discovery (direct, then --all), and the unchanged re-run check
// (Fingerprint). The OS file cache is warm after the first iteration.
func BenchmarkDiscover(b *testing.B) {
	proj, environ := synthetic{npm: 40, golang: 30, python: 20, rust: 10}.write(b, b.TempDir())
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		all  bool
	}{{"direct", false}, {"all", true}} {
		b.Run(bc.name, func(b *testing.B) {
			opt := Options{All: bc.all, Env: environ}
			start := cpuTime()
			for b.Loop() {
				p, err := Discover(ctx, proj, opt)
				if err != nil || len(p.Warnings) > 0 {
					b.Fatal(err, p.Warnings)
				}
				if want := 100 * map[bool]int{false: 1, true: 2}[bc.all]; len(p.Packages) != want {
					b.Fatalf("%d packages, want %d", len(p.Packages), want)
				}
			}
			reportCPU(b, start)
		})
	}
	b.Run("fingerprint", func(b *testing.B) {
		opt := Options{Env: environ}
		start := cpuTime()
		for b.Loop() {
			if _, err := Fingerprint(ctx, proj, opt); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start)
	})
}

// BenchmarkGoEnv is what a fresh process pays once when GOMODCACHE is not
// set: `go env GOMODCACHE` (memoised afterwards).
func BenchmarkGoEnv(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("go not on PATH")
	}
	for b.Loop() {
		if err := exec.Command("go", "env", "GOMODCACHE").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
