package onnx

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gnosearch/gno/inference"
)

// A query is one short text, embedded while a user or an agent waits.
// One intra-op thread per pass is best for batches (passes run side by
// side instead, DefaultThreads), and was best for queries too on the
// AVX-512 VNNI machine of MODELS.md (6.2 ms at 1 thread, 12 ms at 2).
// On an AVX2 machine without VNNI the same int8 query took 26.5 ms at 1
// thread and 16.7 ms at 2 with the other core idle, and 56 against 104
// ms with both cores busy (bench/RESULTS.md). Which one wins depends on
// the CPU and on the load, so a long-lived process measures: TuneQueries
// times both layouts on this machine and keeps a two-thread session when
// it is clearly faster and gives the same bits; from then on each query
// runs on the layout whose recent queries were faster, and every
// pickExplore-th on the other, so a machine that gets busy (where two
// threads lose) moves queries back to one thread within a few queries.
// The load average was tried as the signal and dropped: gno's own queries
// raise it.

// tuneText is a typical 12-word question, timed by TuneQueries.
const tuneText = "does vitamin d supplementation reduce the risk of bone fractures in adults"

// tuneRuns is how many timed passes each layout gets.
const tuneRuns = 7

// tuneGain is how much faster (median) the two-thread session must be
// to be kept: a small gain is not worth a second session's memory.
const tuneGain = 0.85

// retuneAfter is how long a measurement that kept one layout stands: a
// machine busy when the daemon started may be idle later, so a later warm
// measures again, but not on every sync.
const retuneAfter = 10 * time.Minute

// pickExplore: every pickExplore-th query runs on the layout that is not
// the faster one, so its cost stays current.
const pickExplore = 8

// pickAlpha is the weight of the newest query in a layout's running cost.
const pickAlpha = 0.25

// QueryTuning reports what TuneQueries measured and kept.
type QueryTuning struct {
	// OneThread and TwoThreads are the median milliseconds of a query
	// embedding in each layout; zero when not measured.
	OneThread, TwoThreads float64
	// Identical says both layouts gave the same vector, bit for bit.
	Identical bool
	// Kept says one-text queries may now run on two threads.
	Kept bool
}

// TuneQueries measures whether a second session with two intra-op
// threads embeds a one-text query clearly faster than the embedder's own
// on this machine, and keeps it for queries when it does. It is meant for
// long-lived processes (the daemon): it loads the model twice and takes
// about half a second. With one core, or threads set by the user, it does
// nothing; after a measurement that kept one layout, it measures again
// only retuneAfter later.
func (e *Embedder) TuneQueries(ctx context.Context) (QueryTuning, error) {
	var t QueryTuning
	e.tuneMu.Lock()
	defer e.tuneMu.Unlock()
	if runtime.NumCPU() < 2 || e.s.opts.Threads != DefaultThreads() || e.pick.Load() != nil ||
		(!e.tuned.IsZero() && time.Since(e.tuned) < retuneAfter) {
		return t, nil
	}
	e.tuned = time.Now()
	if err := e.s.load(); err != nil {
		return t, err
	}
	opts := e.s.opts
	// Idle threads sleep: a query session runs one pass now and then,
	// and spinning threads would burn a core after each (1 ms slower).
	opts.Threads, opts.Parallel, opts.NoSpin = 2, 1, true
	q, err := newSession(opts)
	if err == nil {
		err = q.load()
	}
	if err != nil {
		return t, err
	}
	var one, two []float64
	var vecs [2][]float32
	for i := 0; i <= tuneRuns; i++ {
		for j, s := range []*session{e.s, q} {
			start := time.Now()
			v, err := e.embedOn(ctx, s, []string{tuneText}, inference.Query)
			if err != nil {
				q.close()
				return t, err
			}
			vecs[j] = v[0]
			ms := float64(time.Since(start).Microseconds()) / 1000
			if i == 0 {
				continue // warm-up
			}
			if s == q {
				two = append(two, ms)
			} else {
				one = append(one, ms)
			}
		}
	}
	t.OneThread, t.TwoThreads = median(one), median(two)
	// The daemon promises the CLI's output byte for byte, so the layouts
	// must give the same bits (they do here: int8 products sum exactly
	// and each row's float work stays on one thread); a CPU where they do
	// not keeps one layout.
	t.Identical = slices.Equal(vecs[0], vecs[1])
	size := querySize(opts.Spec.QueryPrefix, tuneText)
	if t.Identical && t.TwoThreads < tuneGain*t.OneThread && e.pick.CompareAndSwap(nil, &queryPick{q: q, cost: [2]float64{t.OneThread / size, t.TwoThreads / size}}) {
		t.Kept = true
		return t, nil
	}
	q.close()
	return t, nil
}

// queryPick chooses, query by query, between the embedder's session
// (layout 0) and the two-thread one (layout 1).
type queryPick struct {
	q    *session
	mu   sync.Mutex
	cost [2]float64 // running milliseconds per byte of query of each layout
	n    int
}

// querySize is what a query's embedding time is divided by before the
// layouts' costs are compared: its length in bytes with the prefix. A
// pass costs about in proportion to its tokens, and queries differ in
// length by 2× (SciFact claims: 23–44 tokens), so raw times would let
// whichever layout last had a short query look faster.
func querySize(prefix, text string) float64 {
	return float64(len(prefix) + len(text))
}

// choose returns the layout for the next query.
func (p *queryPick) choose() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	best := 0
	if p.cost[1] < p.cost[0] {
		best = 1
	}
	if p.n%pickExplore == 0 {
		return 1 - best
	}
	return best
}

// record adds a query's time per byte (querySize) to its layout's
// running cost.
func (p *queryPick) record(layout int, ms float64) {
	p.mu.Lock()
	p.cost[layout] += pickAlpha * (ms - p.cost[layout])
	p.mu.Unlock()
}

// embed runs one query on the layout chosen for it and records its time.
func (p *queryPick) embed(ctx context.Context, e *Embedder, texts []string) ([][]float32, error) {
	layout := p.choose()
	s := e.s
	if layout == 1 {
		s = p.q
	}
	start := time.Now()
	out, err := e.embedOn(ctx, s, texts, inference.Query)
	if err == nil {
		ms := float64(time.Since(start).Microseconds()) / 1000
		p.record(layout, ms/querySize(s.opts.Spec.QueryPrefix, texts[0]))
	}
	return out, err
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}
