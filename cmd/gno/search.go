package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/display"
	"github.com/spf13/cobra"
)

type searchFlags struct {
	limit       int
	minScore    float64
	collection  string
	lang        string
	tagsAny     []string
	tagsAll     []string
	full        bool
	lineNumbers bool
	explain     bool
	format      string
	fast        bool
	thorough    bool
	noRerank    bool
	expand      bool
	candidates  int
}

const queryHelp = `Hybrid search: BM25 and vector candidates fused by reciprocal rank,
then reranked by a cross-encoder.

Modes:
  --fast       fusion only (no expansion, no rerank)
  (default)    fusion + rerank
  --thorough   query expansion + fusion + rerank

Query documents: instead of plain text, give typed lines to state the
variants yourself:
  lex: keyword variant searched with BM25 (repeatable)
  vec: variant searched with vectors (repeatable)
  hyde: a hypothetical answer passage, searched with vectors
  intent: what you are looking for, passed to the reranker
Example:
  gno query $'lex: sqlite wal checkpoint\nvec: how does SQLite write-ahead logging work\nintent: internals'

Missing parts degrade and say so in meta: no vectors gives mode bm25_only,
no reranker reranked=false, no expansion model expanded=false.`

func newSearchCmd(a *app, mode string) *cobra.Command {
	var f searchFlags
	short := map[string]string{
		"search":  "Keyword search (BM25)",
		"vsearch": "Vector (semantic) search",
		"query":   "Hybrid search: BM25 + vectors, fused and reranked",
	}[mode]
	cmd := &cobra.Command{
		Use:   mode + " QUERY",
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSearch(cmd.Context(), mode, strings.Join(args, " "), f)
		},
	}
	if mode == "query" {
		cmd.Long = queryHelp
	}
	cmd.Example = "  gno " + mode + " sqlite wal checkpoint -n 5\n" +
		"  gno " + mode + " -draft budget      # a word starting with - excludes it; -- ends the flags"
	fl := cmd.Flags()
	fl.IntVarP(&f.limit, "limit", "n", 10, "number of results")
	fl.Float64Var(&f.minScore, "min-score", 0, "drop results scoring below this (0-1)")
	fl.StringVarP(&f.collection, "collection", "c", "", "search only this collection")
	fl.StringVar(&f.lang, "lang", "", "only documents in this language (BCP-47)")
	fl.StringSliceVar(&f.tagsAny, "tags-any", nil, "only documents with any of these tags")
	fl.StringSliceVar(&f.tagsAll, "tags-all", nil, "only documents with all of these tags")
	fl.BoolVar(&f.full, "full", false, "print whole documents")
	fl.BoolVar(&f.lineNumbers, "line-numbers", false, "number lines of --full output")
	fl.BoolVar(&f.explain, "explain", false, "show per-stage scores and timings")
	fl.StringVar(&f.format, "format", "cli", "output format: cli, json, md, files")
	if mode == "query" {
		fl.BoolVar(&f.fast, "fast", false, "fusion only: no expansion, no rerank")
		fl.BoolVar(&f.thorough, "thorough", false, "expansion + fusion + rerank")
		fl.BoolVar(&f.noRerank, "no-rerank", false, "skip reranking")
		fl.BoolVar(&f.expand, "expand", false, "expand the query with the local LLM")
		fl.IntVar(&f.candidates, "candidates", 0, "documents to rerank (default 30)")
	}
	return cmd
}

