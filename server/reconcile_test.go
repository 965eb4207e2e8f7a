package server

import (
	"strings"
	"testing"
)

// The reconcile tools answer without --enable-write, match their output
// schemas, and refuse bad input with gno's codes.
func TestReconcileTools(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_affected", map[string]any{"since": 0})
	if len(sc["changed"].([]any)) != len(fixtureDocs) || len(sc["notes"].([]any)) != 0 {
		t.Errorf("affected = %v", sc)
	}
	sc = c.toolOK("gno_diff", map[string]any{"ref": "notes/sub/gamma.md", "since": 0})
	if d := sc["diff"].(string); !strings.HasPrefix(d, "diff --git a/sub/gamma.md b/sub/gamma.md\n--- /dev/null\n+++ b/sub/gamma.md\n") {
		t.Errorf("own diff = %q", d)
	}
	sc = c.toolOK("gno_mark_reconciled", map[string]any{"files": []string{"notes/alpha.md", "gno://notes/nope.md"}, "cursor": "agent-1"})
	if sc["updated"] != float64(1) || len(sc["missing"].([]any)) != 1 {
		t.Errorf("mark = %v", sc)
	}
	sc = c.toolOK("gno_clear_reconciled", map[string]any{"cursor": "agent-1"})
	if sc["cleared"] != true {
		t.Errorf("clear = %v", sc)
	}
	sc = c.toolOK("gno_changes", map[string]any{"since": 0, "diff": true})
	diffs := 0
	for _, a := range sc["added"].([]any) {
		if d, _ := a.(map[string]any)["diff"].(string); strings.HasPrefix(d, "diff --git ") {
			diffs++
		}
	}
	if diffs == 0 {
		t.Errorf("changes with diffs = %v", sc)
	}
	c.toolErr("gno_diff", map[string]any{"ref": "notes/alpha.md", "since": 0, "cursor": "../x"}, "INVALID_INPUT")
	c.toolErr("gno_diff", map[string]any{"ref": "notes/alpha.md"}, "INVALID_INPUT")
	c.toolErr("gno_diff", map[string]any{"ref": "notes/none.md", "since": 0}, "NOT_FOUND")
	c.toolErr("gno_affected", map[string]any{"base": "main"}, "INVALID_INPUT")
	c.toolErr("gno_mark_reconciled", map[string]any{"files": []string{"/etc/passwd"}}, "INVALID_PATH")
}
