package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
)

// TestPackagesDiffCLI: `gno packages diff` over two versions of the
// checked-out Swift package (no client runs): both versions named, the
// item added between them listed, --json and the exit code of a bad ask.
func TestPackagesDiffCLI(t *testing.T) {
	c := newCLI(t)
	dir, old := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, old} {
		if err := (pkgtest.Project{Swift: true}).Write(d); err != nil {
			t.Fatal(err)
		}
	}
	// old pins 1.1.0, whose checkout has no withTimeout.
	resolved := filepath.Join(old, "Package.resolved")
	data, _ := os.ReadFile(resolved)
	os.WriteFile(resolved, []byte(strings.Replace(string(data), `"1.2.0"`, `"1.1.0"`, 1)), 0o644)
	src := filepath.Join(old, ".build", "checkouts", "swift-retry", "Sources", "Retry", "Retry.swift")
	code, _ := os.ReadFile(src)
	i := strings.Index(string(code), "public func withTimeout")
	if i < 0 {
		t.Fatal("fixture changed: no withTimeout")
	}
	os.WriteFile(src, code[:i], 0o644)
	c.ok("packages", "add", dir, "--no-embed")
	if _, errOut, code := c.run("packages", "diff", "swift-retry", "--project", dir); code != 3 || !strings.Contains(errOut, "--to") {
		t.Errorf("one version stored: exit %d, %q", code, errOut)
	}
	c.ok("packages", "add", old, "--no-embed")
	out := c.ok("packages", "diff", "swift-retry", "--project", dir)
	if !strings.HasPrefix(out, "swift swift-retry: 1.1.0 → 1.2.0 (installed)") || !strings.Contains(out, "+ withTimeout (func): public func withTimeout<T: Sendable>") {
		t.Errorf("diff: %s", out)
	}
	var d struct {
		From, To struct{ Version string }
		Added    []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(c.ok("packages", "diff", "swift-retry", "--project", old, "--to", "1.2.0", "--json")), &d); err != nil ||
		d.From.Version != "1.1.0" || d.To.Version != "1.2.0" || len(d.Added) == 0 {
		t.Errorf("diff --json: %+v %v", d, err)
	}
	if _, errOut, code := c.run("packages", "diff", "left-pad", "--project", dir); code != 3 || !strings.Contains(errOut, "left-pad") {
		t.Errorf("not a dependency: exit %d, %q", code, errOut)
	}
}
