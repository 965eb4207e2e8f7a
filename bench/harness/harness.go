// Package harness runs the whole benchmark: it prepares each corpus,
// indexes it with gno in an isolated GNO_HOME, measures every retrieval
// mode over the CLI and MCP, scores quality where judgements exist, and
// runs qmd on the same data for the side-by-side figures. Anything the gno
// build cannot do yet is reported as "n/a" with the reason, so the harness
// is useful at every stage of the project.
//
// It must not be imported by gno itself (bench is a tool).
package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/bench/corpus"
	"github.com/gnosearch/gno/bench/gnocli"
	"github.com/gnosearch/gno/bench/metrics"
	"github.com/gnosearch/gno/bench/report"
)

// Config chooses what a run measures.
type Config struct {
	// Gno is the gno binary under test.
	Gno string
	// EvalDir holds the BEIR datasets (../shared/eval from the repo root).
	EvalDir  string
	Datasets []string
	// Sizes are the synthetic corpus sizes, in documents.
	Sizes []int
	Seed  uint64
	Modes []gnocli.Mode
	// LatencyQueries is the size of the fixed query set timed per mode.
	LatencyQueries int
	// QualityCap caps the judged queries scored per mode (0 = all), since
	// a reranking mode over thousands of queries takes hours on 2 cores.
	QualityCap map[gnocli.Mode]int
	// PassBudget cuts one pass (one mode, one transport) after this long;
	// the queries done so far are still reported.
	PassBudget time.Duration
	// MaxTime is the time the whole run may take (0 = no limit): passes
	// are cut, and modes skipped, so the run ends near it. The qmd
	// comparison runs right after the datasets, before the synthetic
	// corpora, so a tight limit costs synthetic figures first.
	MaxTime time.Duration
	// QualityBudget cuts one quality pass (0 = PassBudget).
	QualityBudget time.Duration
	// Qmd enables the side-by-side with qmd on QmdDataset.
	Qmd        bool
	QmdDir     string
	QmdDataset string
	// QmdQueries caps the queries run through both tools (0 = all judged).
	QmdQueries int
	// ModelModesMaxDocs runs the modes that need vectors only on corpora of
	// at most this many documents (0 = all): embedding is by far the
	// slowest step, and the quick profile cannot afford it on 5k documents.
	ModelModesMaxDocs int
	// EmbedBudget stops `gno embed` after this long (0 = 30 minutes); it
	// is resumable, so the modes then run on a partly embedded index, and
	// the report says how much was embedded.
	EmbedBudget time.Duration
	// ModelsDir is passed to gno as GNO_MODELS_DIR.
	ModelsDir string
	// Work is the scratch folder for corpora and indexes.
	Work string
	Log  io.Writer
}

// Run measures everything cfg asks for. Failures of single measurements
// end up in the report; only a broken setup returns an error.
func Run(ctx context.Context, cfg Config, r *report.Run) error {
	h := &harness{cfg: cfg, run: r}
	if cfg.MaxTime > 0 {
		h.deadline = time.Now().Add(cfg.MaxTime)
	}
	if cfg.Log == nil {
		h.cfg.Log = io.Discard
	}
	if _, err := os.Stat(cfg.Gno); err != nil {
		return fmt.Errorf("gno binary: %w", err)
	}
	if res, err := h.gnoVersion(ctx); err == nil {
		r.Gno = res
	} else {
		r.Gno = "unknown (" + err.Error() + ")"
	}
	for _, name := range cfg.Datasets {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := h.dataset(ctx, name)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("dataset %s skipped: %v", name, err))
			h.logf("dataset %s skipped: %v", name, err)
			continue
		}
		r.Datasets = append(r.Datasets, *c)
	}
	if cfg.Qmd {
		r.Peers = append(r.Peers, h.qmd(ctx))
	}
	for _, n := range cfg.Sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if h.pastDeadline() {
			r.Notes = append(r.Notes, fmt.Sprintf("synthetic corpus of %d docs skipped: the run's time limit was reached", n))
			continue
		}
		c, err := h.synthetic(ctx, n)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("synthetic corpus of %d docs skipped: %v", n, err))
			continue
		}
		r.Corpora = append(r.Corpora, *c)
	}
	return nil
}

