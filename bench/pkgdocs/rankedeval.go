package pkgdocs

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// RankedHit is one ranked answer for the ranking set.
type RankedHit struct {
	Package string
	// Symbol is the API item of the hit; "" for prose (README, doc,
	// example).
	Symbol string
	// Headings is the heading path of the hit's passage ("A > B > C").
	Headings string
	// Passage is a prose hit's text (the chunk shown).
	Passage string
	// Defined are the names of an API hit by the module that defines it
	// (DefinedNames): the set's answers may name an item there
	// ("tenacity.wait.wait_random") while the unit carries the public
	// path users import ("tenacity.wait_random").
	Defined []string
}

// Relevant reports whether h is one of c's accepted units: one of its
// API items (the same name, or a name ending in it at a name boundary:
// "httpx.AsyncClient" accepts "httpx._client.AsyncClient" re-exported),
// or a passage under one of its sections. A standard-library question
// accepts the item from whichever package the standard library is stored
// as.
func (c Case) Relevant(h RankedHit) bool {
	if c.Package != "stdlib" && h.Package != c.Package {
		return false
	}
	if h.Symbol != "" {
		for _, a := range c.Answers {
			if symbolIs(h.Symbol, a) || slices.Contains(h.Defined, a) {
				return true
			}
		}
		return false
	}
	if c.Package == "stdlib" {
		return false
	}
	for _, part := range strings.Split(h.Headings, " > ") {
		part = strings.TrimSpace(part)
		for _, s := range c.Sections {
			if strings.EqualFold(part, s) {
				return true
			}
		}
	}
	return false
}

// DefinedNames are the names of a Python API item by its defining
// module: the module of file ("tenacity/wait.py" → "tenacity.wait")
// joined to each dotted tail of symbol ("wait_random"; for
// "rich.align.Console.print" in rich/console.py, "Console.print" gives
// "rich.console.Console.print"). The set names an item where it is
// defined or where it is imported from; both are the same unit. Other
// ecosystems need none: a Go item is stored under its import path
// ("os/exec.Command"), which symbolIs accepts for "exec.Command" at the
// "/" boundary, and Rust and JavaScript items under their public paths,
// as the set writes them.
func DefinedNames(ecosystem, symbol, file string) []string {
	if ecosystem != "python" || !strings.HasSuffix(file, ".py") {
		return nil
	}
	mod := strings.TrimSuffix(strings.TrimSuffix(file, ".py"), "/__init__")
	mod = strings.ReplaceAll(mod, "/", ".")
	parts := strings.Split(symbol, ".")
	var out []string
	for i := len(parts) - 1; i >= 1; i-- {
		out = append(out, mod+"."+strings.Join(parts[i:], "."))
	}
	return out
}

// symbolIs reports whether sym is answer or ends in it at a name
// boundary.
func symbolIs(sym, answer string) bool {
	if sym == answer {
		return true
	}
	if !strings.HasSuffix(sym, answer) {
		return false
	}
	switch sym[len(sym)-len(answer)-1] {
	case '.', ':', '/', '#':
		return true
	}
	return false
}

// Names reports whether h, a prose hit of c's package, names one of c's
// API items in code (inline or fenced): the wider sense of a hit
// ("the right package and its text names the API that answers").
func (c Case) Names(h RankedHit) bool {
	if h.Symbol != "" || h.Package != c.Package || c.Package == "stdlib" {
		return false
	}
	code := codeText(h.Passage)
	for _, a := range c.Answers {
		if leaf := leafOf(a); len(leaf) >= 3 && leafRE(a).MatchString(code) {
			return true
		}
	}
	return false
}

func leafOf(answer string) string {
	if i := strings.LastIndexAny(answer, ".:"); i >= 0 {
		return answer[i+1:]
	}
	return answer
}

// RankedScore is one question's measures: hit@3 and reciprocal rank in
// the top 10, of the accepted units (Relevant) and, wider, of those or a
// passage naming an answer in code (Names).
type RankedScore struct{ Hit3, RR10, WideHit3, WideRR10 float64 }

// ScoreRanked measures one ranking of c.
func ScoreRanked(c Case, hits []RankedHit) RankedScore {
	var s RankedScore
	for i, h := range hits {
		if i == 10 {
			break
		}
		rel := c.Relevant(h)
		if rel && s.RR10 == 0 {
			s.RR10 = 1 / float64(i+1)
			if i < 3 {
				s.Hit3 = 1
			}
		}
		if (rel || c.Names(h)) && s.WideRR10 == 0 {
			s.WideRR10 = 1 / float64(i+1)
			if i < 3 {
				s.WideHit3 = 1
			}
		}
	}
	return s
}

// RankedRun is a system's answer to the ranking set's questions.
type RankedRun map[string]RankedScore

// RunRanked asks every case of cs through run.
func RunRanked(ctx context.Context, cs []Case, run func(context.Context, Case) ([]RankedHit, error)) (RankedRun, []string, error) {
	out := RankedRun{}
	var misses []string
	for _, c := range cs {
		hits, err := run(ctx, c)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.ID, err)
		}
		s := ScoreRanked(c, hits)
		out[c.ID] = s
		if s.Hit3 == 0 {
			misses = append(misses, c.ID)
		}
	}
	return out, misses, nil
}

// RankedCell is hit@3 and MRR@10 over n questions.
type RankedCell struct {
	N         int
	Hit3, MRR float64
}

// Aggregate averages run over the cases of cs that keep selects, per
// ecosystem and overall ("all"); wide counts passages naming an answer.
func Aggregate(run RankedRun, cs []Case, keep func(Case) bool, wide bool) map[string]RankedCell {
	out := map[string]RankedCell{}
	for _, c := range cs {
		s, ok := run[c.ID]
		if !ok || !keep(c) {
			continue
		}
		for _, k := range []string{c.Ecosystem, "all"} {
			cell := out[k]
			cell.N++
			if wide {
				cell.Hit3 += s.WideHit3
				cell.MRR += s.WideRR10
			} else {
				cell.Hit3 += s.Hit3
				cell.MRR += s.RR10
			}
			out[k] = cell
		}
	}
	for k, cell := range out {
		cell.Hit3 /= float64(cell.N)
		cell.MRR /= float64(cell.N)
		out[k] = cell
	}
	return out
}

// RankedTable prints rows of aggregates (name → cells) as Markdown:
// hit@3 / MRR@10 (n) per ecosystem and overall.
func RankedTable(names []string, rows map[string]map[string]RankedCell) string {
	ecos := []string{"go", "npm", "python", "rust", "swift"}
	var b strings.Builder
	b.WriteString("| run | all |")
	for _, e := range ecos {
		b.WriteString(" " + e + " |")
	}
	b.WriteString("\n|---|---:|")
	for range ecos {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, name := range names {
		r := rows[name]
		fmt.Fprintf(&b, "| %s |", name)
		for _, e := range append([]string{"all"}, ecos...) {
			c := r[e]
			if c.N == 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %.2f / %.2f (%d) |", c.Hit3, c.MRR, c.N)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// SortedIDs returns the IDs of run in order.
func SortedIDs(run RankedRun) []string {
	ids := make([]string, 0, len(run))
	for id := range run {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
