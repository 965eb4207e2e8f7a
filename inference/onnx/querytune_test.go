package onnx

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/gnosearch/gno/inference"
)

// TestQueryPick checks the layout choice: the faster layout, the other on
// every pickExplore-th query, and a layout that gets slower losing its
// place within a few queries.
func TestQueryPick(t *testing.T) {
	p := &queryPick{cost: [2]float64{26, 17}}
	var got []int
	for range 2 * pickExplore {
		got = append(got, p.choose())
	}
	for i, l := range got {
		want := 1
		if (i+1)%pickExplore == 0 {
			want = 0
		}
		if l != want {
			t.Fatalf("query %d ran on layout %d, want %d (all: %v)", i+1, l, want, got)
		}
	}
	// Both cores get busy: two threads now take 100 ms a query.
	for i := 0; i < 10 && p.choose() == 1; i++ {
		p.record(1, 100)
	}
	if p.cost[1] <= p.cost[0] {
		t.Fatalf("costs %v: a slower two-thread layout kept queries", p.cost)
	}
	if l := p.choose(); l != 0 {
		t.Fatalf("after two-thread queries slowed down, the next query ran on layout %d", l)
	}
}

// TestTuneQueries runs the real model: TuneQueries measures both layouts,
// and a query embedded on either gives the same vector as the embedder's
// own session.
func TestTuneQueries(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one core: nothing to tune")
	}
	c := testCache(t)
	e := openInstalled(t, c, "bge-small-en-v1.5-q", 0)
	ctx := context.Background()
	tu, err := e.TuneQueries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tu.OneThread <= 0 || tu.TwoThreads <= 0 {
		t.Fatalf("tuning measured nothing: %+v", tu)
	}
	if !tu.Identical && tu.Kept {
		t.Fatalf("kept a layout whose vectors differ: %+v", tu)
	}
	t.Logf("%+v", tu)
	if !tu.Kept {
		// Slower here: install the two-thread session anyway to test
		// the query path on it.
		opts := e.s.opts
		opts.Threads, opts.Parallel, opts.NoSpin = 2, 1, true
		q, err := newSession(opts)
		if err != nil {
			t.Fatal(err)
		}
		e.pick.Store(&queryPick{q: q, cost: [2]float64{2, 1}})
	}
	const text = "how do I make a flag every subcommand inherits"
	want, err := e.embedOn(ctx, e.s, []string{text}, inference.Query)
	if err != nil {
		t.Fatal(err)
	}
	p := e.pick.Load()
	two, err := e.embedOn(ctx, p.q, []string{text}, inference.Query)
	if err != nil {
		t.Fatal(err)
	}
	if tu.Identical && !slices.Equal(two[0], want[0]) {
		t.Fatal("two threads gave other bits for another text than the tuning text")
	}
	if dot := cosine(two[0], want[0]); dot < 0.9999 {
		t.Fatalf("two threads: cosine %.6f with one thread's vector", dot)
	}
	n := p.n
	for range pickExplore {
		got, err := e.Embed(ctx, []string{text}, inference.Query)
		if err != nil {
			t.Fatal(err)
		}
		if dot := cosine(got[0], want[0]); dot < 0.9999 {
			t.Fatalf("cosine %.6f with the embedder's own vector", dot)
		}
	}
	if p.n != n+pickExplore {
		t.Fatalf("%d of %d one-text queries went through the layout choice", p.n-n, pickExplore)
	}
	// A batch never takes the query session.
	if _, err := e.Embed(ctx, []string{text, text}, inference.Query); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(ctx, []string{text}, inference.Query); err == nil {
		t.Fatal("a closed embedder embedded a query")
	}
}
