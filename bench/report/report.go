// Package report holds the benchmark's results and renders them: a JSON
// file for machines, a Markdown section appended to bench/RESULTS.md for
// people, and a latency-versus-corpus-size plot.
//
// It must not be imported by gno itself (bench is a tool).
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/metrics"
)

// Run is one benchmark run.
type Run struct {
	Date     time.Time `json:"date"`
	Commit   string    `json:"commit"`
	Command  string    `json:"command"`
	Quick    bool      `json:"quick"`
	Machine  Machine   `json:"machine"`
	Gno      string    `json:"gno_version"`
	Seconds  float64   `json:"seconds"`
	Datasets []Corpus  `json:"datasets"`
	Corpora  []Corpus  `json:"synthetic"`
	Peers    []Peer    `json:"peers"`
	Notes    []string  `json:"notes,omitempty"`
}

// Machine describes where the run happened; figures mean little without it.
type Machine struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	RAMBytes uint64 `json:"ram_bytes"`
	OS       string `json:"os"`
	Go       string `json:"go"`
	// LoadStart and LoadEnd are the 1-minute load averages when the run
	// began and ended: wall-time figures from a loaded machine are inflated.
	LoadStart float64 `json:"load_start"`
	LoadEnd   float64 `json:"load_end"`
}

// Corpus is what was measured on one collection: a real dataset or a
// synthetic corpus.
type Corpus struct {
	Name    string   `json:"name"`
	Split   string   `json:"split,omitempty"`
	Docs    int      `json:"docs"`
	Bytes   int64    `json:"bytes"`
	Queries int      `json:"queries"`
	Index   Indexing `json:"indexing"`
	Modes   []Mode   `json:"modes"`
}

// Indexing holds throughput, memory and size figures of building an index.
type Indexing struct {
	NA            string  `json:"na,omitempty"`
	AddMS         float64 `json:"collection_add_ms"`
	UpdateMS      float64 `json:"update_ms"`
	FilesPerSec   float64 `json:"update_files_per_s"`
	MBPerSec      float64 `json:"update_mb_per_s"`
	UpdateRSS     int64   `json:"update_peak_rss_bytes"`
	ResyncMS      float64 `json:"unchanged_update_ms"`
	EmbedNA       string  `json:"embed_na,omitempty"`
	EmbedMS       float64 `json:"embed_ms,omitempty"`
	EmbedCut      string  `json:"embed_cut,omitempty"`
	Chunks        int64   `json:"chunks_embedded,omitempty"`
	TotalChunks   int64   `json:"chunks_total,omitempty"`
	ChunksPerSec  float64 `json:"embed_chunks_per_s,omitempty"`
	EmbedRSS      int64   `json:"embed_peak_rss_bytes,omitempty"`
	IndexBytes    int64   `json:"index_bytes"`
	BytesPer1kDoc float64 `json:"index_bytes_per_1k_docs"`
}

// Mode holds one retrieval mode's latency and quality on one corpus.
type Mode struct {
	Mode string `json:"mode"`
	// NA says why the mode was not measured (the build cannot run it yet,
	// models are missing, …).
	NA string `json:"na,omitempty"`
	// CLI is the whole-process wall time of `gno <mode> Q -n 10 --json`.
	CLI *latency.Summary `json:"cli,omitempty"`
	// CLICPU is user+system CPU time per query: the figure that stays
	// honest when other processes share the machine.
	CLICPU    *latency.Summary `json:"cli_cpu,omitempty"`
	CLIColdMS float64          `json:"cli_first_ms,omitempty"`
	CLIRSS    int64            `json:"cli_peak_rss_bytes,omitempty"`
	CLIErrors int              `json:"cli_errors,omitempty"`
	CLINA     string           `json:"cli_na,omitempty"`
	// MCP is the tools/call round trip on a warm `gno mcp` server.
	MCP       *latency.Summary `json:"mcp,omitempty"`
	MCPNA     string           `json:"mcp_na,omitempty"`
	MCPColdMS float64          `json:"mcp_cold_start_ms,omitempty"`
	MCPRSS    int64            `json:"mcp_peak_rss_bytes,omitempty"`
	MCPErrors int              `json:"mcp_errors,omitempty"`
	// Quality is scored on the top 100 of every judged query (or of a
	// fixed prefix of them, QualityQueries, in quick runs).
	Quality    *metrics.Scores `json:"quality,omitempty"`
	QualityVia string          `json:"quality_via,omitempty"`
	// Observed counts what meta said across the quality pass, so a run
	// where the reranker silently did not run is visible.
	Observed *Observed `json:"observed,omitempty"`
}

// Observed summarises the meta blocks of a pass.
type Observed struct {
	Modes       map[string]int `json:"modes"`
	Reranked    int            `json:"reranked"`
	Expanded    int            `json:"expanded"`
	VectorsUsed int            `json:"vectors_used"`
	Responses   int            `json:"responses"`
}

// Peer is a side-by-side comparison with another tool on one dataset, all
// measured in the same run.
type Peer struct {
	Tool         string   `json:"tool"`
	Version      string   `json:"version"`
	Dataset      string   `json:"dataset"`
	NA           string   `json:"na,omitempty"`
	InstallSteps []string `json:"install_steps,omitempty"`
	Queries      int      `json:"queries"`
	// The peer's figures.
	IndexMS    float64          `json:"index_ms"`
	IndexRSS   int64            `json:"index_peak_rss_bytes"`
	ResyncMS   float64          `json:"unchanged_update_ms"`
	IndexBytes int64            `json:"index_bytes"`
	Search     *latency.Summary `json:"search,omitempty"`
	SearchRSS  int64            `json:"search_peak_rss_bytes"`
	Quality    *metrics.Scores  `json:"quality,omitempty"`
	// gno's figures on the same corpus and queries, from the same run.
	GnoIndexMS  float64          `json:"gno_index_ms"`
	GnoResyncMS float64          `json:"gno_unchanged_update_ms"`
	GnoSearch   *latency.Summary `json:"gno_search,omitempty"`
	GnoQuality  *metrics.Scores  `json:"gno_quality,omitempty"`
}

// WriteJSON writes the run to path.
func WriteJSON(path string, r *Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}
