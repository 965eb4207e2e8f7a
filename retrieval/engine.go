// Package retrieval is gno's search engine: an Engine owns one index
// (config, SQLite store, vector graph) and answers search, vsearch, query,
// get, multi-get, list and status for every front end (CLI, MCP, REST, web);
// Run picks one of the three searches by mode, so a mode means the same
// everywhere.
//
// The Engine itself only opens and closes the index, holds its config and
// runs those reads. Every other job is a part reached from it, with one
// job each and request structs for arguments:
//
//   - Writer: the index's writer lock as a value (like *sql.Tx); sync
//     (Update), Embed, config changes and Cleanup are its methods.
//   - Notes: the user's note files: capture, update, delete, rename, tags
//     and the change feed, on note.Path (the one path rule) and
//     ingest.Indexes (the one index rule).
//   - Graph: the link graph: links, paths, hubs, orphans, related notes,
//     name resolution; it owns the cached graph.
//   - Models: opening the embedder, reranker, expander and chat model
//     (through inference/backend); it owns the opened models.
//
// The package must not run SQL (package store does), parse user query text
// itself (package query does) or format output for a front end (the
// callers do; package display has the shared helpers).
package retrieval

import (
	"context"
	"os"
	"sync"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// Options open an engine.
type Options struct {
	// Index is the index name ("default" if empty).
	Index string
	// ConfigFile overrides the config location.
	ConfigFile string
	// ReadURL sends the index's reads to a streaming replica of its
	// store's server (`--read-url`); "" takes GNO_STORE_READ_URL, else
	// the config's read_store.
	ReadURL string
}

// Engine is an open index. It is safe for concurrent use.
type Engine struct {
	Paths config.Paths

	mu  sync.Mutex
	cfg *config.Config
	st  store.Backend

	models  *Models
	vectors vectorCache
	graph   *Graph
	queries queryCounter
	// embedQueue is the backlog an embedding run left (embed.go).
	embedQueue embedQueueCache

	// pkgs marks the engine of a package-docs index (OpenPackages): its
	// collections are package versions, its URIs gno://pkg/... ones.
	pkgs bool
	// readURL is Options.ReadURL.
	readURL string
}

// Open loads the config of an index. The database is opened on first use.
func Open(ctx context.Context, opt Options) (*Engine, error) {
	p, err := config.Resolve(opt.Index, opt.ConfigFile)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(p.ConfigFile)
	if err != nil {
		return nil, err
	}
	e := &Engine{Paths: p, cfg: cfg, readURL: opt.ReadURL}
	e.models = &Models{e: e}
	e.graph = &Graph{e: e}
	return e, nil
}

// Close releases the database and models.
func (e *Engine) Close() error {
	e.closeQueryCounts()
	e.forgetModels()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		err := e.st.Close()
		e.st = nil
		return err
	}
	return nil
}

// Config returns the current config. It is replaced, never modified, by
// Writer.UpdateConfig, so callers may read it freely but must not change
// it.
func (e *Engine) Config() *config.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// Notes returns the part that edits the user's notes. Each of its writes
// takes the writer lock for itself, waiting up to NoteLockWait; a caller
// that holds a Writer uses Writer.Notes instead.
func (e *Engine) Notes() *Notes { return &Notes{e: e} }

// Graph returns the part that answers questions about the link graph.
func (e *Engine) Graph() *Graph { return e.graph }

// Models returns the part that opens the configured models.
func (e *Engine) Models() *Models { return e.models }

// forgetModels closes the opened models and drops the cached vectors, so
// the next request opens what the (possibly changed) config names.
func (e *Engine) forgetModels() {
	e.models.close()
	e.vectors.forget()
}

// store opens the database on first use.
func (e *Engine) store(ctx context.Context) (store.Backend, error) {
	loc, readLoc := e.location(), e.readLocation() // before e.mu: they read the config under it
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		return e.st, nil
	}
	st, err := store.OpenBackendRead(ctx, loc, readLoc)
	if err != nil {
		return nil, damaged(store.Redact(loc), err)
	}
	e.st = st
	return st, nil
}

