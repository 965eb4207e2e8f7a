package daemon

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/watch"
)

// The worker is the daemon's one writer: it syncs what the watcher
// reports, then embeds the backlog in slices, then warms the models, one
// thing at a time, each under its own Writer. Between slices the lock is
// free, so a CLI write (gno update, gno tag) waiting for it gets in.

// embedSlice is about how long one embedding run holds the lock (it ends
// after the batch that passes it); the CLI's writers wait up to a minute.
const embedSlice = 20 * time.Second

// lockedRetry is how long the worker waits when another process holds
// the writer lock.
const lockedRetry = 2 * time.Second

type worker struct {
	d    *daemon
	e    *retrieval.Engine
	wake chan struct{}

	mu        sync.Mutex
	pending   map[string]map[string]bool // collection -> paths; nil: whole
	first     bool                       // the first sync runs update commands, as gno update
	fed       bool                       // the watcher's first Sync (every collection whole) has come
	state     string
	needEmbed bool
	embedOff  string // why embedding stopped (no model…), until the config changes
	needWarm  bool
	// needPostings: a sync changed the index since the search postings
	// were last looked at (postings).
	needPostings bool
	lastSync     time.Time
	lastWhat     string
	lastErr      string
	warming      atomic.Bool
	warmAgain    atomic.Bool

	// trusted: collection -> the watch epoch in which its last whole
	// sync began and succeeded. While the epoch is current (and every
	// folder is watched), that sync plus the changes delivered since is
	// the folder's state: `gno update` needs no walk.
	trusted map[string]uint64
	// writes is the store's writes counter after the daemon's last
	// write ("" before the first): under the writer lock a different
	// value means another process wrote to the index (an interrupted
	// rebuild, a restored file, a store switch), which no watcher saw.
	writes string
	// distrust says why a collection lost its trust, when the generic
	// reason would mislead.
	distrust map[string]string
	// updates are `gno update`s waiting for the loop (updates.go).
	updates []*updateReq
	// flushing counts the updates flushing the watcher, not yet in
	// updates: the queue is theirs, the loop leaves it alone.
	flushing int
	// rested, when set (tests), receives the state the loop rests in
	// each time it runs out of work.
	rested chan<- string
}

func newWorker(d *daemon) *worker {
	return &worker{d: d, e: d.e, wake: make(chan struct{}, 1), pending: map[string]map[string]bool{},
		first: true, state: "starting", needEmbed: !d.opt.NoEmbed, needWarm: true, needPostings: true, trusted: map[string]uint64{},
		distrust: map[string]string{}}
}

