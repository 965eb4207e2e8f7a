// Command gnoscale measures how gno's costs grow with the size of the
// index (`make bench-scale`): for each size it generates a corpus with
// real-looking text (bench/corpus with a vocabulary, length spread and
// Chinese sentences taken from ../shared/eval at generation time), then
// times, as whole processes, the first `gno update` (wall, CPU, peak RSS,
// disk), an unchanged `gno update`, one changed file's update, `gno
// search` and `gno query --fast` one-shot and through the daemon, MCP
// `gno_search` warm, `gno status`, `gno ls`, the web graph view's first
// frame (/api/graph/scene) and `gno cleanup`, and records the daemon's
// RSS. It appends a section with a table to bench/RESULTS.md and writes
// bench/results/scale.json and the log-log plot bench/results/scale.png.
//
//	go run ./bench/cmd/gnoscale -sizes 10k,100k,1m -data /tmp/gno-scale
//
// Corpora and indexes live under -data (never in the repo); -reuse keeps
// an index built by an earlier run of the same size and times only what
// follows the first update (whose figures it reads back).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/corpus"
	"github.com/gnosearch/gno/bench/gnocli"
	"github.com/gnosearch/gno/bench/latency"
)

// Size is every figure of one corpus size; durations in milliseconds.
type Size struct {
	Docs      int     `json:"docs"`
	TextBytes int64   `json:"textBytes"`
	LoadStart float64 `json:"loadStart"`
	LoadEnd   float64 `json:"loadEnd"`
	Binary    string  `json:"binary"`

	FirstWallMS  float64 `json:"firstUpdateWallMs"`
	FirstCPUMS   float64 `json:"firstUpdateCpuMs"`
	FirstRSS     int64   `json:"firstUpdateMaxRss"`
	IndexBytes   int64   `json:"indexBytes"`
	UnchangedMS  float64 `json:"unchangedUpdateWallMs"`
	UnchangedCPU float64 `json:"unchangedUpdateCpuMs"`
	OneMS        float64 `json:"oneChangedWallMs"`
	OneCPU       float64 `json:"oneChangedCpuMs"`

	Search       latency.Summary `json:"searchOneShot"`
	SearchCPU    float64         `json:"searchOneShotCpuP50Ms"`
	Fast         latency.Summary `json:"fastOneShot"`
	DSearch      latency.Summary `json:"searchDaemon"`
	DFast        latency.Summary `json:"fastDaemon"`
	MCP          latency.Summary `json:"mcpSearchWarm"`
	DaemonRSS    int64           `json:"daemonRss"`
	DaemonHWM    int64           `json:"daemonPeakRss"`
	GraphRSS     int64           `json:"daemonRssAfterGraph"`
	StatusMS     float64         `json:"statusMs"`
	StatusCPU    float64         `json:"statusCpuMs"`
	LsMS         float64         `json:"lsMs"`
	LsCPU        float64         `json:"lsCpuMs"`
	CleanupCPU   float64         `json:"cleanupCpuMs"`
	GraphMS      float64         `json:"graphSceneMs"`
	GraphBytes   int64           `json:"graphSceneBytes"`
	CleanupMS    float64         `json:"cleanupMs"`
	IndexAfterCl int64           `json:"indexBytesAfterCleanup"`
	NA           []string        `json:"na,omitempty"`
}

func main() {
	sizes := flag.String("sizes", "10k,100k,1m", "corpus sizes, comma-separated (k and m suffixes)")
	data := flag.String("data", filepath.Join(os.TempDir(), "gno-scale"), "folder for corpora and indexes (not the repo)")
	evalDir := flag.String("eval", "../shared/eval", "real corpora the vocabulary is taken from")
	gno := flag.String("gno", "", "gno binary (default: build ./cmd/gno into -data)")
	nq := flag.Int("queries", 40, "timed queries per mode")
	out := flag.String("out", "bench/RESULTS.md", "Markdown file the section is appended to")
	jsonOut := flag.String("json", "bench/results/scale.json", "JSON results (merged by size)")
	png := flag.String("plot", "bench/results/scale.png", "log-log plot")
	reuse := flag.Bool("reuse", false, "keep an index of an earlier run and skip its first update")
	genOnly := flag.Bool("gen-only", false, "generate the corpora and stop")
	reportOnly := flag.Bool("report-only", false, "write the table and plot of -json's figures without running anything")
	printQueries := flag.Bool("print-queries", false, "print each size's timed queries, one a line, and stop")
	flag.Parse()
	ctx := context.Background()
	log.SetFlags(log.Ltime)

	voc, err := corpus.LoadVocab(*evalDir)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("vocabulary: %d words, mean %.0f bytes, σ %.2f, %d CJK sentences", len(voc.Words), voc.MeanBytes, voc.Sigma, len(voc.CJK))
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			log.Fatal(err)
		}
		ns = append(ns, n)
	}
	if *printQueries {
		for _, n := range ns {
			for _, q := range corpus.Queries(options(n, voc), *nq) {
				fmt.Println(q.Text)
			}
		}
		return
	}
	if *genOnly {
		for _, n := range ns {
			if _, err := ensureCorpus(ctx, *data, n, voc); err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	bin := *gno
	if *reportOnly {
		ns = nil
	} else if bin == "" {
		if err := os.MkdirAll(*data, 0o755); err != nil {
			log.Fatal(err)
		}
		bin = filepath.Join(*data, "gno")
		log.Printf("build %s", bin)
		if b, err := exec.Command("go", "build", "-o", bin, "./cmd/gno").CombinedOutput(); err != nil {
			log.Fatalf("build gno: %v\n%s", err, b)
		}
	}
	results := readResults(*jsonOut)
	for _, n := range ns {
		s, err := runSize(ctx, bin, *data, n, voc, *nq, *reuse, results[n])
		if err != nil {
			log.Fatal(err)
		}
		results[n] = s
		if err := writeResults(*jsonOut, results); err != nil {
			log.Fatal(err)
		}
	}
	var all []*Size
	for _, n := range sortedKeys(results) {
		all = append(all, results[n])
	}
	if err := plotScale(*png, all); err != nil {
		log.Printf("plot: %v", err)
	}
	sec := section(all, *png, *out)
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(sec); err != nil {
		log.Fatal(err)
	}
	fmt.Print(sec)
}

func parseSize(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mul := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mul, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mul, s = 1000000, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a count like 10k or 1m", s)
	}
	return n * mul, nil
}

