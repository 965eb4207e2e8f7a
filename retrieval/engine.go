// Package retrieval is gno's search engine: it owns an index (config plus
// SQLite store plus vector graph) and answers search, get and status
// requests for the CLI and the MCP server alike.
package retrieval

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// Options open an engine.
type Options struct {
	// Index is the index name ("default" if empty).
	Index string
	// ConfigFile overrides the config location.
	ConfigFile string
}

// Engine is an open index. It is safe for concurrent use.
type Engine struct {
	Paths config.Paths

	mu  sync.Mutex
	cfg *config.Config
	st  *store.Store

	vec   vectorState
	graph graphState
	// auto is the embedder chosen for the index's languages (lang.go).
	auto autoEmbed
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
	return &Engine{Paths: p, cfg: cfg}, nil
}

// Close releases the database and models.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vec.close()
	if e.st != nil {
		err := e.st.Close()
		e.st = nil
		return err
	}
	return nil
}

// Config returns the current config. It is replaced, never modified, by
// UpdateConfig, so callers may read it freely but must not change it.
func (e *Engine) Config() *config.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// store opens the database on first use.
func (e *Engine) store(ctx context.Context) (*store.Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		return e.st, nil
	}
	st, err := store.Open(ctx, e.Paths.DBFile)
	if err != nil {
		return nil, damaged(e.Paths.DBFile, err)
	}
	e.st = st
	return st, nil
}

// Store exposes the database to gno's own packages (benchmarks, vectors).
func (e *Engine) Store(ctx context.Context) (*store.Store, error) { return e.store(ctx) }

// UpdateConfig applies fn to the config under the writer lock, re-reading
// the file first so concurrent processes do not lose each other's edits,
// and saves it when fn succeeds.
func (e *Engine) UpdateConfig(ctx context.Context, fn func(*config.Config) error) error {
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, 10*time.Second)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return e.updateConfigLocked(fn)
}

func (e *Engine) updateConfigLocked(fn func(*config.Config) error) error {
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
	e.vec.close() // models may have changed
	return nil
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

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Collection limits the sync to one collection.
	Collection string
	GitPull    bool
	// RunUpdateCmd runs each collection's update command first.
	RunUpdateCmd bool
	// LockWait is how long to wait for another writer (0: fail at once).
	LockWait time.Duration
	// Locked means the caller already holds the writer lock.
	Locked bool
	// Only limits the sync of Collection to these paths (see
	// ingest.Options.Only); note edits re-index just what they touched.
	Only []string
	// Rebuild moves the database aside (kept as index.sqlite.damaged) and
	// indexes every collection from scratch, keeping user tags and the
	// generation; vectors must be embedded again.
	Rebuild  bool
	Progress func(ingest.Progress)
}

// UpdateResult summarises a sync of one or more collections.
type UpdateResult struct {
	Collections []*ingest.Result `json:"collections"`
	Generation  int64            `json:"generation"`
	DurationMS  float64          `json:"durationMs"`
}