func (w *worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// enqueue is the watcher's Sync: it merges the changes into the queue.
func (w *worker) enqueue(_ context.Context, changes []watch.Change) {
	w.mu.Lock()
	w.fed = true
	for _, c := range changes {
		w.merge(c)
	}
	w.mu.Unlock()
	w.signal()
}

func (w *worker) merge(c watch.Change) {
	cur, queued := w.pending[c.Collection]
	switch {
	case c.Paths == nil || queued && cur == nil:
		w.pending[c.Collection] = nil
	default:
		if cur == nil {
			cur = map[string]bool{}
			w.pending[c.Collection] = cur
		}
		for _, p := range c.Paths {
			cur[p] = true
		}
	}
}

// rewarm is called after a config or model change: models were
// forgotten, and embedding may be possible again.
func (w *worker) rewarm() {
	w.mu.Lock()
	w.needWarm = true
	if !w.d.opt.NoEmbed {
		w.needEmbed, w.embedOff = true, ""
	}
	w.mu.Unlock()
	w.signal()
}

func (w *worker) set(state string) {
	w.mu.Lock()
	w.state = state
	w.mu.Unlock()
}

func (w *worker) run(ctx context.Context) {
	for ctx.Err() == nil {
		w.mu.Lock()
		if len(w.updates) == 0 && w.flushing > 0 {
			// An update is flushing the watcher: what comes into the
			// queue is its to sync; wait until it is queued.
			w.mu.Unlock()
			w.tellRested(ctx, "held for an update")
			select {
			case <-ctx.Done():
			case <-w.wake:
			}
			continue
		}
		var changes []watch.Change
		for col, paths := range w.pending {
			c := watch.Change{Collection: col}
			if paths != nil {
				for p := range paths {
					c.Paths = append(c.Paths, p)
				}
				sort.Strings(c.Paths)
			}
			changes = append(changes, c)
		}
		w.pending = map[string]map[string]bool{}
		embed, warm, postings := w.needEmbed, w.needWarm, w.needPostings
		var up *updateReq
		if len(w.updates) > 0 {
			up, w.updates = w.updates[0], w.updates[1:]
		}
		w.mu.Unlock()
		switch {
		case up != nil:
			// An update syncs what is queued for its collections
			// itself; the rest goes back to the queue.
			w.requeue(changes)
			w.answer(ctx, up)
		case len(changes) > 0:
			w.sync(ctx, changes)
		case postings:
			w.postings(ctx)
		case embed:
			w.embed(ctx)
		case warm:
			w.mu.Lock()
			w.needWarm = false
			w.mu.Unlock()
			w.warm(ctx)
		default:
			// Out of work, but idle only once the watcher's first
			// Sync has come: its goroutine may not have run yet (a
			// busy machine), and until it has, the daemon has not
			// looked at the folders at all.
			w.mu.Lock()
			rest := "starting"
			if w.fed {
				rest = "idle"
			}
			w.state = rest
			w.mu.Unlock()
			w.tellRested(ctx, rest)
			w.rest(ctx)
		}
	}
}

// warm loads the models and the vector graph beside the loop: it needs
// no lock, and a sync must not wait for a model to load. A warm asked for
// while one runs follows it.
func (w *worker) warm(ctx context.Context) {
	if !w.warming.CompareAndSwap(false, true) {
		w.warmAgain.Store(true)
		return
	}
	go func() {
		start := time.Now()
		qt := w.e.Models().Warm(ctx)
		w.d.log.Debug("warm", "took", time.Since(start))
		if qt.OneThread > 0 {
			w.d.log.Debug("query layout", "one_thread_ms", qt.OneThread, "two_threads_ms", qt.TwoThreads,
				"identical", qt.Identical, "two_kept", qt.Kept)
		}
		w.warming.Store(false)
		if w.warmAgain.Swap(false) {
			w.mu.Lock()
			w.needWarm = true
			w.mu.Unlock()
			w.signal()
		}
	}()
}

// sync runs the queued syncs, one collection per writer.
func (w *worker) sync(ctx context.Context, changes []watch.Change) {
	sort.Slice(changes, func(i, j int) bool { return changes[i].Collection < changes[j].Collection })
	w.mu.Lock()
	first := w.first
	w.first = false
	w.mu.Unlock()
	for i, c := range changes {
		if ctx.Err() != nil {
			return
		}
		w.set("syncing " + c.Collection)
		wr, err := w.e.Writer(ctx, lockedRetry)
		if err != nil {
			// Another writer: try again soon with what is left.
			w.mu.Lock()
			for _, rest := range changes[i:] {
				w.merge(rest)
			}
			w.mu.Unlock()
			if gnoerr.CodeOf(err) != gnoerr.Locked {
				w.d.log.Warn("sync postponed", "err", err)
			}
			w.pause(ctx, lockedRetry)
			return
		}
		w.checkWrites(ctx)
		epoch := w.d.watcher.Epoch()
		res, err := wr.Update(ctx, retrieval.UpdateOptions{Collection: c.Collection, Only: c.Paths, RunUpdateCmd: first && c.Paths == nil})
		w.recordWrites(ctx)
		wr.Close()
		w.mu.Lock()
		w.trust(c.Collection, c.Paths == nil, epoch, err)
		w.lastSync = time.Now()
		w.lastWhat, w.lastErr = summary(res), ""
		if err != nil && ctx.Err() == nil {
			w.lastErr = gnoerr.Public(err)
		}
		if changed(res) {
			w.needWarm, w.needPostings = true, true
			if !w.d.opt.NoEmbed {
				w.needEmbed = true
			}
		}
		w.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			w.d.log.Info("sync aborted: the daemon is stopping", "collection", c.Collection)
		case gnoerr.CodeOf(err) == gnoerr.NotFound:
			w.d.log.Info("collection gone from the config", "collection", c.Collection)
		case err != nil:
			w.d.log.Warn("sync", "collection", c.Collection, "err", err)
		case changed(res):
			w.d.log.Info("synced", "collection", c.Collection, "files", len(c.Paths), "result", summary(res))
		}
	}
}

// foreignWrites is why a collection is walked after another process
// wrote to the index.
const foreignWrites = "another process wrote to the index since the daemon's last sync"

// checkWrites, called under the writer lock before the daemon writes,
// drops every collection's trust when another process wrote to the index
// since the daemon's last write (recordWrites).
func (w *worker) checkWrites(ctx context.Context) {
	cur, err := w.e.Graph().State(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || w.writes != "" && cur != w.writes {
		for col := range w.trusted {
			w.distrust[col] = foreignWrites
		}
		clear(w.trusted)
	}
	w.writes = cur
}

// recordWrites, called under the writer lock after the daemon wrote,
// notes the writes counter its own writes left.
func (w *worker) recordWrites(ctx context.Context) {
	// Even after Ctrl-C: what was written is known only now.
	cur, err := w.e.Graph().State(context.WithoutCancel(ctx))
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		// Unknown: the next check cannot tell, so nothing is trusted.
		clear(w.trusted)
		cur = ""
	}
	w.writes = cur
}

// trust records a sync's outcome for the update fast path: a whole sync
// that succeeded makes the collection trusted in the epoch it began in;
// any failed sync (its changed files not written) makes it untrusted, so
// the next `gno update` walks it. Called with mu held.
func (w *worker) trust(col string, whole bool, epoch uint64, err error) {
	switch {
	case err != nil:
		delete(w.trusted, col)
	case whole:
		w.trusted[col] = epoch
		delete(w.distrust, col)
	}
}