func options(n int, voc *corpus.Vocab) corpus.Options {
	return corpus.Options{Docs: n, Seed: 1, Vocab: voc}
}

// ensureCorpus writes the corpus of n documents unless a finished one is
// there (its stats file is written last).
func ensureCorpus(ctx context.Context, data string, n int, voc *corpus.Vocab) (corpus.Stats, error) {
	dir := filepath.Join(data, fmt.Sprintf("corpus-%d", n))
	done := dir + ".json"
	var st corpus.Stats
	if b, err := os.ReadFile(done); err == nil && json.Unmarshal(b, &st) == nil {
		return st, nil
	}
	os.RemoveAll(dir)
	log.Printf("generate %d documents into %s", n, dir)
	st, err := corpus.Generate(ctx, dir, options(n, voc))
	if err != nil {
		return st, err
	}
	b, _ := json.Marshal(st)
	return st, os.WriteFile(done, b, 0o644)
}

func runSize(ctx context.Context, bin, data string, n int, voc *corpus.Vocab, nq int, reuse bool, prev *Size) (*Size, error) {
	st, err := ensureCorpus(ctx, data, n, voc)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(data, fmt.Sprintf("corpus-%d", n))
	home := filepath.Join(data, fmt.Sprintf("home-%d", n))
	s := &Size{Docs: n, TextBytes: st.Bytes, LoadStart: loadAverage(), Binary: bin}
	keep := reuse && prev != nil && prev.FirstWallMS > 0 && exists(filepath.Join(home, "data"))
	if !keep {
		os.RemoveAll(home)
	}
	g, err := gnocli.New(bin, home, "")
	if err != nil {
		return nil, err
	}
	g.Timeout = 3 * time.Hour
	na := func(what string, err error) {
		s.NA = append(s.NA, what+": "+err.Error())
		log.Printf("%s: %v", what, err)
	}
	if keep {
		s.FirstWallMS, s.FirstCPUMS, s.FirstRSS = prev.FirstWallMS, prev.FirstCPUMS, prev.FirstRSS
		log.Printf("%d: reuse the index in %s", n, home)
	} else {
		if _, err := g.Run(ctx, "collection", "add", dir, "--name", "scale", "--pattern", "**/*.md"); err != nil {
			return nil, err
		}
		log.Printf("%d: first update", n)
		r, err := g.Run(ctx, "update")
		if err != nil {
			return nil, err
		}
		s.FirstWallMS, s.FirstCPUMS, s.FirstRSS = ms(r.Wall), ms(r.CPU), r.MaxRSS
	}
	s.IndexBytes = g.DataBytes()
	log.Printf("%d: unchanged update", n)
	if r, err := g.Run(ctx, "update"); err != nil {
		na("unchanged update", err)
	} else {
		s.UnchangedMS, s.UnchangedCPU = ms(r.Wall), ms(r.CPU)
	}
	// One file changes: a line appended, as an editor would save it.
	p := filepath.Join(dir, filepath.FromSlash(corpus.RelPath(n/2)))
	if err := appendLine(p, fmt.Sprintf("\nEdited at %s.\n", time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		na("one changed file", err)
	} else if r, err := g.Run(ctx, "update"); err != nil {
		na("one changed file", err)
	} else {
		s.OneMS, s.OneCPU = ms(r.Wall), ms(r.CPU)
	}
	qs := corpus.Queries(options(n, voc), nq)
	oneShot := func(args ...string) (latency.Summary, float64, error) {
		var walls, cpus []time.Duration
		for _, q := range qs {
			r, err := g.Run(ctx, append([]string{args[0], q.Text}, args[1:]...)...)
			if err != nil {
				return latency.Summary{}, 0, err
			}
			walls, cpus = append(walls, r.Wall), append(cpus, r.CPU)
		}
		return latency.Summarize(walls), latency.Summarize(cpus).P50, nil
	}
	log.Printf("%d: one-shot queries", n)
	if s.Search, s.SearchCPU, err = oneShot("search", "-n", "10", "--json", "--no-daemon"); err != nil {
		na("search one-shot", err)
	}
	if s.Fast, _, err = oneShot("query", "--fast", "-n", "10", "--json", "--no-daemon"); err != nil {
		na("query --fast one-shot", err)
	}
	if r, err := g.Run(ctx, "status", "--json"); err != nil {
		na("status", err)
	} else {
		s.StatusMS, s.StatusCPU = ms(r.Wall), ms(r.CPU)
	}
	if r, err := g.Run(ctx, "ls"); err != nil {
		na("ls", err)
	} else {
		s.LsMS, s.LsCPU = ms(r.Wall), ms(r.CPU)
	}
	log.Printf("%d: daemon", n)
	if _, err := g.Run(ctx, "daemon", "--detach"); err != nil {
		na("daemon", err)
	} else {
		// The first query warms the daemon's caches; it is not counted.
		_, _ = g.Run(ctx, "search", qs[0].Text, "-n", "10", "--json")
		if s.DSearch, _, err = oneShot("search", "-n", "10", "--json"); err != nil {
			na("search through the daemon", err)
		}
		if s.DFast, _, err = oneShot("query", "--fast", "-n", "10", "--json"); err != nil {
			na("query --fast through the daemon", err)
		}
		s.DaemonRSS, _ = daemonRSS(home)
		if err := graphScene(ctx, home, s); err != nil {
			na("graph scene", err)
		}
		s.GraphRSS, s.DaemonHWM = daemonRSS(home)
		if _, err := g.Run(ctx, "daemon", "stop"); err != nil {
			na("daemon stop", err)
		}
	}
	log.Printf("%d: MCP", n)
	if c, err := g.MCP(ctx); err != nil {
		na("MCP", err)
	} else {
		var rtts []time.Duration
		for i, q := range append(qs[:1:1], qs...) {
			_, rtt, err := gnocli.QueryMCP(ctx, c, gnocli.Search, q.Text, 10)
			if err != nil {
				na("MCP gno_search", err)
				break
			}
			if i > 0 { // the first call warms the server
				rtts = append(rtts, rtt)
			}
		}
		s.MCP = latency.Summarize(rtts)
		c.Close()
	}
	log.Printf("%d: cleanup", n)
	if r, err := g.Run(ctx, "cleanup"); err != nil {
		na("cleanup", err)
	} else {
		s.CleanupMS, s.CleanupCPU = ms(r.Wall), ms(r.CPU)
		s.IndexAfterCl = g.DataBytes()
	}
	s.LoadEnd = loadAverage()
	return s, nil
}

func appendLine(p, line string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// daemonInfo reads the running daemon's pid and HTTP address.
func daemonInfo(home string) (pid int, addr string, err error) {
	paths, _ := filepath.Glob(filepath.Join(home, "data", "*", "daemon.json"))
	if len(paths) == 0 {
		return 0, "", errors.New("no daemon.json")
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		return 0, "", err
	}
	var in struct {
		PID    int    `json:"pid"`
		HTTP   string `json:"http"`
		Scheme string `json:"scheme"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return 0, "", err
	}
	if in.Scheme == "" {
		in.Scheme = "http"
	}
	if in.HTTP != "" && !strings.Contains(in.HTTP, "://") {
		in.HTTP = in.Scheme + "://" + in.HTTP
	}
	return in.PID, in.HTTP, nil
}

// daemonRSS reads the daemon's resident and peak resident memory.
func daemonRSS(home string) (rss, hwm int64) {
	pid, _, err := daemonInfo(home)
	if err != nil {
		return 0, 0
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) >= 2 && (fl[0] == "VmRSS:" || fl[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(fl[1], 10, 64)
			if fl[0] == "VmRSS:" {
				rss = kb * 1024
			} else {
				hwm = kb * 1024
			}
		}
	}
	return rss, hwm
}

// graphScene times the web graph view's first frame from the daemon.
func graphScene(ctx context.Context, home string, s *Size) error {
	_, addr, err := daemonInfo(home)
	if err != nil || addr == "" {
		return fmt.Errorf("no HTTP address in daemon.json (%v)", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", addr+"/api/graph/scene", nil)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	nb, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /api/graph/scene: %s", resp.Status)
	}
	s.GraphMS, s.GraphBytes = ms(time.Since(start)), nb
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
