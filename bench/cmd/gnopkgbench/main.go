// Command gnopkgbench measures the package docs (`gno packages`): the
// judged set's quality per mode beside the peer's approach, and the speed
// and size figures of issue 20. It runs in process over the index of
// $GNO_HOME (so point GNO_HOME at a scratch folder, and GNO_MODELS_DIR at
// the models).
//
//	gnopkgbench project -set judged -out DIR   write the judged project's manifests
//	gnopkgbench add -project DIR               add (first run when GNO_HOME is fresh), with -cpuprofile
//	gnopkgbench check -project DIR             every answer of the set is an extracted symbol
//	gnopkgbench peer -project DIR -q ID        the peer's top sections for one question
//	gnopkgbench quality -project DIR           judged set: gno per mode, and the peer
//	gnopkgbench rcheck -project DIR            every answer of the ranking set is an extracted symbol
//	gnopkgbench ranked -project DIR [-half tune] ranking set (issue 28): hit@3 and MRR@10 per mode and half
//	gnopkgbench speed -project DIR             search and describe latency, index size
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	bpkg "github.com/gnosearch/gno/bench/pkgdocs"
	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/pkgdocs/pkgtest"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gnopkgbench project|check|quality|speed [flags]")
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	set := fs.String("set", "judged", "project to write: judged, ranked, hundred")
	out := fs.String("out", "", "folder to write the project into")
	project := fs.String("project", "", "project folder (added first when needed)")
	modes := fs.String("modes", "search,fast,query", "gno modes to measure")
	embed := fs.Bool("embed", true, "embed the units first (fast and query need vectors)")
	fs.BoolVar(&noFetch, "no-fetch", false, "index only installed packages")
	fs.BoolVar(&noStdlib, "no-stdlib", false, "leave the standard libraries out of the project")
	n := fs.Int("n", 200, "speed: calls per measure")
	served := fs.Bool("served", true, "speed: warm the models first, as gno mcp and the daemon do (query layout tuned)")
	qid := fs.String("q", "", "peer: the judged question to show the peer's sections for")
	half := fs.String("half", "both", "ranked: the half of the ranking set to run: tune, check or both")
	scope := fs.String("scope", "project", "ranked: search the whole project, the question's ecosystem or its package")
	verbose := fs.Bool("v", false, "ranked: list the misses")
	hint := fs.Bool("hint", false, "ranked: pass the path of a file in the question's language (main.go, index.ts, app.py, main.rs, main.swift), as an agent editing that file would")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	fs.Parse(args)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gnopkgbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	var err error
	switch cmd {
	case "project":
		err = writeProject(*set, *out)
	case "add":
		c0 := cpuMS()
		err = withIndex(ctx, *project, false, func(context.Context, *pkgdocs.Index, string) error { return nil })
		fmt.Printf("CPU %.0f ms (load %s)\n", cpuMS()-c0, load())
	case "check":
		err = withIndex(ctx, *project, false, check)
	case "peer":
		err = withIndex(ctx, *project, false, func(ctx context.Context, x *pkgdocs.Index, dir string) error {
			readmes, err := peerReadmes(ctx, x, dir)
			if err != nil {
				return err
			}
			for _, q := range bpkg.Judged {
				if q.ID != *qid {
					continue
				}
				fmt.Printf("%s: %d sections of %s\n", q.Query, len(readmes[q.Package]), q.Package)
				for i, sec := range bpkg.PeerSearch(readmes[q.Package], q.Query, 5) {
					fmt.Printf("%d. %s (grade %.1f)\n", i+1, sec.Heading, bpkg.Grade(q, bpkg.Hit{Package: q.Package, Passage: sec.Content}))
				}
			}
			return nil
		})
	case "quality":
		err = withIndex(ctx, *project, *embed, func(ctx context.Context, x *pkgdocs.Index, dir string) error {
			return quality(ctx, x, dir, strings.Split(*modes, ","))
		})
	case "ranked":
		err = withIndex(ctx, *project, *embed, func(ctx context.Context, x *pkgdocs.Index, dir string) error {
			return ranked(ctx, x, dir, strings.Split(*modes, ","), *half, *scope, *hint, *verbose)
		})
	case "rcheck":
		err = withIndex(ctx, *project, false, rankedCheck)
	case "speed":
		err = withIndex(ctx, *project, false, func(ctx context.Context, x *pkgdocs.Index, dir string) error {
			return speed(ctx, x, dir, *n, *served)
		})
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "gnopkgbench:", err)
		os.Exit(1)
	}
}

