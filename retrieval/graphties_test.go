package retrieval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRankTiesIgnoreHistory: notes equal in PageRank (identical two-way
// pairs, each fed by a star of the same size) come out in the same order
// whether the ranks were started from an earlier graph's (which leaves
// equal notes ~1e-10 apart) or from the uniform start: hubs by
// PageRank, related notes (rank breaks their score ties) and a sampled
// whole graph (the highest ranks) order them by id.
func TestRankTiesIgnoreHistory(t *testing.T) {
	ctx := context.Background()
	defer func(m int) { maxWholeDocs = m }(maxWholeDocs)
	const groups, leaves = 8, 3
	// Notes a<g>, b<g>, l<g>_<i> and the centre c.
	var names []string
	for g := range groups {
		names = append(names, fmt.Sprintf("a%d", g), fmt.Sprintf("b%d", g))
		for i := range leaves {
			names = append(names, fmt.Sprintf("l%d_%d", g, i))
		}
	}
	names = append(names, "c")
	links := func(name string) []string {
		var g, i int
		switch {
		case name == "c":
			var out []string
			for g := range groups {
				out = append(out, fmt.Sprintf("a%d", g))
			}
			return out
		case name[0] == 'a':
			fmt.Sscanf(name, "a%d", &g)
			return []string{fmt.Sprintf("b%d", g)}
		case name[0] == 'b':
			fmt.Sscanf(name, "b%d", &g)
			return []string{fmt.Sprintf("a%d", g)}
		default:
			fmt.Sscanf(name, "l%d_%d", &g, &i)
			return []string{fmt.Sprintf("a%d", g)}
		}
	}
	note := func(to []string) string {
		var b strings.Builder
		b.WriteString("# Note\n\n")
		for _, n := range to {
			fmt.Fprintf(&b, "[[%s]] ", n)
		}
		return b.String()
	}
	broken := 0 // histories after which equal notes' ranks differ
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 13))
		// The history: random links among the same notes, ranked.
		files := map[string]string{}
		for _, n := range names {
			var to []string
			for range rng.IntN(4) {
				to = append(to, names[rng.IntN(len(names))])
			}
			files[n+".md"] = note(to)
		}
		e, root := newEngine(t, files)
		update(t, e)
		warm := e.Graph()
		if _, err := warm.Hubs(ctx, HubsRequest{Metric: MetricPageRank}); err != nil {
			t.Fatal(err)
		}
		// Now the tie-rich graph, ranked from the history's ranks.
		for _, n := range names {
			write(t, root, n+".md", note(links(n)))
		}
		update(t, e)
		cold := &Graph{e: e}
		what := fmt.Sprintf("seed %d", seed)

		var hubs [2][]string
		for k, gr := range []*Graph{warm, cold} {
			hs, err := gr.Hubs(ctx, HubsRequest{Metric: MetricPageRank, Limit: groups + groups/2})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				hubs[k] = append(hubs[k], h.URI)
			}
		}
		if !slices.Equal(hubs[0], hubs[1]) {
			t.Errorf("%s: hubs by PageRank %v after an earlier graph, %v from the uniform start", what, hubs[0], hubs[1])
		}

		var related [2][]string
		for k, gr := range []*Graph{warm, cold} {
			r, err := gr.Related(ctx, RelatedRequest{Ref: "notes/c.md", Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range r.Related {
				related[k] = append(related[k], n.URI)
			}
		}
		if !slices.Equal(related[0], related[1]) {
			t.Errorf("%s: related %v after an earlier graph, %v from the uniform start", what, related[0], related[1])
		}

		maxWholeDocs = groups / 2
		var sample [2][]string
		for k, gr := range []*Graph{warm, cold} {
			gr.whole.g = nil
			w, err := gr.Whole(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range w.Input.Docs {
				sample[k] = append(sample[k], d.ID)
			}
		}
		maxWholeDocs = 25000
		if !slices.Equal(sample[0], sample[1]) {
			t.Errorf("%s: sample %v after an earlier graph, %v from the uniform start", what, sample[0], sample[1])
		}

		// The test is only worth something if the ties did break.
		g, _, err := warm.linkGraph(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pr := warm.pageRank(g)
		var as []float64
		for _, id := range g.Nodes() {
			if g.OutDegree(id) == 1 && g.InDegree(id) == leaves+2 {
				as = append(as, g.Rank(pr, id))
			}
		}
		if len(as) != groups {
			t.Fatalf("%s: %d notes like a<g>, want %d", what, len(as), groups)
		}
		if slices.Min(as) != slices.Max(as) {
			broken++
		}
	}
	if broken == 0 {
		t.Fatal("the ranks of equal notes stayed equal after every history: the test did not exercise ties")
	}
}