// Update syncs collections with their folders, under the writer lock.
func (e *Engine) Update(ctx context.Context, opt UpdateOptions) (*UpdateResult, error) {
	start := time.Now()
	if !opt.Locked {
		lock, err := store.LockWriter(ctx, e.Paths.IndexDir, opt.LockWait)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	cfg := e.Config()
	cols := cfg.Collections
	if opt.Collection != "" {
		c, ok := cfg.Collection(opt.Collection)
		if !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", opt.Collection)
		}
		cols = []config.Collection{*c}
	}
	var saved salvaged
	if opt.Rebuild {
		cols = cfg.Collections
		var err error
		if saved, err = e.moveAside(ctx); err != nil {
			return nil, err
		}
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	if saved.gen > 0 {
		if err := st.SetMeta(ctx, "generation", strconv.FormatInt(saved.gen, 10)); err != nil {
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
			errs = append(errs, err.Error())
			continue
		}
		if r.Changed() {
			res.Generation = gen
		}
		res.Collections = append(res.Collections, r)
	}
	if opt.Rebuild {
		if err := restoreTags(ctx, st, saved); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if res.Generation == gen {
		if err := e.syncVectors(ctx); err != nil {
			errs = append(errs, err.Error())
		}
	}
	res.DurationMS = ms(time.Since(start))
	if len(errs) > 0 {
		return res, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// docID formats a content hash as the public document id.
func docID(hash string) string {
	if len(hash) > 8 {
		hash = hash[:8]
	}
	return "#" + hash
}

func (e *Engine) source(cfg *config.Config, m *store.DocMeta, full bool) Source {
	s := Source{RelPath: m.RelPath, Mime: m.Mime, Ext: path.Ext(m.RelPath)}
	if c, ok := cfg.Collection(m.Collection); ok {
		s.AbsPath = filepath.Join(c.Path, filepath.FromSlash(m.RelPath))
	}
	if full {
		s.ModifiedAt = time.Unix(0, m.MtimeNS).UTC().Format(time.RFC3339)
		s.SizeBytes = m.Size
	}
	return s
}

// resolve finds the document a REF names.
func (e *Engine) resolve(ctx context.Context, s string) (*store.DocMeta, error) {
	r, err := ref.Parse(s)
	if err != nil {
		return nil, err
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	var m *store.DocMeta
	if r.Kind == ref.ByDocID {
		m, err = st.DocByHashPrefix(ctx, r.DocID)
	} else {
		if _, ok := e.Config().Collection(r.Collection); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", r.Collection)
		}
		m, err = st.DocByPath(ctx, r.Collection, r.Path)
	}
	if err == store.ErrNotFound {
		return nil, gnoerr.New(gnoerr.NotFound, "document not found: %s", s)
	}
	return m, err
}

// Get reads one document, optionally a line range of it.
func (e *Engine) Get(ctx context.Context, req GetRequest) (*Document, error) {
	m, err := e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	content, err := st.Content(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	cfg := e.Config()
	d := e.document(cfg, m, content)
	if req.FromLine < 0 || req.LineCount < 0 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "line numbers must be positive")
	}
	if req.FromLine > 1 || req.LineCount > 0 {
		lines := splitLines(content)
		from := max(req.FromLine, 1)
		if from > len(lines) && len(lines) > 0 {
			return nil, gnoerr.New(gnoerr.InvalidInput, "line %d is past the end of %s (%d lines)", from, d.URI, len(lines))
		}
		to := len(lines)
		if req.LineCount > 0 && from-1+req.LineCount < to {
			to = from - 1 + req.LineCount
		}
		d.Content = strings.Join(lines[from-1:to], "\n")
		d.ReturnedLines = LineRange{Start: from, End: to}
	}
	return d, nil
}

func (e *Engine) document(cfg *config.Config, m *store.DocMeta, content string) *Document {
	return &Document{
		DocID:         docID(m.Hash),
		URI:           ref.URI(m.Collection, m.RelPath),
		Title:         m.Title,
		Collection:    m.Collection,
		Content:       content,
		TotalLines:    m.LineCount,
		ReturnedLines: LineRange{Start: 1, End: m.LineCount},
		Source:        e.source(cfg, m, true),
		Tags:          m.Tags,
		Lang:          m.Lang,
		Context:       cfg.ContextsFor(m.Collection, m.RelPath),
		Generation:    m.ChangedGen,
	}
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{""}
	}
	return strings.Split(s, "\n")
}

// NumberLines prefixes each line with its 1-based number, starting at from.
func NumberLines(content string, from int) string {
	lines := splitLines(content)
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%d: %s\n", from+i, l)
	}
	return b.String()
}

// DefaultMaxBytes is multi-get's per-document size cap.
const DefaultMaxBytes = 10240

// MultiGet reads several documents by refs or by a glob over
// collection/path; documents over MaxBytes are skipped with a reason.
func (e *Engine) MultiGet(ctx context.Context, req MultiGetRequest) (*MultiGetResult, error) {
	if (len(req.Refs) == 0) == (req.Pattern == "") {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give either refs or a pattern, not both")
	}
	if req.MaxBytes <= 0 {
		req.MaxBytes = DefaultMaxBytes
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	cfg := e.Config()
	out := &MultiGetResult{Documents: []Document{}, Skipped: []Skipped{}}
	var metas []*store.DocMeta
	var names []string
	if req.Pattern != "" {
		pat := strings.TrimPrefix(req.Pattern, ref.Scheme)
		all, err := st.List(ctx, e.Config().CollectionNames(), "", 0, 0)
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			if ok, _ := path.Match(pat, m.Collection+"/"+m.RelPath); ok || globMatch(pat, m.Collection+"/"+m.RelPath) {
				metas = append(metas, m)
				names = append(names, ref.URI(m.Collection, m.RelPath))
			}
		}
	} else {
		for _, r := range req.Refs {
			m, err := e.resolve(ctx, r)
			if err != nil {
				out.Skipped = append(out.Skipped, Skipped{Ref: r, Reason: err.Error()})
				continue
			}
			metas = append(metas, m)
			names = append(names, r)
		}
	}
	out.Meta.Requested = len(metas) + len(out.Skipped)
	for i, m := range metas {
		if m.Size > int64(req.MaxBytes) {
			out.Skipped = append(out.Skipped, Skipped{Ref: names[i], Reason: fmt.Sprintf("exceeds maxBytes (%d > %d)", m.Size, req.MaxBytes)})
			continue
		}
		content, err := st.Content(ctx, m.ID)
		if err != nil {
			out.Skipped = append(out.Skipped, Skipped{Ref: names[i], Reason: err.Error()})
			continue
		}
		out.Documents = append(out.Documents, *e.document(cfg, m, content))
	}
	out.Meta.Returned = len(out.Documents)
	out.Meta.Skipped = len(out.Skipped)
	return out, nil
}

// List returns the documents under target: "" for all, a collection, or
// collection/path-prefix.
func (e *Engine) List(ctx context.Context, target string, limit, offset int) ([]Entry, error) {
	cfg := e.Config()
	col, prefix, _ := strings.Cut(strings.Trim(strings.TrimPrefix(target, ref.Scheme), "/"), "/")
	col = strings.ToLower(col)
	if col != "" {
		if _, ok := cfg.Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", col)
		}
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	cols := cfg.CollectionNames()
	if col != "" {
		cols = []string{col}
	}
	ms, err := st.List(ctx, cols, prefix, limit, offset)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ms))
	for _, m := range ms {
		out = append(out, Entry{DocID: docID(m.Hash), URI: ref.URI(m.Collection, m.RelPath), Title: m.Title, Collection: m.Collection,
			RelPath: m.RelPath, SizeBytes: m.Size, ModifiedAt: time.Unix(0, m.MtimeNS).UTC().Format(time.RFC3339)})
	}
	return out, nil
}

