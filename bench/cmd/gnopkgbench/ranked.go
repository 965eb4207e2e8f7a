package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	bpkg "github.com/gnosearch/gno/bench/pkgdocs"
	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// ranked runs the ranking set (issue 28) in each mode and prints hit@3 /
// MRR@10 per ecosystem and overall, for the tuning and the checking half,
// over every question and over those no known extraction gap affects.
// Standard-library questions are skipped, saying so, when the project
// has no standard library indexed.
func ranked(ctx context.Context, x *pkgdocs.Index, dir string, modes []string, half, scope string, hint, verbose bool) error {
	cs := bpkg.Ranked()
	halves := bpkg.Halves(cs)
	std, err := stdlibIndexed(ctx, x, dir)
	if err != nil {
		return err
	}
	var keep []bpkg.Case
	skipped := 0
	for _, c := range cs {
		if c.Package == "stdlib" && !std[c.Ecosystem] {
			skipped++
			continue
		}
		if half != "both" && halves[c.ID] != half {
			continue
		}
		keep = append(keep, c)
	}
	for _, m := range modes {
		x.Search(ctx, pkgdocs.SearchRequest{Query: "warm up", Projects: []string{dir}, Mode: m})
	}
	rows := map[string]map[string]bpkg.RankedCell{}
	var names []string
	for _, m := range modes {
		run, misses, err := bpkg.RunRanked(ctx, keep, func(ctx context.Context, c bpkg.Case) ([]bpkg.RankedHit, error) {
			hits, err := rankedHits(ctx, x, dir, m, c, scope, hint)
			if err == nil && showRanks && halves[c.ID] == "tune" {
				rank := 0
				if rr := bpkg.ScoreRanked(c, hits).RR10; rr > 0 {
					rank = int(1/rr + 0.5)
				}
				var top []string
				for _, h := range hits[:min(3, len(hits))] {
					top = append(top, h.Package+" "+cmp.Or(h.Symbol, h.Headings))
				}
				fmt.Printf("RANK %s %s %s %d | %s\n", m, c.Ecosystem, c.ID, rank, strings.Join(top, " | "))
			}
			if err == nil && showMisses && halves[c.ID] == "tune" && bpkg.ScoreRanked(c, hits).Hit3 == 0 {
				fmt.Printf("MISS %s %s: %q want %s %v %v%s\n", m, c.ID, c.Query, c.Package, c.Answers, c.Sections, deepRanks(ctx, x, dir, c, scope, hint))
				for i, h := range hits[:min(5, len(hits))] {
					fmt.Printf("   %d. %s %s [%s]\n", i+1, h.Package, h.Symbol, h.Headings)
				}
			}
			return hits, err
		})
		if err != nil {
			return err
		}
		for _, h := range []string{"tune", "check"} {
			if half != "both" && half != h {
				continue
			}
			inHalf := func(c bpkg.Case) bool { return halves[c.ID] == h }
			name := fmt.Sprintf("%s, %s half", m, h)
			noGaps := func(c bpkg.Case) bool { return inHalf(c) && c.Gap == "" }
			rows[name] = bpkg.Aggregate(run, keep, inHalf, false)
			rows[name+", no gaps"] = bpkg.Aggregate(run, keep, noGaps, false)
			rows[name+", wide"] = bpkg.Aggregate(run, keep, inHalf, true)
			rows[name+", wide, no gaps"] = bpkg.Aggregate(run, keep, noGaps, true)
			names = append(names, name, name+", no gaps", name+", wide", name+", wide, no gaps")
		}
		if verbose {
			sort.Strings(misses)
			fmt.Printf("%s misses (no answer in top 3): %s\n", m, strings.Join(misses, " "))
		}
	}
	if hint {
		scope += " (with the caller's file as a hint)"
	}
	fmt.Printf("\nscope %s; %d questions asked (%d skipped: standard library not indexed), split seed %d; cells: hit@3 / MRR@10 (n); \"wide\": a prose passage of the package naming an answer in code counts too; load %s\n\n",
		scope, len(keep), skipped, bpkg.SplitSeed, load())
	fmt.Print(bpkg.RankedTable(names, rows))
	return nil
}

// showMisses prints the top hits of the tuning half's misses (never the
// checking half's: it is not looked at while tuning).
var showMisses = os.Getenv("GNO_BENCH_SHOW_MISSES") != ""

// showRanks prints, for each tuning-half question, the rank of its first
// answer in the top 10 (0: none), so two modes can be compared question
// by question.
var showRanks = os.Getenv("GNO_BENCH_SHOW_RANKS") != ""

// deepRanks says where a missed question's first answer is in the first
// 100 of each mode (0: not there), so a miss can be told apart as not
// found by either list, or found and outranked.
func deepRanks(ctx context.Context, x *pkgdocs.Index, dir string, c bpkg.Case, scope string, hint bool) string {
	var out []string
	for _, m := range []string{"fast", "search", "vsearch"} {
		hits, err := rankedHitsN(ctx, x, dir, m, c, scope, hint, 100)
		if err != nil {
			return " (" + err.Error() + ")"
		}
		rank := 0
		for i, h := range hits {
			if c.Relevant(h) {
				rank = i + 1
				break
			}
		}
		out = append(out, fmt.Sprintf("%s=%d", m, rank))
	}
	return " deep " + strings.Join(out, " ")
}

