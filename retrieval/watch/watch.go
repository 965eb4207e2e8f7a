// Package watch follows an index's collection folders (and any extra
// files a caller names) through file-system events and reports, after a
// quiet time, what changed: per collection the files to re-index, or the
// whole collection when a folder came or went or events were lost. It is
// the one watch loop of gno: `gno watch` and `gno daemon` both run it.
//
// The package decides what to watch with the index rule (ingest.WalksDir
// for folders, ingest.Indexes for files), so an editor's swap file or a
// change under .git never starts a sync. It does not sync itself: the
// caller's Sync does, through its writer, and must not import the engine.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ingest"
)

// Change is what changed in one collection since the last Sync.
type Change struct {
	Collection string
	// Paths are the changed files (slash-separated, relative to the
	// collection root, sorted); nil means the whole collection.
	Paths []string
}

// Hook is a set of extra files or folders watched beside the collections:
// the config file, the model cache, or a project's lockfiles whose package
// docs want re-indexing (pkgdocs connects there). A file is watched
// through its folder, so atomic replacements are seen; a folder reports
// changes to its direct entries.
type Hook struct {
	// Name labels the hook in logs.
	Name string
	// Paths lists what to watch; it is asked again on every Rescan. A
	// path whose folder does not exist yet is skipped until then.
	Paths func() []string
	// Changed runs after the quiet time with the paths that changed, on
	// the watcher's goroutine (a slow one delays the next sync).
	Changed func(ctx context.Context, paths []string)
}

// Options configure a Watcher.
type Options struct {
	// Collections lists the folders to follow; it is asked again on
	// every Rescan.
	Collections func() []config.Collection
	// Sync is called with what changed after Debounce of quiet (and at
	// least every 10 × Debounce while events keep coming), on the
	// watcher's goroutine. The first call, right after start, names
	// every collection whole: changes made while nothing watched. It
	// comes even when there is no collection (an empty list), so a
	// caller can tell "started, nothing to do" from "not started yet".
	Sync func(ctx context.Context, changes []Change)
	// Debounce is the quiet time before a Sync (default 500 ms).
	Debounce time.Duration
	// Hooks are extra paths to follow.
	Hooks []Hook
	// Log receives warnings (folders that cannot be watched); nil
	// discards them.
	Log *slog.Logger
}

// Watcher follows the folders of a set of collections.
type Watcher struct {
	opt    Options
	fs     *fsnotify.Watcher
	rescan chan struct{}

	mu      sync.Mutex
	cols    map[string]config.Collection // by name
	owner   map[string]string            // watched folder -> collection
	hookDir map[string]bool              // folders watched for hooks only
	failed  int                          // folders that could not be watched

	hookPath [][]string // Hooks[i].Paths(), as of the last setup

	pending  map[string]map[string]bool // collection -> rel paths (nil map: whole)
	hookHits map[int]map[string]bool
	first    time.Time // first event of the pending batch
	synced   bool      // Sync has had its first call (Run's goroutine only)

	// epoch counts the moments the watches may have missed an event:
	// a (re)setup of the watches, events lost by the kernel. A sync of
	// a whole collection begun in an epoch that is still current, plus
	// every change delivered since, is the folder's state.
	epoch atomic.Uint64

	// Flush's barrier: a folder of the watcher's own, watched by the
	// same inotify instance as the collections, so an event in it comes
	// after every event queued before it.
	barrierDir string
	flushReq   chan *flushReq
	waiting    map[string]*flushReq // barrier file -> its Flush
	barrierN   int
}

// flushReq is one Flush waiting for its barrier.
type flushReq struct {
	done chan struct{}
	err  error
}

// New starts watching; Run delivers the changes.
func New(opt Options) (*Watcher, error) {
	if opt.Debounce <= 0 {
		opt.Debounce = 500 * time.Millisecond
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{opt: opt, fs: fw, rescan: make(chan struct{}, 1), pending: map[string]map[string]bool{}, hookHits: map[int]map[string]bool{},
		flushReq: make(chan *flushReq), waiting: map[string]*flushReq{}}
	if dir, err := os.MkdirTemp("", "gno-watch-"); err == nil {
		if fw.Add(dir) == nil {
			w.barrierDir = dir
		} else {
			os.Remove(dir)
		}
	}
	w.setup()
	for name := range w.cols {
		w.pending[name] = nil
	}
	return w, nil
}

// Folders reports how many folders are watched and how many could not be
// (the OS limit on watches, an unreadable folder).
func (w *Watcher) Folders() (watched, failed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.owner), w.failed
}

