package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The results file (merged by size across runs) and the Markdown section.

func readResults(path string) map[int]*Size {
	out := map[int]*Size{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var list []*Size
	if json.Unmarshal(b, &list) == nil {
		for _, s := range list {
			out[s.Docs] = s
		}
	}
	return out
}

func writeResults(path string, m map[int]*Size) error {
	var list []*Size
	for _, n := range sortedKeys(m) {
		list = append(list, m[n])
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func sortedKeys(m map[int]*Size) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// section is the Markdown appended to RESULTS.md.
func section(all []*Size, png, out string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Scale curve (`make bench-scale`), %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "Machine: %s, %d cores, %s. Command: `%s`. BM25 only (no vectors). ", cpuName(), runtime.NumCPU(), runtime.Version(), strings.Join(os.Args, " "))
	b.WriteString("Whole-process wall times in ms unless marked; CPU = user+system of the process, the figure to compare on a busy machine; load = 1-minute load average at the start and end of each size (the machine is shared).\n\n")
	b.WriteString("| docs | text MB | load | first update wall s / CPU s / peak RSS MB | index MB (× text) | unchanged update wall / CPU | one changed file wall / CPU | search one-shot p50 / p95 (CPU p50) | query --fast one-shot p50 / p95 | search daemon p50 / p95 | query --fast daemon p50 / p95 | MCP gno_search warm p50 / p95 | daemon RSS MB after searches / after graph (peak) | status wall / CPU | ls wall / CPU | graph scene (KB) | cleanup wall s / CPU s |\n")
	b.WriteString("|" + strings.Repeat(" --- |", 18) + "\n")
	for _, s := range all {
		fmt.Fprintf(&b, "| %d | %.0f | %.1f–%.1f | %.1f / %.1f / %.0f | %.0f (%.2f×) | %.0f / %.0f | %.0f / %.0f | %.1f / %.1f (%.0f) | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.0f / %.0f (%.0f) | %.0f / %.0f | %.0f / %.0f | %.0f (%.0f) | %.1f / %.1f |\n",
			s.Docs, float64(s.TextBytes)/1e6, s.LoadStart, s.LoadEnd,
			s.FirstWallMS/1000, s.FirstCPUMS/1000, float64(s.FirstRSS)/1e6,
			float64(s.IndexBytes)/1e6, float64(s.IndexBytes)/float64(max(s.TextBytes, 1)),
			s.UnchangedMS, s.UnchangedCPU, s.OneMS, s.OneCPU,
			s.Search.P50, s.Search.P95, s.SearchCPU, s.Fast.P50, s.Fast.P95,
			s.DSearch.P50, s.DSearch.P95, s.DFast.P50, s.DFast.P95, s.MCP.P50, s.MCP.P95,
			float64(s.DaemonRSS)/1e6, float64(s.GraphRSS)/1e6, float64(s.DaemonHWM)/1e6, s.StatusMS, s.StatusCPU, s.LsMS, s.LsCPU,
			s.GraphMS, float64(s.GraphBytes)/1e3, s.CleanupMS/1000, s.CleanupCPU/1000)
	}
	for _, s := range all {
		for _, na := range s.NA {
			fmt.Fprintf(&b, "\n- %d docs, n/a: %s", s.Docs, na)
		}
	}
	if rel, err := filepath.Rel(filepath.Dir(out), png); err == nil {
		fmt.Fprintf(&b, "\n\n![cost against size, log-log](%s)\n", filepath.ToSlash(rel))
	}
	return b.String()
}
