package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/chunk"
)

// TestPackageChanges: gno_package_changes over two versions of the
// checked-out Swift package (no client runs): the other project pins
// 1.1.0, whose checkout lacks withTimeout; the answer names both
// versions, lists withTimeout as added, passes its output schema and
// keeps to its budget.
func TestPackageChanges(t *testing.T) {
	p := newPkgFixture(t)
	resolved := filepath.Join(p.other, "Package.resolved")
	data, err := os.ReadFile(resolved)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(p.other, ".build", "checkouts", "swift-retry", "Sources", "Retry", "Retry.swift")
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(code), "public func withTimeout")
	if i < 0 {
		t.Fatal("fixture changed: no withTimeout")
	}
	old := string(code[:i]) + "\n"
	if err := os.WriteFile(src, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resolved, []byte(strings.Replace(string(data), `"1.2.0"`, `"1.1.0"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The installed version's changelog is in no format gno knows.
	changes := filepath.Join(p.work, ".build", "checkouts", "swift-retry", "CHANGELOG.md")
	if err := os.WriteFile(changes, []byte("Changes\n\n* 2024-03-01 faster retries\n* 2024-01-10 first release\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, p.srv)
	// The other project stores 1.1.0 (its first read indexes it).
	c.toolOK("gno_describe_package", map[string]any{"package": "swift-retry", "project": p.other})
	sc := c.toolOK("gno_package_changes", map[string]any{"package": "swift-retry"})
	from, to := sc["from"].(map[string]any), sc["to"].(map[string]any)
	if from["version"] != "1.1.0" || to["version"] != "1.2.0" || to["installed"] != true {
		t.Fatalf("versions: %v → %v", from, to)
	}
	var added []string
	for _, a := range sc["added"].([]any) {
		added = append(added, a.(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(added, " "), "withTimeout") {
		t.Errorf("added: %v", added)
	}
	if cl, _ := sc["changelog"].(map[string]any); cl == nil || cl["known"] != false || cl["file"] != "CHANGELOG.md" ||
		!strings.Contains(strings.Join(strings.Fields(toString(sc["notes"])), " "), "format not recognised") {
		t.Errorf("unknown changelog format: %v, notes %v", sc["changelog"], sc["notes"])
	}
	small := c.toolOK("gno_package_changes", map[string]any{"package": "swift-retry", "maxTokens": 200})
	b, _ := json.Marshal(small)
	if n := chunk.EstimateTokens(string(b)); n > 200 || small["truncated"] != true || small["from"].(map[string]any)["version"] != "1.1.0" {
		t.Errorf("budget 200: %d tokens, %s", n, b)
	}
	// Bad input: a package the project does not use; a Swift version
	// not stored (Swift has no client here).
	if msg := c.toolErr("gno_package_changes", map[string]any{"package": "left-pad"}, "NOT_FOUND"); !strings.Contains(msg, "left-pad") {
		t.Errorf("not a dependency: %s", msg)
	}
	if msg := c.toolErr("gno_package_changes", map[string]any{"package": "swift-retry", "to": "9.9.9"}, "NOT_FOUND"); !strings.Contains(msg, "9.9.9") {
		t.Errorf("unknown version: %s", msg)
	}
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