// Rescan asks Run to read Collections and the hooks' Paths again (after a
// config change). Collections that are new or moved are synced whole. It
// does not block and is safe from any goroutine, a hook included.
func (w *Watcher) Rescan() {
	select {
	case w.rescan <- struct{}{}:
	default:
	}
}

// Epoch is the current watch epoch (see Watcher.epoch): a caller that
// synced a collection whole, having read Epoch before it began, may trust
// the changes delivered since as long as Epoch still returns that value and
// Folders reports none failed.
func (w *Watcher) Epoch() uint64 { return w.epoch.Load() }

// ErrNoBarrier is Flush's error when the watcher cannot prove it has seen
// every event up to the call.
var ErrNoBarrier = errors.New("the watcher cannot flush its events (no barrier folder)")

// Flush delivers now, without the quiet time, every change whose event the
// kernel queued before the call: it creates a file in the watcher's own
// folder and waits for its event (one inotify queue keeps events in
// order), then hands the pending batch to Sync and returns once Sync has.
// A caller that must know the folders' state (`gno update` answered by the
// daemon) calls it instead of walking every file.
func (w *Watcher) Flush(ctx context.Context) error {
	if w.barrierDir == "" {
		return ErrNoBarrier
	}
	r := &flushReq{done: make(chan struct{})}
	select {
	case w.flushReq <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// barrier starts r: its file's event, when it comes, flushes.
func (w *Watcher) barrier(r *flushReq) {
	w.barrierN++
	p := filepath.Join(w.barrierDir, "b"+strconv.Itoa(w.barrierN))
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		r.err = errors.Join(ErrNoBarrier, err)
		close(r.done)
		return
	}
	w.waiting[p] = r
}

// Run delivers changes until ctx ends, then releases the watches.
func (w *Watcher) Run(ctx context.Context) error {
	defer w.fs.Close()
	defer func() {
		if w.barrierDir != "" {
			os.RemoveAll(w.barrierDir)
		}
		for _, r := range w.waiting {
			r.err = ErrNoBarrier
			close(r.done)
		}
	}()
	timer := time.NewTimer(0) // the first Sync: everything, at once
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case r := <-w.flushReq:
			w.barrier(r)
		case ev, ok := <-w.fs.Events:
			if !ok {
				return nil
			}
			if r := w.waiting[ev.Name]; r != nil && ev.Op.Has(fsnotify.Create) {
				delete(w.waiting, ev.Name)
				os.Remove(ev.Name)
				w.flush(ctx)
				close(r.done)
				continue
			}
			if w.event(ev) {
				w.arm(timer)
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.opt.Log.Warn("watch: events lost; syncing every collection", "err", err)
				w.epoch.Add(1)
				w.mu.Lock()
				for name := range w.cols {
					w.pending[name] = nil
				}
				w.mu.Unlock()
				w.arm(timer)
			} else {
				w.opt.Log.Warn("watch", "err", err)
			}
		case <-w.rescan:
			if w.setup() {
				w.arm(timer)
			}
		case <-timer.C:
			w.flush(ctx)
		}
	}
}

// arm restarts the quiet time, unless the batch has waited 10 × Debounce.
func (w *Watcher) arm(t *time.Timer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if w.first.IsZero() {
		w.first = now
	}
	d := w.opt.Debounce
	if rest := w.first.Add(10 * d).Sub(now); rest < d {
		d = max(rest, 0)
	}
	t.Reset(d)
}

// flush hands the pending batch to Sync and the hooks.
func (w *Watcher) flush(ctx context.Context) {
	w.mu.Lock()
	var changes []Change
	for name, rels := range w.pending {
		c := Change{Collection: name}
		if rels != nil {
			for r := range rels {
				c.Paths = append(c.Paths, r)
			}
			sort.Strings(c.Paths)
		}
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Collection < changes[j].Collection })
	hits := w.hookHits
	w.pending, w.hookHits, w.first = map[string]map[string]bool{}, map[int]map[string]bool{}, time.Time{}
	w.mu.Unlock()
	if (len(changes) > 0 || !w.synced) && w.opt.Sync != nil && ctx.Err() == nil {
		w.synced = true
		w.opt.Sync(ctx, changes)
	}
	for i, h := range w.opt.Hooks {
		if len(hits[i]) == 0 || h.Changed == nil || ctx.Err() != nil {
			continue
		}
		var paths []string
		for p := range hits[i] {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		h.Changed(ctx, paths)
	}
}

