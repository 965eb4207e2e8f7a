package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval"
)

// graphFixture adds linked notes to the fixture and re-indexes.
func graphFixture(t *testing.T) *fixture {
	f := newFixture(t)
	files := map[string]string{
		"hub.md":       "# Hub\n[[alpha]] [[sub/beta]] [[gamma|G]] [[nowhere]]\n" + strings.Repeat("long hub text ", 1000) + "\n",
		"leaf.md":      "---\naliases: [Leaflet]\n---\n# Leaf\nUp to [[Hub]].\n",
		"sub/gamma.md": "# Gamma\nSee [[alpha]] and [[leaf]].\n",
	}
	for rel, body := range files {
		p := filepath.Join(f.notes, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGraphTools(t *testing.T) {
	f := graphFixture(t)
	c := startClient(t, newTestServer(t, f, false))
	sc := c.toolOK("gno_links", map[string]any{"ref": "notes/hub.md", "includeContent": true})
	if sc["outgoingCount"] != float64(4) || sc["incomingCount"] != float64(1) {
		t.Fatalf("links = %v", sc)
	}
	out := sc["outgoing"].([]any)
	first := out[0].(map[string]any)
	if first["uri"] != "gno://notes/alpha.md" || first["line"] != float64(2) || !strings.HasPrefix(first["content"].(string), "# Alpha note") {
		t.Errorf("first link = %v", first)
	}
	if out[3].(map[string]any)["resolved"] != false {
		t.Errorf("[[nowhere]] = %v", out[3])
	}
	sc = c.toolOK("gno_find_path", map[string]any{"source": "notes/leaf.md", "target": "notes/alpha.md"})
	if sc["found"] != true || sc["length"] != float64(2) {
		t.Errorf("path = %v", sc)
	}
	sc = c.toolOK("gno_find_path", map[string]any{"source": "notes/alpha.md", "target": "notes/leaf.md"})
	if sc["found"] != false {
		t.Errorf("reverse path = %v", sc)
	}
	sc = c.toolOK("gno_find_path", map[string]any{"source": "notes/alpha.md", "target": "notes/leaf.md", "undirected": true})
	if sc["found"] != true || sc["length"] != float64(2) {
		t.Errorf("undirected path = %v", sc)
	}
	for _, m := range []string{"in_degree", "out_degree", "pagerank"} {
		sc = c.toolOK("gno_hubs", map[string]any{"metric": m, "limit": 2, "includeContent": true})
		hubs := sc["hubs"].([]any)
		if len(hubs) != 2 {
			t.Errorf("%s hubs = %v", m, hubs)
		}
	}
	if top := c.toolOK("gno_hubs", map[string]any{})["hubs"].([]any)[0].(map[string]any); top["uri"] != "gno://notes/alpha.md" || top["score"] != float64(2) {
		t.Errorf("top in_degree hub = %v", top)
	}
	sc = c.toolOK("gno_resolve", map[string]any{"names": []string{"leaflet", "Gamme", "zzzz"}, "strategy": "fuzzy", "threshold": 0.5})
	res := sc["results"].([]any)
	if res[0].(map[string]any)["match"] != "gno://notes/leaf.md" || res[1].(map[string]any)["match"] != "gno://notes/sub/gamma.md" || res[2].(map[string]any)["match"] != nil {
		t.Errorf("resolve = %v", res)
	}
	c.toolErr("gno_resolve", map[string]any{"names": []string{"x"}, "strategy": "semantic"}, "UNAVAILABLE")
	sc = c.toolOK("gno_related", map[string]any{"ref": "notes/hub.md"})
	if sc["vectorsUsed"] != false || len(sc["related"].([]any)) == 0 {
		t.Errorf("related = %v", sc)
	}
	// gno_get depth 1: neighbours with 200-character content, the
	// document cut to 10,000.
	sc = c.toolOK("gno_get", map[string]any{"ref": "notes/hub.md", "depth": 1})
	if sc["outgoingCount"] != float64(3) || sc["incomingCount"] != float64(1) || sc["truncated"] != true {
		t.Errorf("get depth 1 = %v %v %v", sc["outgoingCount"], sc["incomingCount"], sc["truncated"])
	}
	if content := sc["content"].(string); !strings.HasSuffix(content, "... [truncated]") || len([]rune(content)) != 10000+len("... [truncated]") {
		t.Errorf("primary content %d runes", len([]rune(content)))
	}
	c.toolErr("gno_links", map[string]any{"ref": "notes/none.md"}, "NOT_FOUND")
	c.toolErr("gno_links", map[string]any{"ref": "notes/hub.md", "direction": "up"}, "INVALID_INPUT")
	c.toolErr("gno_hubs", map[string]any{"metric": "betweenness"}, "INVALID_INPUT")
}

func TestNoteTools(t *testing.T) {
	f := graphFixture(t)
	c := startClient(t, newTestServer(t, f, true))
	c.toolErr("gno_rename", map[string]any{"ref": "notes/sub/gamma.md", "newPath": "g2.md"}, "LINK_INTEGRITY")
	sc := c.toolOK("gno_rename", map[string]any{"ref": "notes/sub/gamma.md", "newPath": "g2.md", "updateLinks": true})
	if sc["linksUpdated"] != float64(1) || sc["uri"] != "gno://notes/g2.md" {
		t.Errorf("rename = %v", sc)
	}
	if b, _ := os.ReadFile(filepath.Join(f.notes, "hub.md")); !strings.HasPrefix(string(b), "# Hub\n[[alpha]] [[sub/beta]] [[g2|G]] [[nowhere]]\n") {
		t.Errorf("hub.md after rename: %.80q", b)
	}
	c.toolErr("gno_rename", map[string]any{"ref": "notes/g2.md", "newPath": "../out.md", "updateLinks": true}, "INVALID_PATH")
	c.toolOK("gno_update", map[string]any{"ref": "notes/leaf.md", "tags": []string{"green"}})
	if b, _ := os.ReadFile(filepath.Join(f.notes, "leaf.md")); string(b) != "---\naliases: [Leaflet]\ntags: [green]\n---\n# Leaf\nUp to [[Hub]].\n" {
		t.Errorf("leaf.md after tags: %q", b)
	}
	if rs := c.toolOK("gno_search", map[string]any{"query": "Leaf", "tagsAll": []string{"green"}})["results"].([]any); len(rs) != 1 {
		t.Errorf("tag not indexed: %v", rs)
	}
	sc = c.toolOK("gno_delete", map[string]any{"ref": "notes/leaf.md"})
	if sc["deleted"] != true || sc["brokenLinks"] != float64(1) {
		t.Errorf("delete = %v", sc)
	}
	if sc = c.toolOK("gno_delete", map[string]any{"ref": "notes/leaf.md"}); sc["deleted"] != false {
		t.Errorf("second delete = %v", sc)
	}
	c.toolErr("gno_update", map[string]any{"ref": "notes/hub.md"}, "INVALID_INPUT")
}