type harness struct {
	cfg Config
	run *report.Run
	// deadline is when the run must be done (zero: none).
	deadline time.Time
	// kept for the peer comparison: the dataset's index figures and files.
	indexed map[string]indexedCorpus
}

type indexedCorpus struct {
	ds    *beir.Dataset
	docs  string
	gno   *gnocli.Gno
	index report.Indexing
}

func (h *harness) logf(format string, args ...any) {
	fmt.Fprintf(h.cfg.Log, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (h *harness) gnoVersion(ctx context.Context) (string, error) {
	g, err := gnocli.New(h.cfg.Gno, filepath.Join(h.cfg.Work, "version-home"), "")
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if res, err := g.Run(ctx, args...); err == nil {
			return strings.TrimSpace(string(res.Stdout)), nil
		}
	}
	return "", fmt.Errorf("neither `gno --version` nor `gno version` works")
}

// dataset converts, indexes and measures one BEIR dataset.
func (h *harness) dataset(ctx context.Context, name string) (*report.Corpus, error) {
	ds, err := beir.Load(ctx, filepath.Join(h.cfg.EvalDir, name))
	if err != nil {
		return nil, err
	}
	root := filepath.Join(h.cfg.Work, name)
	docs := filepath.Join(root, "docs")
	h.logf("%s: writing %d documents as Markdown to %s", name, len(ds.Docs), docs)
	st, err := ds.WriteMarkdown(ctx, docs)
	if err != nil {
		return nil, err
	}
	c := &report.Corpus{Name: name, Split: ds.Split, Docs: st.Files, Bytes: st.Bytes, Queries: len(ds.Queries)}
	queries := make([]query, len(ds.Queries))
	for i, q := range ds.Queries {
		queries[i] = query{id: q.ID, text: q.Text}
	}
	g, err := h.index(ctx, c, name, docs, filepath.Join(root, "home"))
	if err != nil {
		return nil, err
	}
	if h.indexed == nil {
		h.indexed = map[string]indexedCorpus{}
	}
	h.indexed[name] = indexedCorpus{ds: ds, docs: docs, gno: g, index: c.Index}
	h.modes(ctx, c, g, queries, ds.Qrels)
	return c, nil
}

// synthetic generates, indexes and measures one synthetic corpus; its
// quality figures are known-item scores (one relevant document a query).
func (h *harness) synthetic(ctx context.Context, n int) (*report.Corpus, error) {
	o := corpus.Options{Docs: n, Seed: h.cfg.Seed}
	name := fmt.Sprintf("synthetic-%s", humanCount(n))
	root := filepath.Join(h.cfg.Work, name)
	docs := filepath.Join(root, "docs")
	h.logf("%s: generating %d documents in %s", name, n, docs)
	st, err := corpus.Generate(ctx, docs, o)
	if err != nil {
		return nil, err
	}
	items := corpus.Queries(o, max(h.cfg.LatencyQueries, 100))
	qrels := metrics.Qrels{}
	queries := make([]query, len(items))
	for i, it := range items {
		queries[i] = query{id: it.ID, text: it.Text}
		qrels[it.ID] = map[string]int{it.DocID: 1}
	}
	c := &report.Corpus{Name: name, Split: "known-item", Docs: st.Files, Bytes: st.Bytes, Queries: len(queries)}
	g, err := h.index(ctx, c, name, docs, filepath.Join(root, "home"))
	if err != nil {
		return nil, err
	}
	h.modes(ctx, c, g, queries, qrels)
	// The synthetic corpora are large; drop them as soon as they are measured.
	if err := os.RemoveAll(root); err != nil {
		h.logf("%s: clean up: %v", name, err)
	}
	return c, nil
}

func humanCount(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// modesFor lists the modes measured on a corpus of docs documents.
func (h *harness) modesFor(docs int) []gnocli.Mode {
	if h.cfg.ModelModesMaxDocs <= 0 || docs <= h.cfg.ModelModesMaxDocs {
		return h.cfg.Modes
	}
	var out []gnocli.Mode
	for _, m := range h.cfg.Modes {
		if !m.NeedsModels() {
			out = append(out, m)
		}
	}
	return out
}

func needsModels(modes []gnocli.Mode) bool {
	for _, m := range modes {
		if m.NeedsModels() {
			return true
		}
	}
	return false
}
