// Command gnoeval measures retrieval quality in process, without spawning
// gno: it indexes a BEIR dataset from ../shared/eval into a temporary (or
// kept) GNO_HOME, runs every judged query through retrieval.Engine in the
// modes asked for, and prints nDCG@10, R@10, R@100 and MRR@10 per mode.
//
// Mode "trigram" is not gno: it is the plain SQLite FTS5 reference the
// CJK issue measures against (a trigram table over title and text, the
// query's overlapping three-character grams ORed, bm25 ranking), built over
// the same documents.
//
//	go run ./bench/cmd/gnoeval -dataset cmrc2018-zh -modes search,trigram
//	go run ./bench/cmd/gnoeval -dataset scifact -modes search,fast -embed bge-small-en-v1.5-q
//
// -runs FILE writes every ranked list (mode, query, rank, document,
// score; TSV), and -same A,B compares two such files, from two stores, say:
// it counts the queries whose lists differ and the places where they
// differ although both stores gave the same score (an order that should
// have been identical).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/bench/metrics"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"

	_ "github.com/gnosearch/gno/retrieval/store/postgres" // GNO_STORE_URL=postgres://... evaluates on Postgres
	_ "modernc.org/sqlite"
)

func main() {
	evalDir := flag.String("eval", filepath.Join("..", "shared", "eval"), "folder holding the BEIR datasets")
	dataset := flag.String("dataset", "cmrc2018-zh", "dataset folder name")
	modes := flag.String("modes", "search", "comma-separated: search, vsearch, fast, default, trigram")
	embed := flag.String("embed", "", "embedding model (models.embed) for vsearch/fast/default")
	home := flag.String("home", "", "GNO_HOME to build or reuse (default: a temp dir, removed after)")
	maxQ := flag.Int("n", 0, "use only the first n judged queries (0: all)")
	noEmbed := flag.Bool("no-embed", false, "do not run `gno embed` first (use the vectors already in -home, if any)")
	flag.DurationVar(&budget, "budget", 0, "override every mode's time budget (0: config/defaults); a loaded machine cuts vector search at the 50 ms fast budget")
	flag.Float64Var(&vectorWeight, "vector-weight", 0, "override search.vectorWeight (0: the per-model default)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	runsFile := flag.String("runs", "", "write every ranked list (mode, query, rank, document, score) to this TSV file")
	same := flag.String("same", "", "A,B: compare two -runs files and exit")
	flag.Parse()
	if *same != "" {
		a, b, _ := strings.Cut(*same, ",")
		if err := compareRuns(a, b); err != nil {
			fmt.Fprintln(os.Stderr, "gnoeval:", err)
			os.Exit(1)
		}
		return
	}
	if *runsFile != "" {
		f, err := os.Create(*runsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gnoeval:", err)
			os.Exit(1)
		}
		defer f.Close()
		runsOut = f
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gnoeval:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *noEmbed {
		embedModes = nil
	}
	if err := run(context.Background(), *evalDir, *dataset, strings.Split(*modes, ","), *embed, *home, *maxQ); err != nil {
		fmt.Fprintln(os.Stderr, "gnoeval:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(ctx context.Context, evalDir, name string, modes []string, embed, home string, maxQ int) error {
	ds, err := beir.Load(ctx, filepath.Join(evalDir, name))
	if err != nil {
		return err
	}
	queries := ds.Queries
	if maxQ > 0 && maxQ < len(queries) {
		queries = queries[:maxQ]
	}
	only := make([]string, len(queries))
	for i, q := range queries {
		only[i] = q.ID
	}
	var e *retrieval.Engine
	for _, m := range modes {
		if m == "trigram" {
			runs, took, err := trigramRef(ctx, ds, queries)
			if err != nil {
				return err
			}
			report(ds, m, runs, only, took)
			continue
		}
		if e == nil {
			if e, err = engine(ctx, ds, embed, home, modes); err != nil {
				return err
			}
			defer e.Close()
		}
		runs := map[string][]string{}
		t0 := time.Now()
		notes := map[string]int{}
		for _, q := range queries {
			req := retrieval.SearchRequest{Query: q.Text, Limit: 100}
			var res *retrieval.SearchResults
			switch m {
			case "search":
				res, err = e.Search(ctx, req)
			case "vsearch":
				res, err = e.VSearch(ctx, req)
			case "fast":
				res, err = e.Query(ctx, retrieval.QueryRequest{SearchRequest: req, Fast: true})
			case "default":
				res, err = e.Query(ctx, retrieval.QueryRequest{SearchRequest: req})
			default:
				return fmt.Errorf("unknown mode %q", m)
			}
			if err != nil {
				notes["error: "+err.Error()]++
				continue
			}
			for _, n := range res.Meta.Notes {
				notes[n]++
			}
			for i, r := range res.Results {
				runs[q.ID] = append(runs[q.ID], beir.DocIDFromPath(r.URI))
				if runsOut != nil {
					fmt.Fprintf(runsOut, "%s\t%s\t%d\t%s\t%s\n", m, q.ID, i+1, beir.DocIDFromPath(r.URI), strconv.FormatFloat(r.Score, 'g', -1, 64))
				}
			}
		}
		report(ds, m, runs, only, time.Since(t0))
		for n, c := range notes {
			fmt.Printf("    note ×%d: %s\n", c, n)
		}
	}
	return nil
}

var (
	budget       time.Duration
	vectorWeight float64
	// runsOut receives the ranked lists (-runs).
	runsOut io.Writer
)

// embedModes are the modes that need vectors, embedded before they run.
var embedModes = map[string]bool{"vsearch": true, "fast": true, "default": true}

func report(ds *beir.Dataset, mode string, runs map[string][]string, only []string, took time.Duration) {
	s := metrics.Evaluate(ds.Qrels, runs, only)
	fmt.Printf("%s %s queries %d nDCG@10 %.4f R@10 %.4f R@100 %.4f MRR@10 %.4f empty %d (%.1f ms/query)\n",
		ds.Name, mode, s.Queries, s.NDCG10, s.Recall10, s.Recall100, s.MRR10, s.Empty,
		float64(took.Microseconds())/1000/float64(max(1, len(only))))
}

// engine indexes the dataset (and embeds it when a model mode is asked for)
// into home, or reuses home when it already holds an index.
func engine(ctx context.Context, ds *beir.Dataset, embed, home string, modes []string) (*retrieval.Engine, error) {
	if home == "" {
		d, err := os.MkdirTemp("", "gnoeval-")
		if err != nil {
			return nil, err
		}
		home = d
		defer func() { _ = d }() // left for the OS: the engine still reads it
	}
	docs := filepath.Join(home, "docs")
	fresh := false
	if _, err := os.Stat(docs); err != nil {
		fresh = true
		if _, err := ds.WriteMarkdown(ctx, docs); err != nil {
			return nil, err
		}
	}
	os.Setenv("GNO_HOME", home)
	e, err := retrieval.Open(ctx, retrieval.Options{})
	if err != nil {
		return nil, err
	}
	err = e.UpdateConfig(ctx, func(c *config.Config) error {
		if embed != "" {
			c.Models.Embed = embed
		}
		if budget > 0 {
			c.Search.Budgets = map[string]config.Duration{"fast": config.Duration(budget), "default": config.Duration(budget), "thorough": config.Duration(budget)}
		}
		// Always set, 0 included: a reused -home must not keep the weight
		// of an earlier run's override.
		c.Search.VectorWeight = vectorWeight
		if fresh {
			_, err := c.AddCollection(config.Collection{Name: "eval", Path: docs})
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if _, err := e.Update(ctx, retrieval.UpdateOptions{}); err != nil {
		return nil, err
	}
	fmt.Printf("indexed %s in %s (home %s)\n", ds.Name, time.Since(t0).Round(time.Millisecond), home)
	for _, m := range modes {
		if embedModes[m] {
			t0 = time.Now()
			r, err := e.Embed(ctx, retrieval.EmbedOptions{})
			if err != nil {
				return nil, err
			}
			fmt.Printf("embedded %d chunks with %s in %s\n", r.Embedded, r.Model, time.Since(t0).Round(time.Second))
			break
		}
	}
	return e, nil
}

// trigramRef is the plain FTS5 trigram reference: one row per document
// (title and text in one column, as a user of SQLite would first try),
// the query's three-character grams ORed, ordered by bm25.
func trigramRef(ctx context.Context, ds *beir.Dataset, queries []beir.Query) (map[string][]string, time.Duration, error) {
	dir, err := os.MkdirTemp("", "gnoeval-tri-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "ref.db"))
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, body, tokenize='trigram')"); err != nil {
		return nil, 0, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, err
	}
	for _, d := range ds.Docs {
		if _, err := tx.ExecContext(ctx, "INSERT INTO t(id, body) VALUES(?, ?)", d.ID, d.Title+"\n"+d.Text); err != nil {
			tx.Rollback()
			return nil, 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, err
	}
	runs := map[string][]string{}
	t0 := time.Now()
	for _, q := range queries {
		expr := trigramExpr(q.Text)
		if expr == "" {
			continue
		}
		rows, err := db.QueryContext(ctx, "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 100", expr)
		if err != nil {
			return nil, 0, fmt.Errorf("query %s: %w", q.ID, err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, 0, err
			}
			runs[q.ID] = append(runs[q.ID], id)
		}
		rows.Close()
	}
	return runs, time.Since(t0), nil
}

// trigramExpr ORs every distinct three-character gram of the query's runs
// of letters and digits (punctuation and spaces split runs).
func trigramExpr(s string) string {
	var grams []string
	seen := map[string]bool{}
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		rs := []rune(strings.ToLower(run))
		for i := 0; i+3 <= len(rs); i++ {
			g := string(rs[i : i+3])
			if !seen[g] {
				seen[g] = true
				grams = append(grams, `"`+strings.ReplaceAll(g, `"`, `""`)+`"`)
			}
		}
	}
	return strings.Join(grams, " OR ")
}
