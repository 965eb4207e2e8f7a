package daemon

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/watch"
)

// `gno update` through the daemon: the daemon's watcher has seen every
// change to the collections since its last whole sync, so the update syncs
// the files it names instead of looking at every file (a million lstats
// and index rows at 1M documents). A collection the watcher cannot vouch
// for (events lost, watches set up again, a folder that cannot be watched,
// no whole sync yet, a failed sync since) is walked as the CLI would, and
// the result says which and why.

// updateReq is one `gno update` waiting for the worker's loop.
type updateReq struct {
	ctx      context.Context // the client's: Ctrl-C stops the sync
	opt      retrieval.UpdateOptions
	flushErr error // the watcher could not flush: walk everything
	done     chan struct{}
	res      *retrieval.UpdateResult
	err      error
}

// Update runs a client's `gno update` (opt as the CLI built it; not
// Rebuild or GitPull, which the client runs itself) on the daemon's writer,
// after everything the watcher has queued.
func (o *Output) Update(ctx context.Context, opt retrieval.UpdateOptions) (*retrieval.UpdateResult, error) {
	if o.d == nil {
		return nil, errors.New("not a daemon's command")
	}
	return o.d.update(ctx, opt)
}

func (d *daemon) update(ctx context.Context, opt retrieval.UpdateOptions) (*retrieval.UpdateResult, error) {
	start := time.Now()
	w := d.work
	// Every event the kernel queued before now reaches the worker's
	// queue first, so a file saved just before `gno update` is in it.
	// The worker holds that queue for this update meanwhile: woken by
	// the flush, it would otherwise sync the changes itself before the
	// update is queued, and the update would report nothing changed.
	w.mu.Lock()
	w.flushing++
	w.mu.Unlock()
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	flushErr := d.watcher.Flush(fctx)
	cancel()
	if d.afterFlush != nil {
		d.afterFlush()
	}
	r := &updateReq{ctx: ctx, opt: opt, flushErr: flushErr, done: make(chan struct{})}
	w.mu.Lock()
	w.flushing--
	if ctx.Err() == nil {
		w.updates = append(w.updates, r)
	}
	w.mu.Unlock()
	w.signal()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		// The worker sees ctx too and stops its sync; wait for it so
		// no write outlives the command.
		<-r.done
	}
	if r.res != nil {
		r.res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	}
	return r.res, r.err
}

// requeue puts changes taken from the queue back. Called without mu.
func (w *worker) requeue(changes []watch.Change) {
	if len(changes) == 0 {
		return
	}
	w.mu.Lock()
	for _, c := range changes {
		w.merge(c)
	}
	w.mu.Unlock()
}

// answer runs one update on the worker's goroutine (no other sync runs).
func (w *worker) answer(ctx context.Context, r *updateReq) {
	defer close(r.done)
	w.set("updating for a client")
	uctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	r.res, r.err = w.update(uctx, r)
	if changed(r.res) {
		w.mu.Lock()
		w.needWarm, w.needPostings = true, true
		if !w.d.opt.NoEmbed {
			w.needEmbed = true
		}
		w.lastSync = time.Now()
		w.lastWhat, w.lastErr = summary(r.res), ""
		w.mu.Unlock()
	}
}

func (w *worker) update(ctx context.Context, r *updateReq) (*retrieval.UpdateResult, error) {
	cfg := w.e.Config()
	cols := cfg.Collections
	if r.opt.Collection != "" {
		c, ok := cfg.Collection(r.opt.Collection)
		if !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", r.opt.Collection)
		}
		cols = []config.Collection{*c}
	}
	wr, err := w.e.Writer(ctx, r.opt.LockWait)
	if err != nil {
		return nil, err
	}
	defer wr.Close()
	w.checkWrites(ctx)
	defer w.recordWrites(ctx) // deferred after Close: runs before it
	_, failed := w.d.watcher.Folders()
	epoch := w.d.watcher.Epoch()
	// The queued changes of these collections are this update's.
	w.mu.Lock()
	queued := map[string]map[string]bool{}
	isQueued := map[string]bool{}
	for _, c := range cols {
		if p, ok := w.pending[c.Name]; ok {
			queued[c.Name], isQueued[c.Name] = p, true
			delete(w.pending, c.Name)
		}
	}
	trusted, distrust := map[string]bool{}, map[string]string{}
	for _, c := range cols {
		e, ok := w.trusted[c.Name]
		trusted[c.Name], distrust[c.Name] = ok && e == epoch, w.distrust[c.Name]
	}
	w.mu.Unlock()

	res := &retrieval.UpdateResult{Daemon: &retrieval.DaemonSync{Watched: []string{}}}
	var errs []string
	// What is not synced goes back to the worker's queue: the
	// changes taken out above are known nowhere else.
	putBack := func(rest []config.Collection) {
		for _, c := range rest {
			if !isQueued[c.Name] {
				continue
			}
			back := watch.Change{Collection: c.Name}
			if queued[c.Name] != nil {
				back.Paths = keys(queued[c.Name])
			}
			w.requeue([]watch.Change{back})
		}
	}
	for i, c := range cols {
		if ctx.Err() != nil {
			putBack(cols[i:])
			return nil, ctx.Err()
		}
		why := walkReason(r, c, failed, trusted[c.Name], distrust[c.Name], isQueued[c.Name] && queued[c.Name] == nil)
		opt := retrieval.UpdateOptions{Collection: c.Name, RunUpdateCmd: r.opt.RunUpdateCmd, Progress: r.opt.Progress}
		if why == "" {
			opt.Only, opt.CountAll, opt.RunUpdateCmd = keys(queued[c.Name]), true, false
		}
		e0 := w.d.watcher.Epoch()
		one, err := wr.Update(ctx, opt)
		w.mu.Lock()
		w.trust(c.Name, why != "", e0, err)
		w.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				// Ctrl-C: this collection's sync was cut short and the
				// later ones never ran.
				putBack(cols[i:])
				return nil, err
			}
			putBack(cols[i : i+1])
			errs = append(errs, gnoerr.Public(err))
			continue
		}
		if why == "" {
			res.Daemon.Watched = append(res.Daemon.Watched, c.Name)
		} else {
			if res.Daemon.Walked == nil {
				res.Daemon.Walked = map[string]string{}
			}
			res.Daemon.Walked[c.Name] = why
		}
		res.Collections = append(res.Collections, one.Collections...)
		res.Generation = max(res.Generation, one.Generation)
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return res, nil
}

// walkReason says why collection c must be walked ("" if the watcher's
// changes are enough).
func walkReason(r *updateReq, c config.Collection, failed int, trusted bool, distrust string, whole bool) string {
	switch {
	case r.flushErr != nil:
		return "the watcher could not hand over its events: " + r.flushErr.Error()
	case failed > 0:
		return fmt.Sprintf("%d folders cannot be watched (the OS limit on watches?)", failed)
	case !trusted && distrust != "":
		return distrust
	case !trusted:
		return "no whole sync since the watches were set up, events were lost or a sync failed"
	case whole:
		return "the watcher saw a folder come or go"
	case r.opt.RunUpdateCmd && c.UpdateCmd != "":
		return "the collection has an update command"
	}
	return remoteFS(c.Path)
}

// keys is the sorted keys of m; non-nil, so an empty set syncs no file.
func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