func (a *app) runSearch(ctx context.Context, mode, query string, f searchFlags) error {
	e, err := a.engine(ctx)
	if err != nil {
		return err
	}
	req := retrieval.SearchRequest{Query: query, Collection: f.collection, Limit: f.limit, MinScore: f.minScore,
		Lang: f.lang, TagsAny: f.tagsAny, TagsAll: f.tagsAll, Full: f.full, Explain: f.explain}
	qr := retrieval.QueryRequest{SearchRequest: req, Fast: f.fast, Thorough: f.thorough, Expand: f.expand, Candidates: f.candidates}
	if f.noRerank {
		no := false
		qr.Rerank = &no
	}
	res, err := e.Run(ctx, retrieval.Mode(mode), qr)
	if err != nil {
		return err
	}
	format := f.format
	if a.json {
		format = "json"
	}
	switch format {
	case "json":
		for i := range res.Results {
			res.Results[i].Snippet = display.StripMarks(res.Results[i].Snippet)
		}
		return a.printJSON(res)
	case "files":
		for _, r := range res.Results {
			fmt.Fprintf(a.stdout, "%s,%.4f,%s\n", r.DocID, r.Score, r.Source.AbsPath)
		}
		return nil
	case "md":
		for i, r := range res.Results {
			fmt.Fprintf(a.stdout, "## %d. %s\n\n- uri: `%s`\n- docid: `%s`\n- score: %.3f\n\n", i+1, r.Title, r.URI, r.DocID, r.Score)
			body := display.StripMarks(r.Snippet)
			if f.full {
				body = r.Content
			}
			fmt.Fprintf(a.stdout, "%s\n\n", body)
		}
		return nil
	case "cli":
	default:
		return fmt.Errorf("unknown --format %q (cli, json, md, files)", format)
	}
	a.printResultsCLI(res, f)
	return nil
}

func (a *app) printResultsCLI(res *retrieval.SearchResults, f searchFlags) {
	color := a.tty()
	bold, dim, reset, hl := "", "", "", ""
	if color {
		bold, dim, reset, hl = "\x1b[1m", "\x1b[2m", "\x1b[0m", "\x1b[1;33m"
	}
	if len(res.Results) == 0 {
		fmt.Fprintf(a.stdout, "No results for %q.\n", res.Meta.Query)
	}
	for i, r := range res.Results {
		page := ""
		if r.Page > 0 {
			page = fmt.Sprintf(" (page %d)", r.Page)
		}
		fmt.Fprintf(a.stdout, "%s%d. %s%s  %s%.2f  %s:%d%s%s\n", bold, i+1, r.Title, reset, dim, r.Score, r.URI, r.Lines.Start, page, reset)
		if len(r.Context) > 0 {
			fmt.Fprintf(a.stdout, "   %scontext: %s%s\n", dim, strings.Join(r.Context, " | "), reset)
		}
		snip := strings.ReplaceAll(r.Snippet, "\n", " ")
		if color {
			snip = strings.NewReplacer("\x01", hl, "\x02", reset).Replace(snip)
		} else {
			snip = display.StripMarks(snip)
		}
		fmt.Fprintf(a.stdout, "   %s\n", snip)
		if r.Explain != nil {
			x := r.Explain
			fmt.Fprintf(a.stdout, "   %sbm25 #%d %.3f · vector #%d %.3f · fusion #%d %.4f · rerank %.3f · final %.3f%s\n", dim,
				x.BM25Rank, x.BM25Score, x.VectorRank, x.VectorScore, x.FusionRank, x.FusionScore, x.RerankScore, x.FinalScore, reset)
		}
		if f.full {
			content := r.Content
			if f.lineNumbers {
				content = display.NumberLines(content, 1)
			}
			fmt.Fprintf(a.stdout, "\n%s\n", content)
		}
		fmt.Fprintln(a.stdout)
	}
	m := res.Meta
	fmt.Fprintf(a.stdout, "%smode %s · %d results · expanded=%v reranked=%v vectors=%v%s\n", dim, m.Mode, m.TotalResults, m.Expanded, m.Reranked, m.VectorsUsed, reset)
	for _, n := range m.Notes {
		fmt.Fprintf(a.stdout, "%snote: %s%s\n", dim, n, reset)
	}
	if len(m.Timings) > 0 {
		fmt.Fprintf(a.stdout, "%stimings (ms): %v%s\n", dim, m.Timings, reset)
	}
}

func (a *app) runEmbed(ctx context.Context, f embedFlags) error {
	e, err := a.engine(ctx)
	if err != nil {
		return err
	}
	opt := retrieval.EmbedOptions{Collection: f.collection, Force: f.force}
	// Progress on a terminal only: a pipe or --json gets the result alone.
	var meter *embedMeter
	if a.stderrTTY() && !a.json {
		meter = &embedMeter{w: a.stderr}
		opt.OnProgress = meter.update
	}
	res, err := e.Embed(ctx, opt)
	if meter != nil {
		meter.finish()
	}
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "embedded %d chunks with %s in %.1f s (%.0f chunks/s); %d chunks have vectors\n",
		res.Embedded, res.Model, res.DurationMS/1000, res.ChunksPerSec, res.Total)
	return nil
}
