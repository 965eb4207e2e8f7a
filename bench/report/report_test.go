package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/metrics"
)

func sample() *Run {
	lat := func(p50 float64) *latency.Summary {
		return &latency.Summary{N: 50, P50: p50, P95: p50 * 2, P99: p50 * 3}
	}
	return &Run{
		Quick: true, Date: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), Commit: "abc123", Command: "gnobench -quick",
		Machine: Machine{CPU: "Test CPU", Cores: 2, RAMBytes: 24 << 30, OS: "linux/amd64", Go: "go1.26"},
		Gno:     "gno dev",
		Datasets: []Corpus{{
			Name: "scifact", Split: "train", Docs: 5183, Bytes: 7_800_000, Queries: 809,
			Index: Indexing{AddMS: 5, UpdateMS: 900, FilesPerSec: 5700, ResyncMS: 40, EmbedNA: "no models", IndexBytes: 20 << 20},
			Modes: []Mode{
				{Mode: "search", CLI: lat(9), MCP: lat(1.5), Quality: &metrics.Scores{NDCG10: 0.7, Queries: 809}, QualityVia: "mcp",
					Observed: &Observed{Modes: map[string]int{"bm25": 809}, Responses: 809}},
				{Mode: "vsearch", NA: "gno vsearch: exit 1: no embedding model"},
			},
		}},
		Corpora: []Corpus{
			{Name: "synthetic-1k", Docs: 1000, Modes: []Mode{{Mode: "search", CLI: lat(8)}, {Mode: "fast", CLI: lat(30)}}},
			{Name: "synthetic-10k", Docs: 10000, Modes: []Mode{{Mode: "search", CLI: lat(12)}, {Mode: "fast", CLI: lat(45)}}},
		},
		Peers: []Peer{{Tool: "qmd", Version: "2.8.3", Dataset: "scifact", Queries: 200, IndexMS: 6200, GnoIndexMS: 905,
			Search: lat(190), GnoSearch: lat(9), Quality: &metrics.Scores{NDCG10: 0.05}, GnoQuality: &metrics.Scores{NDCG10: 0.7}}},
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(sample())
	for _, want := range []string{
		"## quick run", "commit abc123", "Test CPU, 2 cores, 24 GiB RAM",
		"| scifact | search | 50 | 9.0 | 18 | 27 | – |",
		"| scifact | train | search | 809 | 0.700 |",
		"bm25×809",
		"| search p50 ms (whole process) | 9.0 | 190 | 21.1× |",
		"| index (add + update) ms | 905 | 6200 | 6.9× |",
		"- scifact / vsearch: gno vsearch: exit 1: no embedding model",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	r := sample()
	md := filepath.Join(dir, "RESULTS.md")
	for range 2 {
		if err := AppendMarkdown(md, r); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(md)
	if strings.Count(string(b), "# gno benchmark results") != 1 || strings.Count(string(b), "## quick run") != 2 {
		t.Fatalf("appending twice should give one title and two sections:\n%s", b)
	}
	js := filepath.Join(dir, "r.json")
	if err := WriteJSON(js, r); err != nil {
		t.Fatal(err)
	}
	var back Run
	b, _ = os.ReadFile(js)
	if err := json.Unmarshal(b, &back); err != nil || back.Datasets[0].Modes[0].Quality.NDCG10 != 0.7 {
		t.Fatalf("JSON round trip: %v", err)
	}
	png := filepath.Join(dir, "lat.png")
	if ok, err := Plot(png, r); err != nil || !ok {
		t.Fatalf("plot: %v, %v", ok, err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Fatalf("plot not written: %v", err)
	}
}

func TestPlotNothing(t *testing.T) {
	png := filepath.Join(t.TempDir(), "none.png")
	if ok, err := Plot(png, &Run{}); ok || err != nil {
		t.Fatalf("plot of no data: %v, %v", ok, err)
	}
	if _, err := os.Stat(png); err == nil {
		t.Fatal("a plot was written without data")
	}
}
