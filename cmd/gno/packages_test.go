package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gnosearch/gno/pkgdocs/pkgtest"
)

// TestPackagesCLI drives `gno packages` on a project whose dependency is
// a checked-out Swift package (no client, no network): add, an unchanged
// re-run, list, search, describe with and without --symbol, get by URI,
// rm and cleanup; JSON on stdout, nothing on stderr off a terminal.
func TestPackagesCLI(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	if err := (pkgtest.Project{Swift: true}).Write(dir); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("packages", "add", dir, "--no-embed")
	if code != 0 || !strings.Contains(out, "1 packages (1 indexed") || errOut != "" {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if out := c.ok("packages", "add", dir, "--no-embed"); !strings.Contains(out, "unchanged, 1 packages") {
		t.Errorf("re-run: %q", out)
	}
	var list struct {
		Projects []struct {
			Packages []struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal([]byte(c.ok("packages", "list", "--project", dir, "--json")), &list); err != nil || len(list.Projects) != 1 ||
		list.Projects[0].Packages[0].Name != "swift-retry" {
		t.Fatalf("list: %+v %v", list, err)
	}
	out = c.ok("packages", "search", "circuit breaker", "--project", dir, "--mode", "search", "-n", "3")
	if !strings.Contains(out, "swift swift-retry 1.2.0 · class CircuitBreaker") || !strings.Contains(out, "gno://pkg/swift/swift-retry@1.2.0/api/CircuitBreaker") {
		t.Errorf("search: %s", out)
	}
	out = c.ok("packages", "search", "circuit breaker", "--project", dir, "--mode", "search", "-n", "3", "--path", "Sources/App/main.swift")
	if !strings.Contains(out, "swift swift-retry 1.2.0 · class CircuitBreaker") || !strings.Contains(out, "searched the swift packages only (the ecosystem of main.swift)") {
		t.Errorf("search --path: %s", out)
	}
	out = c.ok("packages", "describe", "swift-retry", "--project", dir)
	if !strings.Contains(out, "== Install ==") || !strings.Contains(out, "public func retry<T>") {
		t.Errorf("describe: %s", out)
	}
	var d struct {
		Symbol struct{ Name, Signature, Doc string }
	}
	if err := json.Unmarshal([]byte(c.ok("packages", "describe", "swift-retry", "--symbol", "withTimeout", "--project", dir, "--json")), &d); err != nil ||
		!strings.HasPrefix(d.Symbol.Signature, "public func withTimeout<T: Sendable>") || !strings.Contains(d.Symbol.Doc, "TimeoutError") {
		t.Errorf("describe --symbol: %+v %v", d, err)
	}
	if out := c.ok("get", "gno://pkg/swift/swift-retry@1.2.0/api/withTimeout"); !strings.HasPrefix(out, "# withTimeout") {
		t.Errorf("get: %q", out)
	}
	if _, _, code := c.run("get", "gno://pkg/swift/swift-retry@9.9.9/readme.md"); code != 3 {
		t.Errorf("get of an unknown version: exit %d, want 3 (not found)", code)
	}
	c.ok("packages", "rm", dir)
	if _, _, code := c.run("packages", "list", "--project", dir); code != 3 {
		t.Errorf("list after rm: exit %d", code)
	}
	var cl map[string]int
	if err := json.Unmarshal([]byte(c.ok("cleanup", "--json")), &cl); err != nil || cl["removedPackageVersions"] != 1 {
		t.Errorf("cleanup: %v %v", cl, err)
	}
}
