// Package gnocli drives the gno binary for the benchmark: an isolated
// GNO_HOME per corpus, indexing commands, and the search commands of every
// mode, parsed from their --json output. It speaks only the CLI and MCP
// contracts, so it works against any build of gno and reports a mode the
// build cannot run yet instead of failing the whole run.
//
// It must not be imported by gno itself (bench is a tool).
package gnocli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/bench/mcpclient"
	"github.com/gnosearch/gno/bench/proc"
)

// Mode is a retrieval mode of gno.
type Mode string

// The modes the benchmark measures.
const (
	Search   Mode = "search"
	VSearch  Mode = "vsearch"
	Fast     Mode = "fast"
	Default  Mode = "default"
	Thorough Mode = "thorough"
)

// AllModes lists the modes in report order.
var AllModes = []Mode{Search, VSearch, Fast, Default, Thorough}

// NeedsModels reports whether a mode needs the embedding model (and so an
// embedded index).
func (m Mode) NeedsModels() bool { return m != Search }

// CLIArgs are the command-line arguments that run query q in mode m.
func (m Mode) CLIArgs(q string, n int) []string {
	nf := strconv.Itoa(n)
	switch m {
	case Search:
		return []string{"search", q, "-n", nf, "--json"}
	case VSearch:
		return []string{"vsearch", q, "-n", nf, "--json"}
	case Fast:
		return []string{"query", q, "--fast", "-n", nf, "--json"}
	case Thorough:
		return []string{"query", q, "--thorough", "-n", nf, "--json"}
	default:
		return []string{"query", q, "-n", nf, "--json"}
	}
}

// MCPCall is the tool name and arguments that run query q in mode m.
func (m Mode) MCPCall(q string, n int) (string, map[string]any) {
	args := map[string]any{"query": q, "limit": n}
	switch m {
	case Search:
		return "gno_search", args
	case VSearch:
		return "gno_vsearch", args
	case Fast:
		args["fast"] = true
	case Thorough:
		args["thorough"] = true
	}
	return "gno_query", args
}

// Hit is one search result, reduced to what scoring needs.
type Hit struct {
	DocID string
	Score float64
}

// Meta is the search response's meta block.
type Meta struct {
	Mode         string `json:"mode"`
	Expanded     bool   `json:"expanded"`
	Reranked     bool   `json:"reranked"`
	VectorsUsed  bool   `json:"vectorsUsed"`
	TotalResults int    `json:"totalResults"`
}

// Response is a parsed search response.
type Response struct {
	Hits []Hit
	Meta Meta
}

type wireResponse struct {
	Results []struct {
		DocID  string  `json:"docid"`
		Score  float64 `json:"score"`
		URI    string  `json:"uri"`
		Source struct {
			RelPath string `json:"relPath"`
			AbsPath string `json:"absPath"`
		} `json:"source"`
	} `json:"results"`
	Meta Meta `json:"meta"`
}

// ParseResponse reads gno's search JSON (CLI stdout or MCP
// structuredContent). Documents are named by their file's base name, the
// dataset document id.
func ParseResponse(b []byte) (Response, error) {
	var w wireResponse
	if err := json.Unmarshal(b, &w); err != nil {
		return Response{}, fmt.Errorf("parse search JSON: %w (output starts %.80q)", err, b)
	}
	r := Response{Meta: w.Meta}
	for _, res := range w.Results {
		p := res.Source.RelPath
		if p == "" {
			p = res.Source.AbsPath
		}
		if p == "" {
			p = res.URI
		}
		if p == "" {
			return Response{}, fmt.Errorf("parse search JSON: result %q has neither source.relPath nor uri", res.DocID)
		}
		r.Hits = append(r.Hits, Hit{DocID: beir.DocIDFromPath(p), Score: res.Score})
	}
	return r, nil
}

// Gno is one isolated gno installation: a binary and its own GNO_HOME.
type Gno struct {
	Bin  string
	Home string
	// Timeout bounds each command.
	Timeout time.Duration
	env     []string
}

// New prepares an empty GNO_HOME under home. When modelsDir is set, it is
// passed as GNO_MODELS_DIR, so an isolated index still finds the models
// pulled once on the machine.
func New(bin, home, modelsDir string) (*Gno, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("prepare GNO_HOME: %w", err)
	}
	env := []string{"GNO_HOME=" + home}
	if modelsDir != "" {
		env = append(env, "GNO_MODELS_DIR="+modelsDir)
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GNO_HOME=") || (modelsDir != "" && strings.HasPrefix(kv, "GNO_MODELS_DIR=")) {
			continue
		}
		env = append(env, kv)
	}
	return &Gno{Bin: bin, Home: home, Timeout: 10 * time.Minute, env: env}, nil
}

// Env is the environment every gno command of this installation runs with.
func (g *Gno) Env() []string { return g.env }

// Run runs one gno command.
func (g *Gno) Run(ctx context.Context, args ...string) (proc.Result, error) {
	return proc.Run(ctx, proc.Cmd{Path: g.Bin, Args: args, Env: g.env, Timeout: g.Timeout})
}

// Query runs q in mode m as a whole process.
func (g *Gno) Query(ctx context.Context, m Mode, q string, n int) (Response, proc.Result, error) {
	res, err := proc.Run(ctx, proc.Cmd{Path: g.Bin, Args: m.CLIArgs(q, n), Env: g.env, Timeout: 2 * time.Minute})
	if err != nil {
		return Response{}, res, err
	}
	r, err := ParseResponse(res.Stdout)
	return r, res, err
}

// DataBytes is the on-disk size of the index data (the data folder, not
// config or models).
func (g *Gno) DataBytes() int64 {
	var n int64
	_ = filepath.Walk(filepath.Join(g.Home, "data"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// Status runs `gno status --json` and returns it decoded loosely, since
// the benchmark only fishes a few counters out of it.
func (g *Gno) Status(ctx context.Context) (map[string]any, error) {
	res, err := g.Run(ctx, "status", "--json")
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal(res.Stdout, &v); err != nil {
		return nil, fmt.Errorf("gno status --json: %w", err)
	}
	return v, nil
}

// FindCount walks a decoded JSON value for the first numeric field whose
// key contains want (case-insensitive), e.g. "chunk" in a status report.
func FindCount(v any, want string) (int64, bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if f, ok := x.(float64); ok && strings.Contains(strings.ToLower(k), want) {
				return int64(f), true
			}
		}
		for _, x := range t {
			if n, ok := FindCount(x, want); ok {
				return n, true
			}
		}
	case []any:
		var sum int64
		found := false
		for _, x := range t {
			if n, ok := FindCount(x, want); ok {
				sum += n
				found = true
			}
		}
		return sum, found
	}
	return 0, false
}

// MCP starts `gno mcp` on this installation.
func (g *Gno) MCP(ctx context.Context) (*mcpclient.Client, error) {
	return mcpclient.Start(ctx, g.Bin, []string{"mcp"}, g.env)
}

// QueryMCP runs q in mode m over a warm MCP connection.
func QueryMCP(ctx context.Context, c *mcpclient.Client, m Mode, q string, n int) (Response, time.Duration, error) {
	name, args := m.MCPCall(q, n)
	res, rtt, err := c.CallTool(ctx, name, args)
	if err != nil {
		return Response{}, rtt, err
	}
	if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return Response{}, rtt, fmt.Errorf("%s: result has no structuredContent", name)
	}
	r, err := ParseResponse(res.StructuredContent)
	return r, rtt, err
}
