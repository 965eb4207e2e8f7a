package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
)

// The benchmarks measure the two figures the MCP issue sets: initialize
// latency of a fresh `gno mcp` process and gno_search round trips, on a
// 10,000-document index. BenchmarkInitializeProcess and
// BenchmarkSearchProcess need GNO_BENCH_BIN (a built gno binary).
//
//	go build -o /tmp/gno ./cmd/gno
//	GNO_BENCH_BIN=/tmp/gno go test -run '^$' -bench . -benchtime 200x ./server/

const benchDocs = 10000

var (
	benchOnce sync.Once
	benchHome string
	benchErr  error
	benchDir  string
)

// benchWord names vocabulary rank i: words of text follow Zipf's law, as
// in real notes, so common words are everywhere and rare ones are rare.
func benchWord(i uint64) string {
	const letters = "etaoinshrdlucmfwypvbgkqjxz"
	var b []byte
	for i++; i > 0; i /= 26 {
		b = append(b, letters[i%26])
	}
	return string(b) + "o"
}

// benchIndex builds (once per run) a 10,000-document index.
func benchIndex(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "gno-mcp-bench-")
		if benchErr != nil {
			return
		}
		notes := filepath.Join(benchDir, "notes")
		rng := rand.New(rand.NewSource(1))
		zipf := rand.NewZipf(rng, 1.1, 1, 50000)
		for i := range benchDocs {
			dir := filepath.Join(notes, fmt.Sprintf("d%02d", i%50))
			os.MkdirAll(dir, 0o755)
			var sb strings.Builder
			fmt.Fprintf(&sb, "# Note %d %s\n\n", i, benchWord(zipf.Uint64()))
			for p := 0; p < 4; p++ {
				for w := 0; w < 60; w++ {
					sb.WriteString(benchWord(zipf.Uint64()))
					sb.WriteByte(' ')
				}
				sb.WriteString("\n\n")
			}
			if benchErr = os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(sb.String()), 0o644); benchErr != nil {
				return
			}
		}
		benchHome = filepath.Join(benchDir, "home")
		os.Setenv("GNO_HOME", benchHome)
		ctx := context.Background()
		var e *retrieval.Engine
		if e, benchErr = retrieval.Open(ctx, retrieval.Options{}); benchErr != nil {
			return
		}
		defer e.Close()
		if benchErr = e.UpdateConfig(ctx, func(c *config.Config) error {
			_, err := c.AddCollection(config.Collection{Name: "notes", Path: notes})
			return err
		}); benchErr != nil {
			return
		}
		_, benchErr = e.Update(ctx, retrieval.UpdateOptions{})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	b.Setenv("GNO_HOME", benchHome)
	return benchHome
}

// benchQuery is two words of middling frequency (ranks 20 to 2000), as
// a person would search for.
func benchQuery(i int) string {
	return benchWord(uint64(20+i*37%1980)) + " " + benchWord(uint64(20+(i*7919+11)%1980))
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	b.ReportMetric(ms(d[len(d)/2]), "p50-ms")
	b.ReportMetric(ms(d[len(d)*95/100]), "p95-ms")
}

// BenchmarkSearchRoundTrip times gno_search through the stdio transport
// in-process (JSON-RPC encode, dispatch, search, result, decode).
func BenchmarkSearchRoundTrip(b *testing.B) {
	benchIndex(b)
	s := New(Options{Open: func(ctx context.Context) (*retrieval.Engine, error) { return retrieval.Open(ctx, retrieval.Options{}) }})
	defer s.Close()
	c := startClient(b, s)
	c.toolOK("gno_search", map[string]any{"query": "warm up"})
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c.toolOK("gno_search", map[string]any{"query": benchQuery(i), "limit": 10})
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, d)
	c.drain()
}

type procClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startProc(b *testing.B, bin string) *procClient {
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "GNO_HOME="+benchHome)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &procClient{cmd: cmd, in: in, out: bufio.NewReader(out)}
}

func (p *procClient) roundTrip(b *testing.B, msg string) map[string]any {
	io.WriteString(p.in, msg+"\n")
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			b.Fatalf("bad line %q", line)
		}
		if m["id"] != nil && m["method"] == nil {
			return m
		}
	}
}

func (p *procClient) close() {
	p.in.Close()
	p.cmd.Wait()
}

const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// BenchmarkInitializeProcess times from starting `gno mcp` to its
// initialize response.
func BenchmarkInitializeProcess(b *testing.B) {
	bin := os.Getenv("GNO_BENCH_BIN")
	if bin == "" {
		b.Skip("set GNO_BENCH_BIN to a gno binary")
	}
	benchIndex(b)
	d := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		p := startProc(b, bin)
		p.roundTrip(b, initMsg)
		d = append(d, time.Since(start))
		p.close()
	}
	reportPercentiles(b, d)
}

// BenchmarkSearchProcess times gno_search round trips against a warm
// `gno mcp` process over real pipes.
func BenchmarkSearchProcess(b *testing.B) {
	bin := os.Getenv("GNO_BENCH_BIN")
	if bin == "" {
		b.Skip("set GNO_BENCH_BIN to a gno binary")
	}
	benchIndex(b)
	p := startProc(b, bin)
	defer p.close()
	p.roundTrip(b, initMsg)
	call := func(i int) {
		m := p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":%q,"limit":10}}}`, i+1, benchQuery(i)))
		if r, _ := m["result"].(map[string]any); r == nil || r["isError"] == true {
			b.Fatalf("search failed: %v", m)
		}
	}
	call(1 << 20) // opens the index
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		call(i)
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, d)
}

// BenchmarkEngineSearch is the engine's share of BenchmarkSearchRoundTrip:
// the same searches without MCP.
func BenchmarkEngineSearch(b *testing.B) {
	benchIndex(b)
	ctx := context.Background()
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.Search(ctx, retrieval.SearchRequest{Query: "warm up"})
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := e.Search(ctx, retrieval.SearchRequest{Query: benchQuery(i), Limit: 10}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, d)
}
