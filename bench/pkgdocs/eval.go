package pkgdocs

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/gnosearch/gno/pkgdocs"
	"github.com/gnosearch/gno/retrieval"
)

// Hit is one ranked answer of a system under test.
type Hit struct {
	// Package is the package name of the hit.
	Package string
	// Symbol is the API item a gno hit documents; "" for README, doc and
	// example passages (and every peer hit).
	Symbol string
	// Passage is the text shown for a non-API hit: the chunk of gno's
	// unit, the peer's section.
	Passage string
}

// Grade is how well a hit answers q: 1 for the API item's own unit, 0.5
// for a README, doc or example passage of the right package that shows
// the item in code (inline or fenced), 0 otherwise.
func Grade(q Question, h Hit) float64 {
	if h.Package != q.Package {
		return 0
	}
	for _, a := range q.Answers {
		if h.Symbol == a {
			return 1
		}
	}
	if h.Symbol != "" {
		return 0
	}
	code := codeText(h.Passage)
	for _, a := range q.Answers {
		if leafRE(a).MatchString(code) {
			return 0.5
		}
	}
	return 0
}

var codeRE = regexp.MustCompile("(?s)```.*?```|`[^`\n]+`")

// codeText is the code of a Markdown passage: fenced blocks and inline
// code spans.
func codeText(s string) string {
	return strings.Join(codeRE.FindAllString(s, -1), "\n")
}

// leafRE matches an answer's last name part as a whole identifier.
func leafRE(answer string) *regexp.Regexp {
	leaf := answer
	if i := strings.LastIndexAny(leaf, ".:"); i >= 0 {
		leaf = leaf[i+1:]
	}
	return regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(leaf) + `($|[^A-Za-z0-9_])`)
}

// Scores are one question's measures.
type Scores struct {
	Hit3, API3, NDCG10 float64
}

// Score measures a ranking: hit@3 (an answering hit, API item or
// passage, in the top 3), API@3 (the API item's own unit in the top 3)
// and nDCG@10 with one relevant answer per question: the best-placed
// answering hit counts, gain 1 or 0.5 over log2(rank+1).
func Score(q Question, hits []Hit) Scores {
	var s Scores
	for i, h := range hits {
		if i == 10 {
			break
		}
		g := Grade(q, h)
		if g == 0 {
			continue
		}
		if i < 3 {
			s.Hit3 = 1
			if g == 1 {
				s.API3 = 1
			}
		}
		s.NDCG10 = math.Max(s.NDCG10, g/math.Log2(float64(i)+2))
	}
	return s
}

// System is a ranking system under test.
type System struct {
	Name string
	Run  func(ctx context.Context, q Question) ([]Hit, error)
}

// GnoSystem searches with gno in mode over the project's dependencies
// (withPackage: narrowed to the question's package, as the peer is).
func GnoSystem(x *pkgdocs.Index, project, mode string, withPackage bool) System {
	name := "gno " + mode
	if withPackage {
		name += " +package"
	}
	return System{Name: name, Run: func(ctx context.Context, q Question) ([]Hit, error) {
		req := pkgdocs.SearchRequest{Query: q.Query, Projects: []string{project}, Limit: 10, Mode: mode}
		if withPackage {
			req.Package, req.Ecosystem = q.Package, q.Ecosystem
		}
		res, err := x.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		var hits []Hit
		for _, r := range res.Results {
			h, err := HitOf(ctx, x, r)
			if err != nil {
				return nil, err
			}
			hits = append(hits, h)
		}
		return hits, nil
	}}
}

// HitOf is what grading reads of a gno result: its package, its symbol
// and, for a prose hit, the passage shown (its chunk's lines).
func HitOf(ctx context.Context, x *pkgdocs.Index, r retrieval.Result) (Hit, error) {
	h := Hit{}
	if r.Package != nil {
		h.Package = r.Package.Name
	}
	if r.Symbol != nil {
		h.Symbol = r.Symbol.Name
		return h, nil
	}
	d, err := x.Packages().Get(ctx, retrieval.GetRequest{Ref: r.URI, FromLine: r.Lines.Start, LineCount: r.Lines.End - r.Lines.Start + 1})
	if err != nil {
		return h, err
	}
	h.Passage = d.Content
	return h, nil
}

