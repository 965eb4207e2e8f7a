package retrieval

import (
	"context"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/vaultgen"
)

// bfs is the test's own shortest-path length over the generated edges.
func bfs(out [][]int, src, dst int) int {
	dist := map[int]int{src: 0}
	q := []int{src}
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		if u == dst {
			return dist[u]
		}
		for _, v := range out[u] {
			if _, ok := dist[v]; !ok {
				dist[v] = dist[u] + 1
				q = append(q, v)
			}
		}
	}
	return -1
}

// pagerank is the test's own PageRank: the textbook power iteration with
// dangling mass spread evenly, run to a fixed 200 rounds.
func pagerank(out [][]int) []float64 {
	n := len(out)
	pr := make([]float64, n)
	for i := range pr {
		pr[i] = 1 / float64(n)
	}
	for r := 0; r < 200; r++ {
		next := make([]float64, n)
		dangling := 0.0
		for i := range out {
			if len(out[i]) == 0 {
				dangling += pr[i]
			}
		}
		for i := range next {
			next[i] = 0.15/float64(n) + 0.85*dangling/float64(n)
		}
		for i, o := range out {
			for _, j := range o {
				next[j] += 0.85 * pr[i] / float64(len(o))
			}
		}
		pr = next
	}
	return pr
}

func TestGeneratedVault(t *testing.T) {
	if testing.Short() {
		t.Skip("5,000 notes")
	}
	pgtest.Home(t, t.TempDir())
	root := t.TempDir()
	v, err := vaultgen.Generate(root, 5000)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.UpdateConfig(ctx, func(c *config.Config) error {
		_, err := c.AddCollection(config.Collection{Name: "vault", Path: root})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	update(t, e)
	uri := func(i int) string { return ref.URI("vault", v.Rel[i]) }
	index := map[string]int{}
	for i := range v.Rel {
		index[uri(i)] = i
	}
	in := v.In()

	st, err := e.Graph().Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	edges := 0
	for _, o := range v.Out {
		edges += len(o)
	}
	if st.Links != v.Links || st.Unresolved != v.Unresolved || st.Edges != edges || st.Orphans != len(v.Orphans) {
		t.Errorf("stats %+v; want links %d unresolved %d edges %d orphans %d", st, v.Links, v.Unresolved, edges, len(v.Orphans))
	}
	rng := rand.New(rand.NewSource(7))
	for k := 0; k < 40; k++ {
		i := rng.Intn(v.N)
		if k < 10 {
			i = k // the hubs
		}
		res, err := e.Graph().Links(ctx, LinksRequest{Ref: uri(i)})
		if err != nil {
			t.Fatal(err)
		}
		gotOut, gotIn := map[int]bool{}, map[int]bool{}
		for _, l := range res.Outgoing {
			if l.Resolved && l.URI != uri(i) {
				gotOut[index[l.URI]] = true
			}
		}
		for _, l := range res.Incoming {
			if l.URI != uri(i) {
				gotIn[index[l.URI]] = true
			}
		}
		if !sameSet(gotOut, v.Out[i]) || !sameSet(gotIn, in[i]) {
			t.Errorf("note %d: out %d (want %d), in %d (want %d)", i, len(gotOut), len(v.Out[i]), len(gotIn), len(in[i]))
		}
		j := rng.Intn(v.N)
		p, err := e.Graph().Path(ctx, PathRequest{Source: uri(i), Target: uri(j), Undirected: false, MaxDepth: 10000})
		if err != nil {
			t.Fatal(err)
		}
		want := bfs(v.Out, i, j)
		switch {
		case want < 0 && p != nil:
			t.Errorf("path %d->%d: found %d links, want none", i, j, p.Length)
		case want >= 0 && (p == nil || p.Length != want):
			t.Errorf("path %d->%d: %+v, want %d links", i, j, p, want)
		case p != nil:
			for s := 0; s+1 < len(p.Path); s++ { // every step is a real edge
				if !contains64(v.Out[index[p.Path[s].URI]], index[p.Path[s+1].URI]) {
					t.Errorf("path %d->%d: step %s -> %s is no link", i, j, p.Path[s].URI, p.Path[s+1].URI)
				}
			}
		}
	}
	// Hubs by in-degree: the scores in order match the test's counts.
	hubs, err := e.Graph().Hubs(ctx, HubsRequest{Metric: MetricInDegree, Limit: 15})
	if err != nil {
		t.Fatal(err)
	}
	deg := make([]int, v.N)
	for i := range in {
		deg[i] = len(in[i])
	}
	sorted := append([]int(nil), deg...)
	sort.Sort(sort.Reverse(sort.IntSlice(sorted)))
	for k, h := range hubs {
		if int(h.Score) != sorted[k] || deg[index[h.URI]] != sorted[k] {
			t.Errorf("in_degree hub %d: %s score %g, want %d", k, h.URI, h.Score, sorted[k])
		}
	}
	// PageRank: the same order and values as the test's own iteration.
	pr := pagerank(v.Out)
	order := make([]int, v.N)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pr[order[a]] > pr[order[b]] })
	phubs, err := e.Graph().Hubs(ctx, HubsRequest{Metric: MetricPageRank, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range phubs {
		if i := index[h.URI]; math.Abs(pr[i]-h.Score) > 1e-5 || math.Abs(pr[order[k]]-h.Score) > 1e-5 {
			t.Errorf("pagerank hub %d: %s %g, want %s %g", k, h.URI, h.Score, uri(order[k]), pr[order[k]])
		}
	}
	orphans, _ := e.Graph().Orphans(ctx, OrphansRequest{Limit: 0})
	if len(orphans) != len(v.Orphans) {
		t.Errorf("orphans %d, want %d", len(orphans), len(v.Orphans))
	}
	for _, o := range orphans {
		if len(v.Out[index[o.URI]]) > 0 || len(in[index[o.URI]]) > 0 {
			t.Errorf("%s is no orphan", o.URI)
		}
	}
}

func sameSet(got map[int]bool, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !got[w] {
			return false
		}
	}
	return true
}

func contains64(a []int, x int) bool {
	for _, v := range a {
		if v == x {
			return true
		}
	}
	return false
}
