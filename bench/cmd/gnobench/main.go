// Command gnobench is gno's benchmark harness: latency per mode (CLI and
// MCP), indexing throughput and memory, retrieval quality on the BEIR
// datasets, and a side-by-side with qmd. It appends a Markdown section to
// bench/RESULTS.md and writes JSON and a PNG plot. See bench/README.md.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gnosearch/gno/bench/gnocli"
	"github.com/gnosearch/gno/bench/harness"
	"github.com/gnosearch/gno/bench/report"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gnobench:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		quick     = flag.Bool("quick", false, "the quick profile: SciFact and 200/1k-document synthetic corpora, capped query sets (under 5 minutes on 2 cores)")
		gnoBin    = flag.String("gno", "", "gno binary to measure (default: build ./cmd/gno into the work folder)")
		evalDir   = flag.String("eval", "../shared/eval", "folder with the BEIR datasets")
		datasets  = flag.String("datasets", "", "comma-separated datasets (default: quick scifact; full scifact,cranfield,cmrc2018-zh)")
		sizes     = flag.String("sizes", "", "comma-separated synthetic corpus sizes (default: quick 1000; full 1000,10000,50000)")
		modes     = flag.String("modes", "search,vsearch,fast,default,thorough", "comma-separated modes")
		latN      = flag.Int("latency-queries", 0, "queries timed per mode (default: quick 30, full 200)")
		budget    = flag.Duration("pass-budget", 0, "cut any single latency pass after this long (default: quick 30s, full 10m)")
		qbudget   = flag.Duration("quality-budget", 0, "cut any single quality pass after this long (default: quick 90s, full 10m)")
		maxTime   = flag.Duration("max-time", -1, "cut passes and skip modes so the run ends near this (0 = no limit; default: quick 4m15s, full none)")
		embedB    = flag.Duration("embed-budget", 0, "stop `gno embed` after this long (default: quick 90s, full 30m)")
		modelMax  = flag.Int("model-modes-max-docs", -1, "run modes needing vectors only on corpora up to this size, 0 = all (default: quick 200, full 10000)")
		withQmd   = flag.Bool("qmd", true, "run the side-by-side with qmd")
		qmdDir    = flag.String("qmd-dir", "", "where qmd is installed (default: the user cache, reused across runs)")
		qmdN      = flag.Int("qmd-queries", 0, "queries run through both tools (default: quick 100, full all)")
		models    = flag.String("models", "", "model cache to link into each GNO_HOME (default: $GNO_MODELS_DIR, else $GNO_HOME/models, else $XDG_CACHE_HOME/gno/models, else ~/.cache/gno/models, where present); passed to gno as GNO_MODELS_DIR")
		seed      = flag.Uint64("seed", 20240601, "synthetic corpus seed")
		results   = flag.String("results", "bench/RESULTS.md", "Markdown file the run is appended to (empty: none)")
		outDir    = flag.String("out", "bench/results", "folder for the JSON file and the plot")
		work      = flag.String("work", "", "scratch folder (default: a new temp folder, removed afterwards)")
		keep      = flag.Bool("keep", false, "keep the scratch folder")
		printOnly = flag.Bool("print", false, "print the Markdown section instead of appending it")
	)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	started := time.Now()

	cfg := harness.Config{
		EvalDir:    *evalDir,
		Seed:       *seed,
		Qmd:        *withQmd,
		QmdDataset: "scifact",
		Log:        os.Stderr,
	}
	if *quick {
		// SciFact for BM25 quality and the qmd comparison; the model modes
		// only on a 200-document synthetic corpus, because embedding
		// SciFact alone takes several minutes on 2 cores.
		cfg.Datasets = []string{"scifact"}
		cfg.Sizes = []int{200, 1000}
		cfg.ModelModesMaxDocs = 200
		cfg.EmbedBudget = 90 * time.Second
		cfg.LatencyQueries = 30
		cfg.PassBudget = 30 * time.Second
		cfg.QualityBudget = 90 * time.Second
		cfg.MaxTime = 4*time.Minute + 15*time.Second
		cfg.QmdQueries = 100
		cfg.QualityCap = map[gnocli.Mode]int{gnocli.VSearch: 100, gnocli.Fast: 100, gnocli.Default: 50, gnocli.Thorough: 20}
	} else {
		cfg.Datasets = []string{"scifact", "cranfield", "cmrc2018-zh"}
		cfg.Sizes = []int{1000, 10000, 50000}
		cfg.ModelModesMaxDocs = 10000
		cfg.EmbedBudget = 30 * time.Minute
		cfg.LatencyQueries = 200
		cfg.PassBudget = 10 * time.Minute
		cfg.QualityCap = map[gnocli.Mode]int{gnocli.Default: 1000, gnocli.Thorough: 200}
	}
	if *datasets != "" {
		cfg.Datasets = splitList(*datasets)
	}
	if *datasets == "none" {
		cfg.Datasets = nil
	}
	if *sizes != "" {
		cfg.Sizes = nil
		for _, s := range splitList(*sizes) {
			if s == "none" {
				continue
			}
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return fmt.Errorf("-sizes: %q is not a positive document count", s)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	for _, m := range splitList(*modes) {
		mode := gnocli.Mode(m)
		if !validMode(mode) {
			return fmt.Errorf("-modes: unknown mode %q (want search, vsearch, fast, default, thorough)", m)
		}
		cfg.Modes = append(cfg.Modes, mode)
	}
	if *latN > 0 {
		cfg.LatencyQueries = *latN
	}
	if *budget > 0 {
		cfg.PassBudget = *budget
	}
	if *maxTime >= 0 {
		cfg.MaxTime = *maxTime
	}
	if *qbudget > 0 {
		cfg.QualityBudget = *qbudget
	}
	if *embedB > 0 {
		cfg.EmbedBudget = *embedB
	}
	if *modelMax >= 0 {
		cfg.ModelModesMaxDocs = *modelMax
	}
	if *qmdN > 0 {
		cfg.QmdQueries = *qmdN
	}

	var err error
	if cfg.Work = *work; cfg.Work == "" {
		if cfg.Work, err = os.MkdirTemp("", "gnobench-"); err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(cfg.Work)
		}
	} else if err := os.MkdirAll(cfg.Work, 0o755); err != nil {
		return err
	}
	if cfg.QmdDir = *qmdDir; cfg.QmdDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = cfg.Work
		}
		cfg.QmdDir = filepath.Join(cache, "gno-bench", "qmd-"+"2.8.3")
	}
	cfg.ModelsDir = *models
	if cfg.ModelsDir == "" {
		cfg.ModelsDir = defaultModels()
	}

	if cfg.Gno = *gnoBin; cfg.Gno == "" {
		cfg.Gno = filepath.Join(cfg.Work, "gno")
		fmt.Fprintln(os.Stderr, "building ./cmd/gno")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Dir(cfg.Gno)+"/", "./cmd/gno")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build gno: %w", err)
		}
	}
	if cfg.Gno, err = filepath.Abs(cfg.Gno); err != nil {
		return err
	}

	r := &report.Run{
		Date:    started,
		Commit:  commit(ctx),
		Command: "gnobench " + strings.Join(os.Args[1:], " "),
		Quick:   *quick,
		Machine: machine(),
	}
	r.Machine.LoadStart = loadAverage()
	if cfg.ModelsDir == "" {
		r.Notes = append(r.Notes, "no model cache found: modes needing models run without them (or are n/a)")
	}
	if err := harness.Run(ctx, cfg, r); err != nil {
		if ctx.Err() == nil {
			return err
		}
		// Interrupted: keep what was measured, marked as such.
		r.Notes = append(r.Notes, "run interrupted: "+err.Error()+"; figures below are partial")
		fmt.Fprintln(os.Stderr, "interrupted; writing partial results")
	}
	r.Seconds = time.Since(started).Seconds()
	r.Machine.LoadEnd = loadAverage()

	if *printOnly {
		fmt.Print(report.Markdown(r))
		return nil
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	kind := "full"
	if *quick {
		kind = "quick"
	}
	jsonPath := filepath.Join(*outDir, kind+".json")
	if err := report.WriteJSON(jsonPath, r); err != nil {
		return err
	}
	pngPath := filepath.Join(*outDir, "latency-"+kind+".png")
	plotted, err := report.Plot(pngPath, r)
	if err != nil {
		return err
	}
	wrote := jsonPath
	if plotted {
		wrote += ", " + pngPath
	}
	if *results != "" {
		if err := report.AppendMarkdown(*results, r); err != nil {
			return err
		}
	}
	fmt.Print(report.Markdown(r))
	if *results != "" {
		wrote += ", appended to " + *results
	}
	fmt.Fprintf(os.Stderr, "\nwrote %s (%.0f s)\n", wrote, r.Seconds)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func validMode(m gnocli.Mode) bool {
	for _, x := range gnocli.AllModes {
		if x == m {
			return true
		}
	}
	return false
}

// defaultModels finds the user's gno model cache, so isolated GNO_HOMEs can
// use models pulled once.
func defaultModels() string {
	if d := os.Getenv("GNO_MODELS_DIR"); d != "" {
		return d
	}
	var cands []string
	if h := os.Getenv("GNO_HOME"); h != "" {
		cands = append(cands, filepath.Join(h, "models"), filepath.Join(h, "cache", "models"))
	}
	if c := os.Getenv("XDG_CACHE_HOME"); c != "" {
		cands = append(cands, filepath.Join(c, "gno", "models"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, ".cache", "gno", "models"))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
	}
	return ""
}

func commit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	c := strings.TrimSpace(string(out))
	if err != nil || c == "" {
		c = "none"
	}
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

func machine() report.Machine {
	m := report.Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "MemTotal:" {
				kb, _ := strconv.ParseUint(fields[1], 10, 64)
				m.RAMBytes = kb * 1024
				break
			}
		}
		f.Close()
	}
	if m.CPU == "" {
		m.CPU = "unknown CPU"
	}
	return m
}

// loadAverage is the 1-minute load average (0 where /proc is missing).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