// setup (re)builds the watches from Collections and the hooks, and marks
// new or moved collections for a whole sync. It reports whether it did.
func (w *Watcher) setup() bool {
	var cols []config.Collection
	if w.opt.Collections != nil {
		cols = w.opt.Collections()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Between removing and adding the watches an event can be missed.
	w.epoch.Add(1)
	for dir := range w.owner {
		w.fs.Remove(dir)
	}
	for dir := range w.hookDir {
		w.fs.Remove(dir)
	}
	old := w.cols
	w.cols, w.owner, w.hookDir, w.failed = map[string]config.Collection{}, map[string]string{}, map[string]bool{}, 0
	marked := false
	for _, c := range cols {
		w.cols[c.Name] = c
		w.addTree(c, c.Path)
		if o, ok := old[c.Name]; old != nil && (!ok || o.Path != c.Path) {
			w.pending[c.Name] = nil
			marked = true
		}
	}
	w.hookPath = make([][]string, len(w.opt.Hooks))
	for i, h := range w.opt.Hooks {
		if h.Paths == nil {
			continue
		}
		w.hookPath[i] = h.Paths()
		for _, p := range w.hookPath[i] {
			dir := p
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				dir = filepath.Dir(p)
			}
			if _, watched := w.owner[dir]; watched || w.hookDir[dir] {
				continue
			}
			if w.fs.Add(dir) == nil {
				w.hookDir[dir] = true
			}
		}
	}
	return marked
}

// addTree watches dir and the folders under it that a sync of c walks.
// Called with mu held.
func (w *Watcher) addTree(c config.Collection, dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if !ingest.WalksDir(c, rel(c.Path, p)) {
			return fs.SkipDir
		}
		if err := w.fs.Add(p); err != nil {
			w.failed++
			if w.failed == 1 {
				w.opt.Log.Warn("watch: cannot watch a folder; it syncs only on whole-collection syncs", "dir", p, "err", err)
			}
			return nil
		}
		w.owner[p] = c.Name
		return nil
	})
	if dir == c.Path {
		if _, ok := w.owner[dir]; !ok {
			// A root that watches nothing (missing, unreadable, a
			// symbolic link the walk does not enter): its changes
			// would go unseen.
			w.failed++
			w.opt.Log.Warn("watch: cannot watch a collection's folder; it syncs only on whole-collection syncs", "collection", c.Name, "dir", dir)
		}
	}
}

// event records one file-system event and reports whether it matters.
func (w *Watcher) event(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	hit := w.hookEvent(ev.Name)
	// The event's own path first: a collection's root reports its own
	// removal or rename (its parent is not watched).
	if name, wasDir := w.owner[ev.Name]; wasDir && (ev.Op.Has(fsnotify.Remove) || ev.Op.Has(fsnotify.Rename)) {
		// A folder went: drop its watches (and those below) and look
		// at the whole collection.
		for dir := range w.owner {
			if dir == ev.Name || within(ev.Name, dir) {
				w.fs.Remove(dir)
				delete(w.owner, dir)
			}
		}
		w.pending[name] = nil
		if ev.Name == w.cols[name].Path {
			// The root itself: nothing of the collection is watched
			// now, so the watcher vouches for nothing until the
			// watches are set up again (a root put back, or one
			// missing, counted as failed).
			w.epoch.Add(1)
			w.failed++
			w.opt.Log.Warn("watch: a collection's folder was removed or renamed", "collection", name, "dir", ev.Name)
			w.Rescan()
		}
		return true
	}
	name, ok := w.owner[filepath.Dir(ev.Name)]
	if !ok {
		return hit
	}
	c := w.cols[name]
	r := rel(c.Path, ev.Name)
	if ev.Op.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if !ingest.WalksDir(c, r) {
				return hit
			}
			// Files may have landed before the watch did.
			w.addTree(c, ev.Name)
			w.pending[name] = nil
			return true
		}
	}
	if !ingest.Indexes(c, r) {
		return hit
	}
	rels, seen := w.pending[name]
	if seen && rels == nil {
		return true // already whole
	}
	if rels == nil {
		rels = map[string]bool{}
		w.pending[name] = rels
	}
	rels[r] = true
	return true
}

// hookEvent records p for the hooks that watch it. Called with mu held.
func (w *Watcher) hookEvent(p string) bool {
	hit := false
	for i, paths := range w.hookPath {
		for _, hp := range paths {
			if p == hp || filepath.Dir(p) == hp {
				if w.hookHits[i] == nil {
					w.hookHits[i] = map[string]bool{}
				}
				w.hookHits[i][p] = true
				hit = true
			}
		}
	}
	return hit
}

// rel is p relative to root, slash-separated ("." for root).
func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// within reports whether p lies under dir.
func within(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != "." && r != ".." && !filepath.IsAbs(r) && !startsDotDot(r)
}

func startsDotDot(r string) bool {
	return len(r) >= 3 && r[:2] == ".." && os.IsPathSeparator(r[2])
}