// PeerSystem is the peer: Fuse.js over the question's package's README
// sections (the package is a required argument of its tool), 5 results.
func PeerSystem(readmes map[string][]PeerSection) System {
	return System{Name: "peer: fuzzy README sections (+package)", Run: func(_ context.Context, q Question) ([]Hit, error) {
		var hits []Hit
		for _, s := range PeerSearch(readmes[q.Package], q.Query, 5) {
			hits = append(hits, Hit{Package: q.Package, Passage: s.Content})
		}
		return hits, nil
	}}
}

// SectionsBM25System ranks the same README sections by BM25: the README-
// only approach with a good ranking.
func SectionsBM25System(readmes map[string][]PeerSection) System {
	return System{Name: "README sections, BM25 (+package)", Run: func(_ context.Context, q Question) ([]Hit, error) {
		var hits []Hit
		for _, s := range SectionsBM25(readmes[q.Package], q.Query, 5) {
			hits = append(hits, Hit{Package: q.Package, Passage: s.Content})
		}
		return hits, nil
	}}
}

// Row is one system's measures over a set of questions.
type Row struct {
	System            string
	N                 int
	Hit3, API3, NDCG  float64
	PerEco            map[string]Scores
	PerEcoN           map[string]int
	Misses            []string
	Errors            int
	MedianMS, TotalMS float64
}

// Evaluate runs every question through sys.
func Evaluate(ctx context.Context, sys System, qs []Question, timer func(func() error) (float64, error)) Row {
	row := Row{System: sys.Name, PerEco: map[string]Scores{}, PerEcoN: map[string]int{}}
	var times []float64
	for _, q := range qs {
		var hits []Hit
		ms, err := timer(func() error {
			var err error
			hits, err = sys.Run(ctx, q)
			return err
		})
		times = append(times, ms)
		row.TotalMS += ms
		if err != nil {
			row.Errors++
			row.Misses = append(row.Misses, q.ID+" (error: "+err.Error()+")")
			continue
		}
		s := Score(q, hits)
		row.N++
		row.Hit3 += s.Hit3
		row.API3 += s.API3
		row.NDCG += s.NDCG10
		e := row.PerEco[q.Ecosystem]
		e.Hit3 += s.Hit3
		e.API3 += s.API3
		e.NDCG10 += s.NDCG10
		row.PerEco[q.Ecosystem] = e
		row.PerEcoN[q.Ecosystem]++
		if s.Hit3 == 0 {
			row.Misses = append(row.Misses, q.ID)
		}
	}
	n := float64(len(qs))
	row.Hit3, row.API3, row.NDCG = row.Hit3/n, row.API3/n, row.NDCG/n
	for e, s := range row.PerEco {
		k := float64(row.PerEcoN[e])
		row.PerEco[e] = Scores{Hit3: s.Hit3 / k, API3: s.API3 / k, NDCG10: s.NDCG10 / k}
	}
	sort.Float64s(times)
	if len(times) > 0 {
		row.MedianMS = times[len(times)/2]
	}
	return row
}

// Table prints rows as a Markdown table.
func Table(rows []Row, ecos []string) string {
	var b strings.Builder
	b.WriteString("| system | hit@3 | API@3 | nDCG@10 |")
	for _, e := range ecos {
		fmt.Fprintf(&b, " %s hit@3 / nDCG |", e)
	}
	b.WriteString(" median ms |\n|---|---:|---:|---:|")
	for range ecos {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f |", r.System, r.Hit3, r.API3, r.NDCG)
		for _, e := range ecos {
			s := r.PerEco[e]
			fmt.Fprintf(&b, " %.2f / %.2f |", s.Hit3, s.NDCG10)
		}
		fmt.Fprintf(&b, " %.1f |\n", r.MedianMS)
	}
	return b.String()
}
