package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/gnocli"
	"github.com/gnosearch/gno/bench/report"
)

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// collectionName turns a corpus name into a valid collection name.
func collectionName(name string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.ToLower(name))
}

// index builds gno's index of docs in a fresh GNO_HOME: collection add,
// update (timed: throughput and peak RSS), a second unchanged update
// (the incremental re-sync cost), and embed when a mode needs vectors.
// Failures land in c.Index.NA / EmbedNA.
func (h *harness) index(ctx context.Context, c *report.Corpus, name, docs, home string) (*gnocli.Gno, error) {
	g, err := gnocli.New(h.cfg.Gno, home, h.cfg.ModelsDir)
	if err != nil {
		return nil, err
	}
	ix := &c.Index
	// `gno init` is optional in the contract (collection add creates what
	// is missing); a failure here is not a reason to stop.
	if _, err := g.Run(ctx, "init"); err != nil {
		h.logf("%s: gno init: %v (continuing)", name, err)
	}
	abs, _ := filepath.Abs(docs)
	h.logf("%s: gno collection add", name)
	res, err := g.Run(ctx, "collection", "add", abs, "--name", collectionName(name), "--pattern", "**/*.md")
	if err != nil {
		ix.NA = "collection add: " + err.Error()
		h.logf("%s: %s", name, ix.NA)
		return g, nil
	}
	ix.AddMS = msOf(res.Wall)
	h.logf("%s: gno update", name)
	res, err = g.Run(ctx, "update")
	if err != nil {
		ix.NA = "update: " + err.Error()
		h.logf("%s: %s", name, ix.NA)
		return g, nil
	}
	ix.UpdateMS = msOf(res.Wall)
	ix.UpdateRSS = res.MaxRSS
	// collection add may already index (qmd's does); throughput counts both.
	total := (ix.AddMS + ix.UpdateMS) / 1000
	ix.FilesPerSec = float64(c.Docs) / total
	ix.MBPerSec = float64(c.Bytes) / 1e6 / total
	res, err = g.Run(ctx, "update")
	if err != nil {
		ix.NA = "second update: " + err.Error()
		return g, nil
	}
	ix.ResyncMS = msOf(res.Wall)
	h.logf("%s: indexed %d files in %.0f+%.0f ms (%.0f files/s, peak RSS %d MB), unchanged update %.0f ms",
		name, c.Docs, ix.AddMS, ix.UpdateMS, ix.FilesPerSec, ix.UpdateRSS>>20, ix.ResyncMS)

	if needsModels(h.modesFor(c.Docs)) {
		h.embed(ctx, name, g, ix)
	} else {
		ix.EmbedNA = "not run: no mode needing vectors is measured on this corpus"
	}
	ix.IndexBytes = g.DataBytes()
	if c.Docs > 0 {
		ix.BytesPer1kDoc = float64(ix.IndexBytes) / float64(c.Docs) * 1000
	}
	return g, nil
}

func (h *harness) embed(ctx context.Context, name string, g *gnocli.Gno, ix *report.Indexing) {
	budget := h.cfg.EmbedBudget
	if budget <= 0 {
		budget = 30 * time.Minute
	}
	if !h.deadline.IsZero() {
		budget = max(min(budget, time.Until(h.deadline)), 10*time.Second)
	}
	budget = budget.Round(time.Second)
	h.logf("%s: gno embed (budget %s)", name, budget)
	g.Timeout = budget
	res, err := g.Run(ctx, "embed")
	g.Timeout = 10 * time.Minute
	cut := err != nil && ctx.Err() == nil && res.Wall >= budget
	if err != nil && !cut {
		ix.EmbedNA = err.Error()
		h.logf("%s: embed n/a: %v", name, err)
		return
	}
	ix.EmbedMS = msOf(res.Wall)
	ix.EmbedRSS = res.MaxRSS
	if st, err := g.Status(ctx); err == nil {
		for _, key := range []string{"embeddedcount", "embedded", "vectors"} {
			if n, ok := gnocli.FindCount(st, key); ok && n > 0 {
				ix.Chunks = n
				break
			}
		}
		if n, ok := gnocli.FindCount(st, "totalchunks"); ok {
			ix.TotalChunks = n
		}
	}
	if ix.Chunks > 0 && ix.EmbedMS > 0 {
		ix.ChunksPerSec = float64(ix.Chunks) / (ix.EmbedMS / 1000)
	}
	if cut {
		ix.EmbedCut = fmt.Sprintf("embed stopped by the %s budget with %d of %d chunks embedded; modes ran on the partly embedded index", budget, ix.Chunks, ix.TotalChunks)
		h.logf("%s: %s", name, ix.EmbedCut)
	}
	h.logf("%s: embedded %d chunks in %.1f s (%.1f chunks/s, peak RSS %d MB)", name, ix.Chunks, ix.EmbedMS/1000, ix.ChunksPerSec, ix.EmbedRSS>>20)
}