// hintFiles name a file of each ecosystem's language: with -hint, the
// path an agent editing such a file passes with its question.
var hintFiles = map[string]string{"go": "main.go", "npm": "src/index.ts", "python": "app.py", "rust": "src/main.rs", "swift": "Sources/App/main.swift"}

// rankedHits runs one question in mode, over the whole project, the
// question's ecosystem (as in a project of one language) or its package;
// with hint, the path of a file in the question's language goes with it.
func rankedHits(ctx context.Context, x *pkgdocs.Index, dir, mode string, c bpkg.Case, scope string, hint bool) ([]bpkg.RankedHit, error) {
	return rankedHitsN(ctx, x, dir, mode, c, scope, hint, 10)
}

// rankedHitsN is rankedHits with the first limit hits.
func rankedHitsN(ctx context.Context, x *pkgdocs.Index, dir, mode string, c bpkg.Case, scope string, hint bool, limit int) ([]bpkg.RankedHit, error) {
	req := pkgdocs.SearchRequest{Query: c.Query, Projects: []string{dir}, Limit: limit, Mode: mode}
	switch scope {
	case "ecosystem":
		req.Ecosystem = c.Ecosystem
	case "package":
		if c.Package != "stdlib" {
			req.Package, req.Ecosystem = c.Package, c.Ecosystem
		}
	}
	if hint {
		req.Path = hintFiles[c.Ecosystem]
	}
	res, err := x.Search(ctx, req)
	if gnoerr.Is(err, gnoerr.NotFound) {
		return nil, nil // the package is not indexed here: a miss
	}
	if err != nil {
		return nil, err
	}
	hits := make([]bpkg.RankedHit, 0, len(res.Results))
	for _, r := range res.Results {
		h, err := bpkg.HitOf(ctx, x, r)
		if err != nil {
			return nil, err
		}
		rh := bpkg.RankedHit{Package: h.Package, Symbol: h.Symbol, Passage: h.Passage, Headings: r.Headings}
		if r.Package != nil && r.Symbol != nil {
			file, err := definedIn(ctx, x, *r.Package, r.Symbol.Name)
			if err != nil {
				return nil, err
			}
			rh.Defined = bpkg.DefinedNames(r.Package.Ecosystem, r.Symbol.Name, file)
		}
		hits = append(hits, rh)
	}
	return hits, nil
}

// definedIn is the file that defines a version's API item ("" when the
// item is not found by that name).
func definedIn(ctx context.Context, x *pkgdocs.Index, p retrieval.PackageRef, symbol string) (string, error) {
	key := retrieval.PackageKey(p.Ecosystem, p.Name, p.Version)
	vs, err := x.Packages().Versions(ctx, []string{key})
	if err != nil || vs[key] == nil {
		return "", err
	}
	us, err := x.Packages().Symbol(ctx, vs[key].ID, symbol)
	if err != nil {
		return "", err
	}
	for _, u := range us {
		if u.Symbol == symbol {
			return u.File, nil
		}
	}
	return "", nil
}

// stdlibIndexed reports, per ecosystem, whether the project's packages
// include a standard library.
func stdlibIndexed(ctx context.Context, x *pkgdocs.Index, dir string) (map[string]bool, error) {
	ps, err := x.List(ctx, []string{dir})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range ps[0].Packages {
		if p.Name == "stdlib" || p.Name == "std" || strings.Contains(p.Name, "stdlib") {
			out[p.Ecosystem] = true
		}
	}
	return out, nil
}

// rankedCheck reports answers of the ranking set that are no extracted
// symbol (those of known gaps are listed apart).
func rankedCheck(ctx context.Context, x *pkgdocs.Index, dir string) error {
	bad, gaps := 0, 0
	halves := bpkg.Halves(bpkg.Ranked())
	per := map[string]int{}
	for _, c := range bpkg.Ranked() {
		per[c.Ecosystem+"/"+halves[c.ID]]++
		if c.Package == "stdlib" {
			continue
		}
		for _, a := range c.Answers {
			d, err := x.Describe(ctx, pkgdocs.DescribeRequest{Package: c.Package, Ecosystem: c.Ecosystem, Symbol: a, Projects: []string{dir}})
			if err == nil && d.Symbol != nil && (d.Symbol.Name == a || strings.HasSuffix(d.Symbol.Name, "."+a) || strings.HasSuffix(d.Symbol.Name, "::"+a) ||
				slices.Contains(bpkg.DefinedNames(c.Ecosystem, d.Symbol.Name, d.Symbol.File), a)) {
				continue
			}
			if c.Gap != "" {
				gaps++
				continue
			}
			bad++
			fmt.Fprintf(os.Stdout, "%s: %s %q not found (%v)\n", c.ID, c.Package, a, err)
		}
	}
	fmt.Printf("%d questions %v; %d answers not extracted (%d more in known gaps)\n", len(bpkg.Ranked()), per, bad, gaps)
	return nil
}
