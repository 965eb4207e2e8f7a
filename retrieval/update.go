package retrieval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/store"
)

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Collection limits the sync to one collection.
	Collection string
	GitPull    bool
	// RunUpdateCmd runs each collection's update command first.
	RunUpdateCmd bool
	// LockWait is how long Engine.Update waits for another writer (0:
	// fail at once); Writer.Update holds the lock already.
	LockWait time.Duration
	// Only limits the sync of Collection to these paths (see
	// ingest.Options.Only); note edits re-index just what they touched.
	Only []string
	// Rebuild moves the database aside (kept as index.sqlite.damaged) and
	// indexes every collection from scratch, keeping user tags and the
	// generation; vectors must be embedded again.
	Rebuild  bool
	Progress func(ingest.Progress)
	// CountAll, with Only, reports the collection's other documents as
	// unchanged and every skipped file, as a walk of it would: the
	// daemon answers `gno update` with its watcher's changed files.
	CountAll bool
}

// UpdateResult summarises a sync of one or more collections.
type UpdateResult struct {
	Collections []*ingest.Result `json:"collections"`
	Generation  int64            `json:"generation"`
	DurationMS  float64          `json:"durationMs"`
	// Daemon is set when a running `gno daemon` answered the update.
	Daemon *DaemonSync `json:"daemon,omitempty"`
}

// DaemonSync says how a daemon brought each collection up to date: from
// the files its watcher saw change (no walk), or by looking at every file,
// and why (a watcher that lost events, was set up again, or could not
// watch a folder is not trusted to have seen everything).
type DaemonSync struct {
	Watched []string          `json:"watched"`
	Walked  map[string]string `json:"walked,omitempty"`
}

// Update syncs collections with their folders.
func (w *Writer) Update(ctx context.Context, opt UpdateOptions) (*UpdateResult, error) {
	start := time.Now()
	e := w.e
	cfg := e.Config()
	cols := cfg.Collections
	if opt.Collection != "" {
		c, ok := cfg.Collection(opt.Collection)
		if !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", opt.Collection)
		}
		cols = []config.Collection{*c}
	}
	var saved store.Salvaged
	if opt.Rebuild {
		if loc := e.location(); store.IsURL(loc) {
			// A rebuild moves the SQLite file aside; a server's index
			// has no file to move.
			return nil, gnoerr.New(gnoerr.InvalidInput, "gno update --rebuild is not supported yet for an index on a server (%s)", store.Redact(loc))
		}
		cols = cfg.Collections
		var err error
		if saved, err = w.moveAside(ctx); err != nil {
			return nil, err
		}
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	if saved.Generation > 0 {
		if err := st.SetMeta(ctx, "generation", strconv.FormatInt(saved.Generation, 10)); err != nil {
			return nil, err
		}
	}
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, err
	}
	gen++
	res := &UpdateResult{Generation: gen - 1}
	iopt := ingest.Options{
		MaxFileBytes:     cfg.Index.MaxFileBytes,
		MaxDocumentBytes: cfg.Index.MaxDocumentBytes,
		RunUpdateCmd:     opt.RunUpdateCmd,
		GitPull:          opt.GitPull,
		Progress:         opt.Progress,
	}
	if opt.Collection != "" && opt.Only != nil {
		iopt.Only = opt.Only
	}
	iopt.Limits.Timeout = time.Duration(cfg.Index.ConvertTimeout)
	iopt.Chunk.Tokens = cfg.Index.ChunkTokens
	iopt.Chunk.Overlap = cfg.Index.ChunkOverlap
	var errs []string
	for _, c := range cols {
		r, err := ingest.Sync(ctx, st, c, gen, iopt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, gnoerr.Public(err))
			continue
		}
		if r.Changed() {
			res.Generation = gen
		}
		if opt.CountAll && iopt.Only != nil {
			if err := countAll(ctx, st, r); err != nil {
				return nil, err
			}
		}
		res.Collections = append(res.Collections, r)
	}
	if opt.Rebuild {
		if err := st.RestoreUserTags(ctx, saved.UserTags); err != nil {
			errs = append(errs, gnoerr.Public(err))
		}
	}
	// The next vector search brings its graph up to date (vectorIndex
	// checks the write state); embedding new chunks is `gno embed`'s job.
	res.DurationMS = ms(time.Since(start))
	if len(errs) > 0 {
		return res, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return res, nil
}

// countAll fills r, a sync of named files, with what a walk of its whole
// collection would have reported: the other documents unchanged, every
// skipped file under its reason.
func countAll(ctx context.Context, st store.Backend, r *ingest.Result) error {
	n, err := st.DocCount(ctx, r.Collection)
	if err != nil {
		return err
	}
	r.Unchanged = max(n-r.Added-r.Updated, 0)
	skips, err := st.SkipCounts(ctx, r.Collection)
	if err != nil {
		return err
	}
	r.Skipped = nil
	if len(skips) > 0 {
		r.Skipped = skips
	}
	return nil
}

// moveAside replaces the index with an empty one: the database (and its
// WAL) is kept as index.sqlite.damaged for inspection, the vector exports
// are deleted. It returns what could be salvaged from the old file.
func (w *Writer) moveAside(ctx context.Context) (store.Salvaged, error) {
	e := w.e
	e.forgetModels()
	e.closeStore()
	s := store.Salvage(ctx, e.Paths.DBFile)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		p := e.Paths.DBFile + suffix
		if err := os.Rename(p, e.Paths.DBFile+".damaged"+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return s, fmt.Errorf("rebuild: move %s aside: %w", p, err)
		}
	}
	exports, _ := filepath.Glob(filepath.Join(e.Paths.IndexDir, "vectors-*.hnsw*"))
	for _, p := range exports {
		os.Remove(p)
	}
	return s, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
