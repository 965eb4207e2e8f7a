package gnocli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseResponse(t *testing.T) {
	out := `{"results":[
	  {"docid":"#abcd1234","score":0.8,"uri":"gno://scifact/31715818.md","snippet":"x",
	   "source":{"absPath":"/tmp/c/31715818.md","relPath":"31715818.md","mime":"text/markdown","ext":".md"}},
	  {"docid":"#ef","score":0.5,"uri":"gno://scifact/sub/dir/42.md","source":{}}],
	 "meta":{"query":"q","mode":"hybrid","expanded":false,"reranked":true,"vectorsUsed":true,"totalResults":2}}`
	r, err := ParseResponse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) != 2 || r.Hits[0].DocID != "31715818" || r.Hits[1].DocID != "42" || r.Hits[0].Score != 0.8 {
		t.Fatalf("hits = %+v", r.Hits)
	}
	if r.Meta.Mode != "hybrid" || !r.Meta.Reranked || !r.Meta.VectorsUsed || r.Meta.TotalResults != 2 {
		t.Fatalf("meta = %+v", r.Meta)
	}
	if _, err := ParseResponse([]byte("Found 3 results")); err == nil {
		t.Fatal("want an error for non-JSON output")
	}
	if _, err := ParseResponse([]byte(`{"results":[{"docid":"#1"}]}`)); err == nil {
		t.Fatal("want an error for a result without a path")
	}
}

func TestModeArgs(t *testing.T) {
	cases := map[Mode][]string{
		Search:   {"search", "q", "-n", "10", "--json"},
		VSearch:  {"vsearch", "q", "-n", "10", "--json"},
		Fast:     {"query", "q", "--fast", "-n", "10", "--json"},
		Default:  {"query", "q", "-n", "10", "--json"},
		Thorough: {"query", "q", "--thorough", "-n", "10", "--json"},
	}
	for m, want := range cases {
		if got := m.CLIArgs("q", 10); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", m, got, want)
		}
	}
	tool, args := Fast.MCPCall("q", 7)
	if tool != "gno_query" || args["fast"] != true || args["limit"] != 7 {
		t.Fatalf("fast over MCP = %s %v", tool, args)
	}
	if tool, _ := VSearch.MCPCall("q", 1); tool != "gno_vsearch" {
		t.Fatalf("vsearch tool = %s", tool)
	}
	if Search.NeedsModels() || !Default.NeedsModels() {
		t.Fatal("NeedsModels wrong")
	}
}

func TestFindCount(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`{"index":"default","collections":[{"name":"a","documents":3,"chunks":10},{"name":"b","chunks":5}],"embedded":{"vectors":15}}`), &v)
	if n, ok := FindCount(v, "chunk"); !ok || n != 15 {
		t.Fatalf("chunks = %d %v, want 15 summed over collections", n, ok)
	}
	if n, ok := FindCount(v, "vectors"); !ok || n != 15 {
		t.Fatalf("vectors = %d %v", n, ok)
	}
	if _, ok := FindCount(v, "missing"); ok {
		t.Fatal("found a key that is not there")
	}
}

func TestNewHome(t *testing.T) {
	t.Setenv("GNO_HOME", "/somewhere/else")
	t.Setenv("GNO_MODELS_DIR", "/inherited/models")
	modelsDir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	g, err := New("/bin/true", home, modelsDir)
	if err != nil {
		t.Fatal(err)
	}
	var homes, models []string
	for _, kv := range g.Env() {
		if strings.HasPrefix(kv, "GNO_HOME=") {
			homes = append(homes, kv)
		}
		if strings.HasPrefix(kv, "GNO_MODELS_DIR=") {
			models = append(models, kv)
		}
	}
	if len(homes) != 1 || homes[0] != "GNO_HOME="+home {
		t.Fatalf("GNO_HOME entries = %v", homes)
	}
	if len(models) != 1 || models[0] != "GNO_MODELS_DIR="+modelsDir {
		t.Fatalf("GNO_MODELS_DIR entries = %v", models)
	}
	if err := os.MkdirAll(filepath.Join(home, "data", "default"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "data", "default", "index.sqlite"), make([]byte, 1234), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := g.DataBytes(); n != 1234 {
		t.Fatalf("DataBytes = %d", n)
	}
}
