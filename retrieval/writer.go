package retrieval

import (
	"context"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/store"
)

// Writer is the index's writer lock, held as a value: every change to the
// index, its config or the user's files happens through one, and only one
// Writer exists per index at a time, across processes (an OS file lock).
// Like *sql.Tx it is taken, used and closed:
//
//	w, err := e.Writer(ctx, 0)
//	if err != nil {
//		return err // gnoerr.Locked: another writer holds it
//	}
//	defer w.Close()
//	res, err := w.Update(ctx, retrieval.UpdateOptions{})
//
// A Writer may be handed to another goroutine (a background job) that
// closes it when done; its methods must not run concurrently.
type Writer struct {
	e    *Engine
	once sync.Once
	lock store.Lock
}

// Writer takes the index's writer lock. With wait > 0 it retries until
// wait has passed or ctx ends; otherwise a held lock gives gnoerr.Locked
// at once.
func (e *Engine) Writer(ctx context.Context, wait time.Duration) (*Writer, error) {
	lock, err := store.LockBackend(ctx, e.location(), wait)
	if err != nil {
		return nil, err
	}
	return &Writer{e: e, lock: lock}, nil
}

// Close releases the lock. It is safe to call more than once.
func (w *Writer) Close() error {
	var err error
	w.once.Do(func() { err = w.lock.Unlock() })
	return err
}

// Notes returns the note part bound to this writer: its writes run under
// the lock w holds instead of taking it.
func (w *Writer) Notes() *Notes { return &Notes{e: w.e, w: w} }

// UpdateConfig applies fn to the config, re-reading the file first so
// concurrent processes do not lose each other's edits, and saves it when
// fn succeeds.
func (w *Writer) UpdateConfig(fn func(*config.Config) error) error {
	e := w.e
	cfg, err := config.Load(e.Paths.ConfigFile)
	if err != nil {
		return err
	}
	if err := fn(cfg); err != nil {
		return err
	}
	if err := cfg.Save(e.Paths.ConfigFile); err != nil {
		return err
	}
	e.mu.Lock()
	e.cfg = cfg
	e.mu.Unlock()
	e.forgetModels() // models may have changed
	return nil
}

// ReloadConfig reads the config file again, for a long-running process
// whose index another process configures (a collection added from the
// CLI), and forgets the opened models and their remembered failures, so
// the next request opens what the config names with the models installed
// now. The file is only read: writes go through UpdateConfig.
func (w *Writer) ReloadConfig() error {
	e := w.e
	cfg, err := config.Load(e.Paths.ConfigFile)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.cfg = cfg
	e.mu.Unlock()
	e.forgetModels()
	return nil
}

// Cleanup drops documents of collections no longer configured, optimises
// the FTS indexes and vacuums the database.
func (w *Writer) Cleanup(ctx context.Context) (int, error) {
	st, err := w.e.store(ctx)
	if err != nil {
		return 0, err
	}
	var keep []string
	for _, c := range w.e.Config().Collections {
		keep = append(keep, c.Name)
	}
	// Earlier texts (kept for diffs) go first, so the vacuum reclaims them.
	if err := st.DropVersions(ctx); err != nil {
		return 0, err
	}
	return st.Cleanup(ctx, keep)
}

// BuildPostings builds the word index's search postings when they are
// missing, and with behind when many rows changed since they were built
// (store.Backend.BuildPostings): the end of a first update, a daemon's
// idle time. It reports whether it built.
//
// It takes no writer lock: the store reads the word index in a snapshot
// and installs in short transactions of its own, recording the rows a
// sync changes meanwhile, and a later build supersedes an earlier one.
// Holding the writer would make every sync and client write wait for the
// whole build (about a minute at a million documents).
func BuildPostings(ctx context.Context, e *Engine, behind bool, progress func(done, total int)) (bool, error) {
	st, err := e.store(ctx)
	if err != nil {
		return false, err
	}
	return st.BuildPostings(ctx, behind, progress)
}

// PostingsNeeded says, without taking the writer lock, whether
// BuildPostings would build (false for a backend that keeps no postings
// of its own): callers ask first, so that an update or a daemon's idle
// turn with nothing to build takes no lock.
func PostingsNeeded(ctx context.Context, e *Engine, behind bool) (bool, error) {
	st, err := e.store(ctx)
	if err != nil {
		return false, err
	}
	n, ok := st.(interface {
		PostingsNeeded(ctx context.Context, behind bool) (bool, error)
	})
	if !ok {
		return false, nil
	}
	return n.PostingsNeeded(ctx, behind)
}

// Writer waits of the one-shot calls below, which take the lock, run one
// write and release it.
const (
	configLockWait  = 10 * time.Second
	cleanupLockWait = 30 * time.Second
	embedLockWait   = time.Minute
)

// UpdateConfig is Writer.UpdateConfig under a writer taken for the call
// (waiting up to 10 s for another writer).
func (e *Engine) UpdateConfig(ctx context.Context, fn func(*config.Config) error) error {
	w, err := e.Writer(ctx, configLockWait)
	if err != nil {
		return err
	}
	defer w.Close()
	return w.UpdateConfig(fn)
}

// Update is Writer.Update under a writer taken for the call (waiting up
// to opt.LockWait for another writer).
func (e *Engine) Update(ctx context.Context, opt UpdateOptions) (*UpdateResult, error) {
	w, err := e.Writer(ctx, opt.LockWait)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Update(ctx, opt)
}

// Cleanup is Writer.Cleanup under a writer taken for the call (waiting
// up to 30 s for another writer).
func (e *Engine) Cleanup(ctx context.Context) (int, error) {
	w, err := e.Writer(ctx, cleanupLockWait)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	return w.Cleanup(ctx)
}

// Embed is Writer.Embed under a writer taken for the call (waiting up to
// a minute for another writer). The model is opened and checked first, so
// a broken model is reported without waiting for the lock.
func (e *Engine) Embed(ctx context.Context, opt EmbedOptions) (*EmbedResult, error) {
	start := time.Now()
	emb, err := e.models.checkedEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	w, err := e.Writer(ctx, embedLockWait)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.embed(ctx, emb, opt, start)
}
