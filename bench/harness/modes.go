package harness

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/gnosearch/gno/bench/gnocli"
	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/mcpclient"
	"github.com/gnosearch/gno/bench/metrics"
	"github.com/gnosearch/gno/bench/report"
)

type query struct{ id, text string }

// latencyLimit is the result count of latency passes: what an agent asks
// for. Quality passes ask for qualityLimit to score Recall@100.
const (
	latencyLimit = 10
	qualityLimit = 100
)

func (h *harness) modes(ctx context.Context, c *report.Corpus, g *gnocli.Gno, queries []query, qrels metrics.Qrels) {
	for _, m := range h.modesFor(c.Docs) {
		mr := report.Mode{Mode: string(m)}
		switch {
		case c.Index.NA != "":
			mr.NA = "index could not be built"
		case h.pastDeadline():
			mr.NA = "skipped: the run's time limit (-max-time) was reached"
		default:
			h.mode(ctx, c.Name, &mr, g, m, queries, qrels)
		}
		c.Modes = append(c.Modes, mr)
	}
}

// mode measures one mode: CLI latency, then MCP cold start, warm latency
// and the quality pass over MCP (falling back to the CLI when the MCP
// server does not work).
func (h *harness) mode(ctx context.Context, name string, mr *report.Mode, g *gnocli.Gno, m gnocli.Mode, queries []query, qrels metrics.Qrels) {
	lat := queries[:min(h.cfg.LatencyQueries, len(queries))]
	h.logf("%s / %s: CLI latency over %d queries", name, m, len(lat))
	h.cliLatency(ctx, mr, g, m, lat)

	qual := queries
	if n := h.cfg.QualityCap[m]; n > 0 && n < len(qual) {
		qual = qual[:n]
	}
	h.logf("%s / %s: MCP latency over %d queries, quality over %d", name, m, len(lat), len(qual))
	run, done, obs, via := h.mcpPasses(ctx, mr, g, m, lat, qual)
	if run == nil && mr.CLINA == "" {
		h.logf("%s / %s: quality over the CLI (%s)", name, m, mr.MCPNA)
		run, done, obs = h.cliQuality(ctx, g, m, qual)
		via = "cli"
	}
	if mr.CLINA != "" && mr.MCPNA != "" {
		mr.NA = mr.CLINA
		return
	}
	if run != nil {
		s := metrics.Evaluate(qrels, run, done)
		mr.Quality = &s
		mr.Observed = obs
		if len(done) < len(qual) {
			via += fmt.Sprintf(", cut by budget after %d of %d queries", len(done), len(qual))
		}
		mr.QualityVia = via
		h.logf("%s / %s: nDCG@10 %.3f R@100 %.3f over %d queries (%d empty)", name, m, s.NDCG10, s.Recall100, s.Queries, s.Empty)
	}
}

// until is when a pass of the given budget must stop: after budget, and
// never past the run's deadline.
func (h *harness) until(budget time.Duration) time.Time {
	t := time.Now().Add(budget)
	if !h.deadline.IsZero() && h.deadline.Before(t) {
		return h.deadline
	}
	return t
}

// pastDeadline reports whether the run's time is spent.
func (h *harness) pastDeadline() bool {
	return !h.deadline.IsZero() && time.Now().After(h.deadline)
}

// qualityBudget bounds one quality pass: longer than a latency pass, since
// the headline figures need every query.
func (h *harness) qualityBudget() time.Duration {
	if h.cfg.QualityBudget > 0 {
		return h.cfg.QualityBudget
	}
	return h.cfg.PassBudget
}

func (h *harness) cliLatency(ctx context.Context, mr *report.Mode, g *gnocli.Gno, m gnocli.Mode, lat []query) {
	deadline := h.until(h.cfg.PassBudget)
	var walls, cpus []time.Duration
	for i, q := range lat {
		if ctx.Err() != nil {
			break
		}
		_, res, err := g.Query(ctx, m, q.text, latencyLimit)
		if err != nil {
			if i == 0 {
				mr.CLINA = err.Error()
				h.logf("  CLI n/a: %v", err)
				return
			}
			mr.CLIErrors++
			continue
		}
		if i == 0 {
			mr.CLIColdMS = msOf(res.Wall)
		}
		walls = append(walls, res.Wall)
		cpus = append(cpus, res.CPU)
		mr.CLIRSS = max(mr.CLIRSS, res.MaxRSS)
		if time.Now().After(deadline) {
			break
		}
	}
	if len(walls) > 0 {
		s := latency.Summarize(walls)
		mr.CLI = &s
		c := latency.Summarize(cpus)
		mr.CLICPU = &c
		h.logf("  CLI p50 %.1f ms p95 %.1f ms, CPU p50 %.1f ms (n=%d, errors %d)", s.P50, s.P95, c.P50, s.N, mr.CLIErrors)
	}
}

