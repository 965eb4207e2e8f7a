package web

import (
	"context"
	"runtime"
	"runtime/debug"
	"time"
)

// GraphStater is a GraphSource that can also say cheaply whether its
// graph may have changed: a state that changes with every write to the
// index (the engine's write counter), where GraphVersion may have to
// read the whole graph to answer.
type GraphStater interface {
	GraphState(ctx context.Context) (string, error)
}

// giveWay is the layout's yield for a job: while nobody waits for the
// job and other requests are in flight, it waits (polling every
// millisecond), so a background layout only runs in the gaps between
// requests; it stops waiting when ctx ends.
func (h *GraphHandler) giveWay(ctx context.Context, job *sceneJob) {
	for job.waiters.Load() == 0 && h.busy() && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	// Between requests, still let the handlers' goroutines run first.
	runtime.Gosched()
}

// Watch keeps the scene laid out for the source's current graph until
// ctx ends: every interval it reads the source's state (GraphStater, or
// GraphVersion), and once a change has held for a whole interval (a sync
// writes in batches; a layout per batch would be wasted) it lays the
// new graph out in the background (Warm), giving way to requests. A
// graph that did not change (a write to text only, for the engine's
// source) costs no layout: its version is the same. Until a request
// has asked for the scene (ServeHTTP), only the first graph is laid
// out: after a sync the graph is read again only for a graph view
// that was opened, or by the next request itself. A layout that failed
// is tried again at the next change of the state, not at every look
// (each try reads the whole graph); a request in between lays out
// itself.
func (h *GraphHandler) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	// seen is the state of the last look, warmed the last laid out,
	// failed the last whose layout failed.
	var seen, warmed, failed string
	type result struct {
		state string
		ok    bool
	}
	warming := make(chan result, 1)
	busy := false
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-warming:
			busy = false
			if r.ok {
				warmed = r.state
			} else {
				failed = r.state
			}
			continue
		case <-t.C:
		}
		st, err := h.state(ctx)
		if err != nil {
			h.log.Debug("graph view: state", "err", err)
			continue
		}
		what := "warming"
		switch {
		case st != seen:
			seen, what = st, "settling" // changed: wait one more interval
		case st == warmed:
			what = "warmed"
		case busy:
			what = "busy"
		case st == failed:
			what = "failed"
		case warmed != "" && !h.asked.Load():
			what = "unasked"
		}
		if h.watched != nil {
			h.watched(st, what)
		}
		if what != "warming" {
			continue
		}
		busy = true
		go func() {
			start := time.Now()
			err := h.Warm(ctx)
			if err != nil {
				if ctx.Err() == nil {
					h.log.Warn("graph view: warm", "err", err)
				}
			} else {
				h.log.Debug("graph view: warm", "took", time.Since(start))
				// A warm reads the whole link graph: at a million notes it
				// leaves ~0.5 GB of garbage above the ~0.7 GB a daemon keeps,
				// which the runtime would return to the system only slowly
				// (the daemon's RSS stayed at its 2.1 GB peak). Return it now,
				// once per changed graph (bench/RESULTS.md, issue 30).
				debug.FreeOSMemory()
			}
			warming <- result{st, err == nil}
		}()
	}
}

// state is the source's cheap state, or its version.
func (h *GraphHandler) state(ctx context.Context) (string, error) {
	if s, ok := h.src.(GraphStater); ok {
		return s.GraphState(ctx)
	}
	return h.src.GraphVersion(ctx)
}