// noFetch is -no-fetch, noStdlib -no-stdlib.
var noFetch, noStdlib bool

func writeProject(set, out string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	p := pkgtest.Judged
	switch set {
	case "judged":
	case "hundred":
		p = pkgtest.Hundred
	case "ranked":
		p = pkgtest.Ranked
	default:
		return fmt.Errorf("unknown set %q", set)
	}
	return p.Write(out)
}

// withIndex opens the package index, adds the project (fetching what is
// missing) and, with embed, builds its vectors.
func withIndex(ctx context.Context, project string, embed bool, fn func(context.Context, *pkgdocs.Index, string) error) error {
	if project == "" {
		return fmt.Errorf("-project is required")
	}
	x, err := pkgdocs.Open(ctx, pkgdocs.Options{NoStdlib: noStdlib})
	if err != nil {
		return err
	}
	defer x.Close()
	res, err := x.Add(ctx, project, pkgdocs.AddOptions{NoFetch: noFetch})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "project %s: %d packages (%d indexed now), %d missing, %.0f ms\n", res.Project, res.Packages, len(res.Indexed), len(res.Missing), res.DurationMS)
	for _, m := range res.Missing {
		fmt.Fprintf(os.Stderr, "  missing %s %s: %s\n", m.Name, m.Version, m.Reason)
	}
	if embed {
		start := time.Now()
		er, err := x.Embed(ctx, nil)
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if er != nil {
			fmt.Fprintf(os.Stderr, "embedded %d chunks with %s in %.0f s\n", er.Embedded, er.Model, time.Since(start).Seconds())
		}
	}
	return fn(ctx, x, res.Project)
}

// check reports answers of the judged set that are no extracted symbol.
func check(ctx context.Context, x *pkgdocs.Index, dir string) error {
	bad := 0
	for _, q := range bpkg.Judged {
		for _, a := range q.Answers {
			d, err := x.Describe(ctx, pkgdocs.DescribeRequest{Package: q.Package, Ecosystem: q.Ecosystem, Symbol: a, Projects: []string{dir}})
			if err != nil || d.Symbol == nil || d.Symbol.Name != a {
				bad++
				got := ""
				if d != nil && d.Symbol != nil {
					got = d.Symbol.Name
				}
				fmt.Printf("%s: %s %q not found (%v) %s\n", q.ID, q.Package, a, err, got)
			}
		}
	}
	per := map[string]int{}
	for _, q := range bpkg.Judged {
		per[q.Ecosystem]++
	}
	fmt.Printf("%d questions %v, %d answers not extracted\n", len(bpkg.Judged), per, bad)
	return nil
}

// quality runs the judged set through gno in each mode (project-wide and
// narrowed to the package) and through the peer.
func quality(ctx context.Context, x *pkgdocs.Index, dir string, modes []string) error {
	readmes, err := peerReadmes(ctx, x, dir)
	if err != nil {
		return err
	}
	var systems []bpkg.System
	for _, m := range modes {
		systems = append(systems, bpkg.GnoSystem(x, dir, m, false))
	}
	for _, m := range modes {
		systems = append(systems, bpkg.GnoSystem(x, dir, m, true))
	}
	systems = append(systems, bpkg.PeerSystem(readmes), bpkg.SectionsBM25System(readmes))
	// Warm the models and caches, so the first question is not timed cold.
	for _, m := range modes {
		x.Search(ctx, pkgdocs.SearchRequest{Query: "warm up", Projects: []string{dir}, Mode: m})
	}
	var rows []bpkg.Row
	for _, s := range systems {
		rows = append(rows, bpkg.Evaluate(ctx, s, bpkg.Judged, timed))
	}
	fmt.Printf("%d questions; load %s\n\n", len(bpkg.Judged), load())
	fmt.Print(bpkg.Table(rows, []string{"go", "npm", "python", "rust", "swift"}))
	fmt.Println()
	for _, r := range rows {
		fmt.Printf("%s misses (no answer in top 3): %s\n", r.System, strings.Join(r.Misses, " "))
	}
	res, err := x.Search(ctx, pkgdocs.SearchRequest{Query: "warm up", Projects: []string{dir}, Mode: "query"})
	if err == nil {
		fmt.Printf("\nquery mode meta: mode=%s reranked=%v vectors=%v notes=%v\n", res.Meta.Mode, res.Meta.Reranked, res.Meta.VectorsUsed, res.Meta.Notes)
	}
	return nil
}

