package server

import (
	"strings"
	"testing"
)

// TestAskTool: gno_ask over MCP (output schema validated by mcp-go) with
// no answer model gives the top passages and a note saying why.
func TestAskTool(t *testing.T) {
	f := newFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_ask", map[string]any{"question": "where do foxes live", "mode": "fast", "passages": 3})
	ps := sc["passages"].([]any)
	if len(ps) == 0 || len(ps) > 3 {
		t.Fatalf("passages: %v", ps)
	}
	meta := sc["meta"].(map[string]any)
	if meta["answered"] != false || !strings.Contains(meta["notes"].([]any)[0].(string), "no answer model configured") {
		t.Fatalf("meta: %v", meta)
	}
	p := ps[0].(map[string]any)
	if !strings.Contains(sc["answer"].(string), p["docid"].(string)) {
		t.Fatalf("fallback answer should cite the passages: %v", sc["answer"])
	}
	c.toolErr("gno_ask", map[string]any{"question": "x", "mode": "slow"}, "INVALID_INPUT")
	c.toolErr("gno_ask", map[string]any{"question": " "}, "INVALID_INPUT")
}