// StoreURLEnv names the variable that puts every index of this process
// on a server (a store URL, postgres://...), ahead of the config's store.
const StoreURLEnv = "GNO_STORE_URL"

// location names where e's index lives (store.OpenBackend): GNO_STORE_URL,
// else the config's store, else the index's SQLite file. The package-docs
// index is always its SQLite file: it caches this machine's projects'
// dependencies, not an index a team shares.
func (e *Engine) location() string {
	if e.pkgs {
		return e.Paths.DBFile
	}
	return StoreLocation(e.Paths, e.Config())
}

// StoreLocation names where the index of p with config cfg (nil: none)
// lives, for store.OpenBackend: GNO_STORE_URL, else the config's store,
// else the index's SQLite file. What reads the index beside an Engine
// (the access tokens of `gno token` and of a sharing server) opens it
// there.
func StoreLocation(p config.Paths, cfg *config.Config) string {
	if u := os.Getenv(StoreURLEnv); u != "" {
		return u
	}
	if cfg != nil && cfg.Store != "" {
		return cfg.Store
	}
	return p.DBFile
}

// StoreReadURLEnv names the variable that sends the reads of every
// index of this process to a streaming replica (a store URL), ahead of
// the config's read_store.
const StoreReadURLEnv = "GNO_STORE_READ_URL"

// readLocation is where e's reads go when not to location (a streaming
// replica): Options.ReadURL, else GNO_STORE_READ_URL, else the config's
// read_store; "" for none. The package-docs index has none.
func (e *Engine) readLocation() string {
	switch {
	case e.pkgs:
		return ""
	case e.readURL != "":
		return e.readURL
	}
	if u := os.Getenv(StoreReadURLEnv); u != "" {
		return u
	}
	if cfg := e.Config(); cfg != nil {
		return cfg.ReadStore
	}
	return ""
}

// readAs runs fn in one read snapshot of e's index (store.Read) and
// returns its value: every store read fn makes with the context it
// receives sees the same committed state, from before a sync or after it.
// Each read the front ends reach goes through it (ARCHITECTURE.md, "One
// rule per question").
func readAs[T any](ctx context.Context, e *Engine, fn func(ctx context.Context) (T, error)) (T, error) {
	var v T
	st, err := e.store(ctx)
	if err != nil {
		return v, err
	}
	err = st.Read(ctx, func(ctx context.Context) error {
		v, err = fn(ctx)
		return err
	})
	return v, err
}

// detach returns ctx without its read snapshot (store.Detach).
func (e *Engine) detach(ctx context.Context) context.Context {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		return ctx
	}
	return e.st.Detach(ctx)
}

// closeStore closes the database (a rebuild moves it aside); the next
// request opens it again.
func (e *Engine) closeStore() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		e.st.Close()
		e.st = nil
	}
}

// Init creates the config file and index directory if missing.
func (e *Engine) Init(ctx context.Context) error {
	if _, err := os.Stat(e.Paths.ConfigFile); err != nil {
		if err := e.UpdateConfig(ctx, func(*config.Config) error { return nil }); err != nil {
			return err
		}
	}
	_, err := e.store(ctx)
	return err
}

// damaged turns an error from a damaged index file into one that says the
// way out; other errors pass through.
func damaged(path string, err error) error {
	if !store.IsCorrupt(err) {
		return err
	}
	return gnoerr.Wrap(gnoerr.Unavailable, err, "index %s is damaged; rebuild it from your files with `gno update --rebuild`", path)
}

// Check runs the full consistency check of the index (`gno doctor`): the
// SQLite and FTS5 integrity checks and that no document is half-indexed.
// It returns the problems found; err is for an index that cannot be read.
func (e *Engine) Check(ctx context.Context) ([]string, error) {
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	problems, err := st.Check(ctx)
	if err != nil {
		return nil, damaged(e.Paths.DBFile, err)
	}
	return problems, nil
}