// mcpPasses runs the MCP measurements on a fresh server, so its cold start
// (spawn, handshake, first result, lazily loaded models included) is
// measured per mode. It returns the quality run, or nil when MCP is n/a.
func (h *harness) mcpPasses(ctx context.Context, mr *report.Mode, g *gnocli.Gno, m gnocli.Mode, lat, qual []query) (map[string][]string, []string, *report.Observed, string) {
	if len(lat) == 0 {
		mr.MCPNA = "no queries"
		return nil, nil, nil, ""
	}
	start := time.Now()
	c, err := g.MCP(ctx)
	if err != nil {
		mr.MCPNA = err.Error()
		return nil, nil, nil, ""
	}
	defer func() {
		_ = c.Close()
		mr.MCPRSS = c.MaxRSS()
	}()
	if _, _, err := gnocli.QueryMCP(ctx, c, m, lat[0].text, latencyLimit); err != nil {
		mr.MCPNA = err.Error()
		h.logf("  MCP n/a: %v", err)
		return nil, nil, nil, ""
	}
	mr.MCPColdMS = msOf(time.Since(start))

	deadline := h.until(h.cfg.PassBudget)
	var rtts []time.Duration
	for _, q := range lat {
		if ctx.Err() != nil {
			break
		}
		_, rtt, err := gnocli.QueryMCP(ctx, c, m, q.text, latencyLimit)
		if err != nil {
			mr.MCPErrors++
			continue
		}
		rtts = append(rtts, rtt)
		if time.Now().After(deadline) {
			break
		}
	}
	if len(rtts) > 0 {
		s := latency.Summarize(rtts)
		mr.MCP = &s
		h.logf("  MCP cold start %.0f ms, warm p50 %.1f ms p95 %.1f ms", mr.MCPColdMS, s.P50, s.P95)
	}
	// Quality is not timed: one more warm server per extra core answers
	// in parallel.
	clients := []*mcpclient.Client{c}
	for range runtime.NumCPU() - 1 {
		extra, err := g.MCP(ctx)
		if err != nil {
			break
		}
		defer extra.Close()
		clients = append(clients, extra)
	}
	run, done, obs := h.qualityPass(ctx, qual, len(clients), func(w int, q string) (gnocli.Response, error) {
		r, _, err := gnocli.QueryMCP(ctx, clients[w], m, q, qualityLimit)
		return r, err
	})
	return run, done, obs, "mcp"
}

func (h *harness) cliQuality(ctx context.Context, g *gnocli.Gno, m gnocli.Mode, qual []query) (map[string][]string, []string, *report.Observed) {
	// Quality is not timed, so the CLI pass may use every core.
	return h.qualityPass(ctx, qual, runtime.NumCPU(), func(_ int, q string) (gnocli.Response, error) {
		r, _, err := g.Query(ctx, m, q, qualityLimit)
		return r, err
	})
}

// qualityPass runs every query once, on workers goroutines, and collects
// ranked document ids. A failed query counts as an empty answer (it scores
// 0), as a user would see it. It returns the ids of the queries done, in
// query order, so a pass cut by its budget is scored on what it did.
func (h *harness) qualityPass(ctx context.Context, qual []query, workers int, do func(worker int, q string) (gnocli.Response, error)) (map[string][]string, []string, *report.Observed) {
	deadline := h.until(h.qualityBudget())
	type answer struct {
		r   gnocli.Response
		err error
		ok  bool
	}
	answers := make([]answer, len(qual))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := do(w, qual[i].text)
				answers[i] = answer{r: r, err: err, ok: true}
			}
		}()
	}
feed:
	for i := range qual {
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()

	run := make(map[string][]string, len(qual))
	done := make([]string, 0, len(qual))
	obs := &report.Observed{Modes: map[string]int{}}
	var failures int
	for i, a := range answers {
		if !a.ok {
			continue
		}
		id := qual[i].id
		done = append(done, id)
		if a.err != nil {
			failures++
			if failures <= 3 {
				h.logf("  query %s failed: %v", id, a.err)
			}
			continue
		}
		ids := make([]string, len(a.r.Hits))
		for j, hit := range a.r.Hits {
			ids[j] = hit.DocID
		}
		run[id] = ids
		obs.Responses++
		obs.Modes[a.r.Meta.Mode]++
		if a.r.Meta.Reranked {
			obs.Reranked++
		}
		if a.r.Meta.Expanded {
			obs.Expanded++
		}
		if a.r.Meta.VectorsUsed {
			obs.VectorsUsed++
		}
	}
	if failures > 0 {
		h.logf("  %d of %d queries failed (scored 0)", failures, len(done))
	}
	return run, done, obs
}