func changed(res *retrieval.UpdateResult) bool {
	if res == nil {
		return false
	}
	for _, c := range res.Collections {
		if c.Changed() {
			return true
		}
	}
	return false
}

func summary(res *retrieval.UpdateResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Collections {
		parts = append(parts, fmt.Sprintf("%s: %d added, %d updated, %d removed", c.Collection, c.Added, c.Updated, c.Removed))
	}
	return strings.Join(parts, "; ")
}

// embed embeds for one slice of time, then lets the lock go.
func (w *worker) embed(ctx context.Context) {
	wr, err := w.e.Writer(ctx, 0)
	if err != nil {
		w.pause(ctx, lockedRetry)
		return
	}
	w.set("embedding")
	w.checkWrites(ctx)
	// The slice ends between batches, never inside one (a batch on a
	// busy machine can take longer than a slice: cut inside, it would
	// never commit). New work (a file changed) ends it early too, so a
	// note is searchable soon even during a long backlog.
	sctx, cancel := context.WithCancel(ctx)
	deadline := time.Now().Add(embedSlice)
	var woke atomic.Bool
	done := make(chan struct{})
	go func() {
		select {
		case <-w.wake:
			woke.Store(true)
		case <-done:
		}
	}()
	res, err := wr.Embed(sctx, retrieval.EmbedOptions{Progress: func(int, int) {
		if woke.Load() || time.Now().After(deadline) {
			cancel()
		}
	}})
	cut := sctx.Err() != nil
	close(done)
	cancel()
	w.recordWrites(ctx)
	wr.Close()
	if woke.Load() {
		w.signal() // the loop's: syncs are waiting
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case ctx.Err() != nil:
	case err == nil:
		w.needEmbed = false
		w.needWarm = true
		if res.Embedded > 0 {
			w.d.log.Info("embedded the backlog", "chunks", res.Embedded, "model", res.Model, "total", res.Total)
		}
	case cut:
		if res != nil {
			w.d.log.Info("embedding", "chunks", res.Embedded, "model", res.Model)
		}
	default:
		// No model, a broken one: stop until the config or the model
		// cache changes.
		w.needEmbed, w.embedOff = false, gnoerr.Public(err)
		w.d.log.Warn("embedding off", "err", err)
	}
}

// postings builds the word index's search postings when idle, if they
// are missing or far behind the index (retrieval.BuildPostings): searches
// answer the rows changed since a build from a delta, which grows with
// every sync until a rebuild. A build takes no writer lock (it reads a
// snapshot and installs in short transactions), so clients' writes go on
// beside it; the daemon's own syncs wait for this loop's next turn.
func (w *worker) postings(ctx context.Context) {
	// Asked first: most syncs leave nothing to build, and the status
	// must not show a build that does not happen.
	need, err := retrieval.PostingsNeeded(ctx, w.e, true)
	if err != nil || !need {
		if err != nil && ctx.Err() == nil {
			w.d.log.Warn("search postings not checked", "err", err)
		}
		w.mu.Lock()
		w.needPostings = false
		w.mu.Unlock()
		return
	}
	w.mu.Lock()
	w.needPostings = false
	w.mu.Unlock()
	w.set("building search postings")
	start := time.Now()
	built, err := retrieval.BuildPostings(ctx, w.e, true, nil)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		w.d.log.Warn("search postings not built", "err", err)
	case built:
		w.d.log.Info("built the search postings", "took", time.Since(start))
		// A build at a million documents leaves ~1 GB of garbage that
		// the runtime would return only slowly: the settled daemon stayed
		// at 2.2 GB RSS instead of 1.5 (bench/RESULTS.md, issue 30).
		debug.FreeOSMemory()
	}
}

// tellRested hands the state the loop rests in to a test listening on
// rested; a test that stopped listening cannot block the worker past its
// context.
func (w *worker) tellRested(ctx context.Context, state string) {
	if w.rested == nil {
		return
	}
	select {
	case w.rested <- state:
	case <-ctx.Done():
	}
}

// pause waits d (another writer holds the lock).
func (w *worker) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// releaseEvery is how often a resting daemon drops the vector graph's
// file pages (retrieval.Models.ReleasePages).
var releaseEvery = 2 * time.Minute

// rest waits for work, and every releaseEvery drops the graph's mapped
// pages (1M vectors' graph is ~0.5 GB of RSS after a few searches: page
// cache counted as the daemon's, bench/RESULTS.md), only when no search
// asked for it since the last tick and never while it loads (a wake or
// a shutdown is answered at once). A search maps again what it reads.
func (w *worker) rest(ctx context.Context) {
	t := time.NewTicker(releaseEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
			return
		case <-t.C:
			w.e.Models().ReleasePages(releaseEvery)
		}
	}
}
