package server

import (
	"encoding/json"
	"testing"
)

// TestToolsMatchesRegistry keeps Tools in step with what New registers:
// the skill generator reads Tools, clients read tools/list.
func TestToolsMatchesRegistry(t *testing.T) {
	for _, write := range []bool{false, true} {
		s := New(Options{EnableWrite: write})
		want := map[string]bool{}
		for _, ti := range Tools() {
			if !ti.NeedsWrite || write {
				want[ti.Name] = true
			}
			var schema map[string]any
			if err := json.Unmarshal(ti.InputSchema, &schema); err != nil || schema["type"] != "object" {
				t.Errorf("%s: input schema %v", ti.Name, err)
			}
			if ti.Description == "" {
				t.Errorf("%s: no description", ti.Name)
			}
		}
		if len(want) != len(s.defs) {
			t.Errorf("write=%v: Tools lists %d, New registers %d", write, len(want), len(s.defs))
		}
		for name := range s.defs {
			if !want[name] {
				t.Errorf("write=%v: %s registered but not in Tools", write, name)
			}
		}
		s.Close()
	}
}
