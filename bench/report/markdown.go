package report

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

func ms(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v < 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func mb(b int64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", a/b)
}

func row(b *strings.Builder, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func header(b *strings.Builder, cells ...string) {
	row(b, cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	row(b, seps...)
}

// Markdown renders the run as a self-contained section, so runs can be
// appended to one file by several people without editing earlier ones.
func Markdown(r *Run) string {
	var b strings.Builder
	kind := "full"
	if r.Quick {
		kind = "quick"
	}
	fmt.Fprintf(&b, "\n## %s run, %s, commit %s\n\n", kind, r.Date.UTC().Format("2006-01-02 15:04 MST"), r.Commit)
	fmt.Fprintf(&b, "- command: `%s`\n", r.Command)
	fmt.Fprintf(&b, "- machine: %s, %d cores, %.0f GiB RAM, %s, %s\n", r.Machine.CPU, r.Machine.Cores, float64(r.Machine.RAMBytes)/(1<<30), r.Machine.OS, r.Machine.Go)
	fmt.Fprintf(&b, "- load average (1 min) at start %.2f, at end %.2f: wall times above %d are inflated by other work; compare CPU times then\n", r.Machine.LoadStart, r.Machine.LoadEnd, r.Machine.Cores)
	fmt.Fprintf(&b, "- gno: %s; run took %.0f s\n", r.Gno, r.Seconds)
	for _, c := range append(append([]Corpus{}, r.Datasets...), r.Corpora...) {
		if c.Index.EmbedCut != "" {
			fmt.Fprintf(&b, "- %s: %s\n", c.Name, c.Index.EmbedCut)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", n)
	}
	all := append(append([]Corpus{}, r.Datasets...), r.Corpora...)

	b.WriteString("\n### Indexing (whole process)\n\n")
	header(&b, "corpus", "docs", "MB", "add ms", "update ms", "files/s", "MB/s", "peak RSS MB", "unchanged update ms", "embed s", "chunks", "chunks/s", "embed RSS MB", "index MB / 1k docs")
	for _, c := range all {
		ix := c.Index
		if ix.NA != "" {
			row(&b, c.Name, fmt.Sprint(c.Docs), fmt.Sprintf("%.1f", float64(c.Bytes)/1e6), "n/a: "+ix.NA, "", "", "", "", "", "", "", "", "", "")
			continue
		}
		embed, chunks, cps, ersss := "n/a", "–", "–", "–"
		if ix.EmbedNA == "" {
			embed = fmt.Sprintf("%.1f", ix.EmbedMS/1000)
			chunks = fmt.Sprint(ix.Chunks)
			if ix.TotalChunks > ix.Chunks {
				chunks = fmt.Sprintf("%d of %d (cut)", ix.Chunks, ix.TotalChunks)
			}
			cps = fmt.Sprintf("%.0f", ix.ChunksPerSec)
			ersss = mb(ix.EmbedRSS)
		}
		row(&b, c.Name, fmt.Sprint(c.Docs), fmt.Sprintf("%.1f", float64(c.Bytes)/1e6), ms(ix.AddMS), ms(ix.UpdateMS),
			fmt.Sprintf("%.0f", ix.FilesPerSec), fmt.Sprintf("%.1f", ix.MBPerSec), mb(ix.UpdateRSS), ms(ix.ResyncMS),
			embed, chunks, cps, ersss, fmt.Sprintf("%.1f", ix.BytesPer1kDoc/1e6))
	}

	b.WriteString("\n### Latency in ms (CLI: whole process `-n 10 --json`; MCP: tools/call round trip on a warm `gno mcp`, limit 10)\n\n")
	header(&b, "corpus", "mode", "queries", "CLI p50", "CLI p95", "CLI p99", "CLI CPU p50", "CLI first", "CLI RSS MB", "MCP p50", "MCP p95", "MCP p99", "MCP cold start")
	var na []string
	for _, c := range all {
		for _, m := range c.Modes {
			if m.NA != "" {
				na = append(na, fmt.Sprintf("%s / %s: %s", c.Name, m.Mode, m.NA))
				continue
			}
			cells := []string{c.Name, m.Mode, "–", "–", "–", "–", "–", "–", "–", "–", "–", "–", "–"}
			if m.CLI != nil {
				cells[2] = fmt.Sprint(m.CLI.N)
				cells[3], cells[4], cells[5] = ms(m.CLI.P50), ms(m.CLI.P95), ms(m.CLI.P99)
				cells[7], cells[8] = ms(m.CLIColdMS), mb(m.CLIRSS)
			} else if m.CLINA != "" {
				cells[3] = "n/a"
				na = append(na, fmt.Sprintf("%s / %s over the CLI: %s", c.Name, m.Mode, m.CLINA))
			}
			if m.CLICPU != nil {
				cells[6] = ms(m.CLICPU.P50)
			}
			if m.MCP != nil {
				cells[9], cells[10], cells[11], cells[12] = ms(m.MCP.P50), ms(m.MCP.P95), ms(m.MCP.P99), ms(m.MCPColdMS)
			} else if m.MCPNA != "" {
				cells[9] = "n/a"
				na = append(na, fmt.Sprintf("%s / %s over MCP: %s", c.Name, m.Mode, m.MCPNA))
			}
			row(&b, cells...)
		}
	}

	b.WriteString("\n### Quality (top 100 per query; binary gains; empty answers score 0)\n\n")
	header(&b, "corpus", "split", "mode", "queries", "nDCG@10", "R@10", "R@100", "MRR@10", "empty", "via", "meta seen")
	for _, c := range all {
		for _, m := range c.Modes {
			if m.Quality == nil {
				continue
			}
			q := m.Quality
			row(&b, c.Name, c.Split, m.Mode, fmt.Sprint(q.Queries), f3(q.NDCG10), f3(q.Recall10), f3(q.Recall100), f3(q.MRR10), fmt.Sprint(q.Empty), m.QualityVia, observed(m.Observed))
		}
	}

	for _, p := range r.Peers {
		fmt.Fprintf(&b, "\n### gno vs %s %s on %s (BM25, same corpus, same %d queries, same run)\n\n", p.Tool, p.Version, p.Dataset, p.Queries)
		if p.NA != "" {
			fmt.Fprintf(&b, "n/a: %s\n", p.NA)
			continue
		}
		header(&b, "figure", "gno", p.Tool, p.Tool+" / gno")
		row(&b, "index (add + update) ms", ms(p.GnoIndexMS), ms(p.IndexMS), ratio(p.IndexMS, p.GnoIndexMS))
		row(&b, "unchanged update ms", ms(p.GnoResyncMS), ms(p.ResyncMS), ratio(p.ResyncMS, p.GnoResyncMS))
		if p.Search != nil && p.GnoSearch != nil {
			row(&b, "search p50 ms (whole process)", ms(p.GnoSearch.P50), ms(p.Search.P50), ratio(p.Search.P50, p.GnoSearch.P50))
			row(&b, "search p95 ms (whole process)", ms(p.GnoSearch.P95), ms(p.Search.P95), ratio(p.Search.P95, p.GnoSearch.P95))
		}
		row(&b, "index peak RSS MB", "see indexing table", mb(p.IndexRSS), "")
		row(&b, "search peak RSS MB", "see latency table", mb(p.SearchRSS), "")
		if p.Quality != nil && p.GnoQuality != nil {
			row(&b, "nDCG@10", f3(p.GnoQuality.NDCG10), f3(p.Quality.NDCG10), "")
			row(&b, "R@100", f3(p.GnoQuality.Recall100), f3(p.Quality.Recall100), "")
			row(&b, "queries with no result", fmt.Sprint(p.GnoQuality.Empty), fmt.Sprint(p.Quality.Empty), "")
		}
	}
	if len(na) > 0 {
		b.WriteString("\n### Not measured\n\n")
		for _, s := range na {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return b.String()
}

func observed(o *Observed) string {
	if o == nil || o.Responses == 0 {
		return "–"
	}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(o.Modes)) {
		parts = append(parts, fmt.Sprintf("%s×%d", m, o.Modes[m]))
	}
	parts = append(parts, fmt.Sprintf("reranked %d", o.Reranked), fmt.Sprintf("expanded %d", o.Expanded), fmt.Sprintf("vectors %d", o.VectorsUsed))
	return strings.Join(parts, ", ")
}

// AppendMarkdown appends the run's section to path, creating the file with
// a title when it does not exist.
func AppendMarkdown(path string, r *Run) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("append results: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		if _, err := f.WriteString("# gno benchmark results\n\nEach section is one run of `make bench` or `make bench-quick` (see bench/README.md), appended; never edit earlier sections.\n"); err != nil {
			return fmt.Errorf("append results: %w", err)
		}
	}
	if _, err := f.WriteString(Markdown(r)); err != nil {
		return fmt.Errorf("append results: %w", err)
	}
	return f.Close()
}