// peerReadmes are the peer's sections of each package's README (gno's
// stored README, already without badges: the peer drops the same
// sections by heading).
func peerReadmes(ctx context.Context, x *pkgdocs.Index, dir string) (map[string][]bpkg.PeerSection, error) {
	out := map[string][]bpkg.PeerSection{}
	ps, err := x.List(ctx, []string{dir})
	if err != nil {
		return nil, err
	}
	for _, p := range ps[0].Packages {
		page, err := x.GetDoc(ctx, pkgdocs.GetDocRequest{Package: p.Name, Ecosystem: p.Ecosystem, Projects: []string{dir}, MaxTokens: 1 << 30})
		if err != nil {
			return nil, err
		}
		out[p.Name] = bpkg.PeerSections(p.Summary, page.Content)
	}
	return out, nil
}

// timed runs fn and returns its wall time in ms.
func timed(fn func() error) (float64, error) {
	start := time.Now()
	err := fn()
	return float64(time.Since(start).Microseconds()) / 1000, err
}

// cpuMS is the process's user+system CPU time.
func cpuMS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// speed measures warm latency of search (each mode) and describe, and
// the index size per version; served warms the models first, as a
// long-running server does.
func speed(ctx context.Context, x *pkgdocs.Index, dir string, n int, served bool) error {
	queries := make([]string, 0, len(bpkg.Judged))
	for _, q := range bpkg.Judged {
		queries = append(queries, q.Query)
	}
	measure := func(name string, fn func(i int) error) {
		fn(0) // warm
		var ts []float64
		c0 := cpuMS()
		for i := 0; i < n; i++ {
			ms, err := timed(func() error { return fn(i) })
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return
			}
			ts = append(ts, ms)
		}
		cpu := (cpuMS() - c0) / float64(n)
		sort.Float64s(ts)
		fmt.Printf("| %s | %.1f | %.1f | %.1f |\n", name, ts[len(ts)/2], ts[len(ts)*95/100], cpu)
	}
	how := "one-shot process"
	if served {
		x.Packages().Models().Warm(ctx)
		how = "models warmed as gno mcp and the daemon do"
	}
	fmt.Printf("load %s, %s\n\n| call (warm, in process) | median ms | p95 ms | CPU ms/call |\n|---|---:|---:|---:|\n", load(), how)
	for _, m := range []string{"search", "fast"} {
		measure("search_package_docs mode "+m+", limit 5, budget 5000", func(i int) error {
			_, err := x.Search(ctx, pkgdocs.SearchRequest{Query: queries[i%len(queries)], Projects: []string{dir}, Limit: 5, Mode: m, MaxTokens: 5000, Auto: true})
			return err
		})
	}
	// Only the packages the project has: a smaller project (no npm or
	// Python installed) would otherwise time its error path.
	var names []string
	for _, name := range []string{"cobra", "zod", "requests", "serde", "swift-retry", "commander", "click", "itertools"} {
		if _, err := x.Describe(ctx, pkgdocs.DescribeRequest{Package: name, Projects: []string{dir}, MaxTokens: 5000, Auto: true}); err == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("describe: none of the measured packages is in %s", dir)
	}
	measure("describe_package (overview)", func(i int) error {
		_, err := x.Describe(ctx, pkgdocs.DescribeRequest{Package: names[i%len(names)], Projects: []string{dir}, MaxTokens: 5000, Auto: true})
		return err
	})
	measure("describe_package with symbol", func(i int) error {
		q := bpkg.Judged[i%len(bpkg.Judged)]
		_, err := x.Describe(ctx, pkgdocs.DescribeRequest{Package: q.Package, Ecosystem: q.Ecosystem, Symbol: q.Answers[0], Projects: []string{dir}, MaxTokens: 5000, Auto: true})
		if gnoerr.CodeOf(err) == gnoerr.NotFound {
			return nil // another version of the package (the hundred project's) may lack the item
		}
		return err
	})
	return size(ctx, x)
}

// size reports the database size per stored version and unit.
func size(ctx context.Context, x *pkgdocs.Index) error {
	st, err := x.Packages().Stats(ctx)
	if err != nil {
		return err
	}
	var bytes int64
	dir := x.Packages().Paths().IndexDir
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Dir(p) == dir {
			bytes += fi.Size()
		}
		return nil
	})
	fmt.Printf("\nindex folder (database, WAL, vector graph): %.1f MB for %d versions, %d units, %d chunks, %d embedded: %.0f KB per version, %.2f KB per unit\n",
		float64(bytes)/1e6, st.Versions, st.Units, st.Chunks, st.Embedded, float64(bytes)/1e3/float64(max(st.Versions, 1)), float64(bytes)/1e3/float64(max(st.Units, 1)))
	return nil
}
