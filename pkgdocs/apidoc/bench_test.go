//go:build unix

package apidoc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExtract times one package version's extraction, README to
// API, on real packages (files in the page cache, as on a re-index or
// right after the client fetched them).
func BenchmarkExtract(b *testing.B) {
	cases := []struct {
		name, eco, pkg string
		dir            func(testing.TB) string
	}{
		{"go/cobra", Go, "github.com/spf13/cobra", func(tb testing.TB) string { return goModule(tb, "github.com/spf13/cobra@v1.10.2") }},
		{"npm/commander", NPM, "commander", func(tb testing.TB) string { return npmPackage(tb, "commander@14.0.0") }},
		{"npm/zod", NPM, "zod", func(tb testing.TB) string { return npmPackage(tb, "zod@3.25.76") }},
		{"npm/express-js", NPM, "express", func(tb testing.TB) string { return npmPackage(tb, "express@4.21.2") }},
		{"npm/lodash-js", NPM, "lodash", func(tb testing.TB) string { return npmPackage(tb, "lodash@4.17.21") }},
		{"npm/lodash-es-js", NPM, "lodash-es", func(tb testing.TB) string { return npmPackage(tb, "lodash-es@4.17.21") }},
		{"python/requests", Python, "requests", func(tb testing.TB) string { return pyWheel(tb, "requests==2.32.3") }},
		{"python/click", Python, "click", func(tb testing.TB) string { return pyWheel(tb, "click==8.1.8") }},
		{"rust/anyhow", Rust, "anyhow", func(tb testing.TB) string { return filepath.Join(crates(tb), "anyhow-1.0.98") }},
		{"rust/serde", Rust, "serde", func(tb testing.TB) string { return filepath.Join(crates(tb), "serde-1.0.219") }},
		{"python/httpx", Python, "httpx", func(tb testing.TB) string { return pyWheel(tb, "httpx==0.27.2") }},
		{"python/pydantic", Python, "pydantic", func(tb testing.TB) string { return pyWheel(tb, "pydantic==2.14.4") }},
		{"rust/tokio", Rust, "tokio", func(tb testing.TB) string {
			return filepath.Join(cratesWith(tb, "crates-tokio", "tokio = \"=1.40.0\"\n"), "tokio-1.40.0")
		}},
		{"swift/fixture", Swift, "Greeter", swiftPackage},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := c.dir(b)
			var units int
			cpu := cpuTime()
			for b.Loop() {
				d, err := Extract(context.Background(), Package{Ecosystem: c.eco, Name: c.pkg, Dir: dir}, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				units = len(d.Units)
			}
			b.ReportMetric(float64(units), "units")
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkHugeDTS is the TypeScript reader's throughput on a 10 MB
// generated declaration file read whole (limits raised), and the cost
// under the default limits (4 MiB parsed, 10,000 units kept).
func BenchmarkHugeDTS(b *testing.B) {
	src := hugeDTS(10 << 20)
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{"package.json": `{"name":"gen","types":"index.d.ts"}`, "index.d.ts": src})
	for _, c := range []struct {
		name string
		lim  Limits
	}{{"whole", Limits{MaxFileBytes: 16 << 20, MaxUnits: 1 << 20}}, {"default-limits", Limits{}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Extract(context.Background(), Package{Ecosystem: NPM, Name: "gen", Dir: dir}, c.lim); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkJSParse compares, on lodash.js (544 kB, the largest
// hand-written entry met), tdewolff/parse's full JavaScript parse with
// the hand lexer alone (lex.go: tokens, no grammar), and the parse of a
// generated file at the 4 MiB limit.
func BenchmarkJSParse(b *testing.B) {
	lodash, err := os.ReadFile(filepath.Join(npmPackage(b, "lodash@4.17.21"), "lodash.js"))
	if err != nil {
		b.Fatal(err)
	}
	var gen strings.Builder
	for i := 0; gen.Len() < maxJSBytes-200; i++ {
		fmt.Fprintf(&gen, "/**\n * Item %d.\n * @param {number} a first\n * @returns {number}\n */\nexports.f%d = function f%d(a, b) { return a + b * %d; };\n", i, i, i, i)
	}
	for _, c := range []struct {
		name string
		src  []byte
		run  func([]byte)
	}{
		{"tdewolff/lodash.js", lodash, func(src []byte) {
			if _, err := parseJSMod("lodash.js", src); err != nil {
				b.Fatal(err)
			}
		}},
		{"handlexer/lodash.js", lodash, func(src []byte) { lex(string(src), langTS) }},
		{"tdewolff/generated-4MiB", []byte(gen.String()), func(src []byte) {
			if _, err := parseJSMod("gen.js", src); err != nil {
				b.Fatal(err)
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			cpu := cpuTime()
			for b.Loop() {
				c.run(c.src)
			}
			reportCPU(b, cpu)
		})
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine the
// wall time a benchmark reports includes waiting for a core, CPU time
// does not (it includes the garbage collector's work, which is ours).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