// Status reports the index's health.
func (e *Engine) Status(ctx context.Context) (*Status, error) {
	cfg := e.Config()
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	model := e.embedModelName()
	stats, err := st.Stats(ctx, model)
	if err != nil {
		return nil, damaged(e.Paths.DBFile, err)
	}
	gen, _ := st.Generation(ctx)
	s := &Status{IndexName: e.Paths.Index, ConfigPath: e.Paths.ConfigFile, DBPath: e.Paths.DBFile,
		Collections: []CollectionStatus{}, Generation: gen, EmbedModel: model, Healthy: true}
	if p := quickCheck(ctx, st); p != "" {
		s.Healthy = false
		s.Issues = append(s.Issues, fmt.Sprintf("index is damaged (%s): rebuild it from your files with `gno update --rebuild`", p))
	}
	for _, c := range cfg.Collections {
		cs := CollectionStatus{Name: c.Name, Path: c.Path, Available: true}
		if fi, err := os.Stat(c.Path); err != nil || !fi.IsDir() {
			cs.Available = false
			s.Healthy = false
			s.Issues = append(s.Issues, fmt.Sprintf("collection %s: folder %s is missing", c.Name, c.Path))
		}
		if x := stats[c.Name]; x != nil {
			cs.DocumentCount, cs.ChunkCount, cs.EmbeddedCount = x.Docs, x.Chunks, x.Embedded
		}
		if cs.Skipped, err = st.SkipCounts(ctx, c.Name); err != nil {
			return nil, err
		}
		if len(cs.Skipped) == 0 {
			cs.Skipped = nil
		}
		s.TotalDocuments += cs.DocumentCount
		s.TotalChunks += cs.ChunkCount
		if model != "" {
			s.EmbeddingBacklog += cs.ChunkCount - cs.EmbeddedCount
		}
		s.Collections = append(s.Collections, cs)
	}
	if ls, err := st.LinkStats(ctx); err == nil {
		for _, x := range ls {
			s.Links += x.Links
			s.UnresolvedLinks += x.Unresolved
		}
	}
	s.Issues = append(s.Issues, e.modelIssues()...)
	return s, nil
}

// Cleanup drops documents of collections no longer configured, optimises
// the FTS indexes and vacuums the database.
func (e *Engine) Cleanup(ctx context.Context) (int, error) {
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, 30*time.Second)
	if err != nil {
		return 0, err
	}
	defer lock.Unlock()
	st, err := e.store(ctx)
	if err != nil {
		return 0, err
	}
	cfg := e.Config()
	var keep []string
	for _, c := range cfg.Collections {
		keep = append(keep, c.Name)
	}
	return st.Cleanup(ctx, keep)
}

func globMatch(pattern, name string) bool {
	ok, _ := doublestar.Match(pattern, name)
	return ok
}
