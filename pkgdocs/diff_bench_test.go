//go:build unix

package pkgdocs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDiff: `packages diff` of two stored versions of the Swift
// fixture (1.1.0 stored for a second project), as gno_package_changes
// runs it (auto-index check, both versions' API, deprecation, the
// changelog found again in the checkout, the budget).
func BenchmarkDiff(b *testing.B) {
	x, dir := benchIndex(b)
	other := project(b, swiftOnly)
	resolved := filepath.Join(other, "Package.resolved")
	data, err := os.ReadFile(resolved)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(resolved, []byte(strings.Replace(string(data), `"1.2.0"`, `"1.1.0"`, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".build", "checkouts", "swift-retry", "CHANGELOG.md"), []byte("## 1.2.0\n\n- withTimeout\n\n## 1.1.0\n\n- first\n"), 0o644)
	add(b, x, other, AddOptions{NoFetch: true})
	ctx := context.Background()
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		d, err := x.Diff(ctx, DiffRequest{Package: "swift-retry", Projects: []string{dir}, MaxTokens: DefaultMaxTokens, Auto: true})
		if err != nil || d.From.Version != "1.1.0" || d.Changelog == nil || len(d.Changelog.Entries) != 1 {
			b.Fatal(d, err)
		}
	}
	reportCPU(b, c0)
}
