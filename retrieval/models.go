package retrieval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/backend"
	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
)

// Models opens the models the config names, once each, through the
// backend registry (inference/backend), and decides which embedder an
// index uses when the config names none. Each model has its own lock, so
// a slow reranker load never holds up the embedder. Nothing is opened
// before a request needs it, so start-up stays fast; a failure is
// remembered, so a broken model costs one attempt per process, not one per
// query. A config change (Writer.UpdateConfig) forgets them all.
type Models struct {
	e *Engine

	embMu  sync.Mutex
	emb    inference.Embedder
	embErr error

	rrMu     sync.Mutex
	rr       inference.Reranker
	rrErr    error
	rrOpened bool

	expMu sync.Mutex
	exp   inference.Expander

	// auto caches the automatic embedder choice for one index generation.
	autoMu    sync.Mutex
	autoGen   int64
	autoDone  bool
	autoModel string
}

// close releases the models and forgets every cached open result.
func (m *Models) close() {
	m.embMu.Lock()
	if m.emb != nil {
		m.emb.Close()
	}
	m.emb, m.embErr = nil, nil
	m.embMu.Unlock()
	m.rrMu.Lock()
	if m.rr != nil {
		m.rr.Close()
	}
	m.rr, m.rrErr, m.rrOpened = nil, nil, false
	m.rrMu.Unlock()
	m.expMu.Lock()
	m.exp = nil
	m.expMu.Unlock()
}

// spec turns a config backend entry into the registry's.
func spec(b config.Backend) backend.Spec {
	return backend.Spec{Kind: b.Kind, URL: b.URL, APIKey: b.APIKey, Model: b.Model}
}

// EmbedModel is the embedding model in use: the configured one; without
// one, an installed model that covers the index's main language when the
// default does not (see autoEmbedder), else the default.
func (m *Models) EmbedModel() string {
	if name := m.e.Config().Models.Embed; name != "" {
		return name
	}
	if name := m.autoEmbedder(); name != "" {
		return name
	}
	return models.DefaultEmbedder
}

// onnxEnv says where models and the runtime are, with the user's own
// registry entries (models.custom) added to the built-in ones.
func (m *Models) onnxEnv() onnx.Env {
	c := m.e.Config().Models
	env := onnx.Env{ModelsDir: m.e.Paths.ModelsDir, ORTLib: c.ORTLib, Threads: c.Threads, Parallel: c.Parallel}
	if len(c.Custom) > 0 {
		reg := models.Builtin()
		if err := reg.AddConfig(c.Custom); err == nil {
			env.Registry = reg
		}
	}
	return env
}

// registry is the built-in model registry with the user's own entries.
func (m *Models) registry() *models.Registry {
	if r := m.onnxEnv().Registry; r != nil {
		return r
	}
	return models.Builtin()
}

// Embedder opens the embedding model once: the in-process ONNX model, or
// a remote backend when the config names one (models.embedBackend).
func (m *Models) Embedder(ctx context.Context) (inference.Embedder, error) {
	m.embMu.Lock()
	defer m.embMu.Unlock()
	if m.emb != nil || m.embErr != nil {
		return m.emb, m.embErr
	}
	name := m.EmbedModel()
	emb, err := backend.Embedder(ctx, spec(m.e.Config().Models.EmbedBackend), backend.Local{Env: m.onnxEnv(), Model: name})
	if err != nil {
		err = gnoerr.Wrap(gnoerr.Unavailable, err, "embedding model %s unavailable", name)
		if ctx.Err() == nil {
			// Remembered; a cancelled open is not a broken model.
			m.embErr = err
		}
		return nil, err
	}
	m.emb = emb
	return emb, nil
}

// checkedEmbedder opens the embedder for writing vectors. Vectors outlive
// the run that made them: a damaged model file of the right size would
// fill the index with garbage without an error, so embedding checks the
// model's checksums first (a query does not; its vector lives for one
// search).
func (m *Models) checkedEmbedder(ctx context.Context) (inference.Embedder, error) {
	emb, err := m.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	if m.e.Config().Models.EmbedBackend.Kind == "" {
		name := m.EmbedModel()
		if err := (models.Cache{Dir: m.e.Paths.ModelsDir}).Verify(name); err != nil {
			return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "embedding model %s is damaged; reinstall it with `gno models pull %s`", name, name)
		}
	}
	return emb, nil
}

// Reranker opens the configured cross-encoder once. With none configured
// it returns nil, nil. A test model is never used on a user's results.
func (m *Models) Reranker(ctx context.Context) (inference.Reranker, error) {
	m.rrMu.Lock()
	defer m.rrMu.Unlock()
	if m.rrOpened {
		return m.rr, m.rrErr
	}
	m.rrOpened = true
	cfg := m.e.Config().Models
	if cfg.Rerank == "" && cfg.RerankBackend.Kind == "" {
		return nil, nil
	}
	maxTokens := cfg.RerankMaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultRerankTokens
	}
	rr, err := backend.Reranker(ctx, spec(cfg.RerankBackend), backend.Local{Env: m.onnxEnv(), Model: cfg.Rerank, MaxTokens: maxTokens})
	if err != nil {
		err = gnoerr.Wrap(gnoerr.Unavailable, err, "reranker %s unavailable", cfg.Rerank)
		if ctx.Err() != nil {
			m.rrOpened = false // try again: a cancelled open is not a broken model
			return nil, err
		}
		m.rrErr = err
		return nil, m.rrErr
	}
	if rr.IsTestModel() {
		rr.Close()
		m.rrErr = gnoerr.New(gnoerr.Unavailable, "reranker %s is an untrained test model; it never ranks user results", cfg.Rerank)
		return nil, m.rrErr
	}
	m.rr = rr
	return rr, nil
}

// Expander builds the configured query expander once (cheap: no
// connection is made until the first call).
func (m *Models) Expander() (inference.Expander, error) {
	b := m.e.Config().Models.Expand
	m.expMu.Lock()
	defer m.expMu.Unlock()
	if m.exp != nil {
		return m.exp, nil
	}
	x, err := backend.Expander(spec(b))
	if err != nil {
		return nil, err
	}
	m.exp = x
	return x, nil
}

// Chatter builds the configured answer model (models.answer), or nil, nil
// when none is configured. It is not cached: the caller closes it.
func (m *Models) Chatter() (inference.Chatter, error) {
	return backend.Chatter(spec(m.e.Config().Models.Answer))
}

// Warm opens the embedder and the reranker and loads the vector graph
// now, so a long-running process (the daemon) answers its next query
// warm, and lets an in-process embedder measure whether queries run
// faster on two threads here (onnx.Embedder.TuneQueries: worth its half
// second only in a process that answers many). It returns what that
// measured (zero when nothing was: no in-process embedder, one core, or a
// measurement already standing), for the caller's log. Failures are left
// for that query to report.
func (m *Models) Warm(ctx context.Context) onnx.QueryTuning {
	m.warm(ctx, true)
	type tuner interface {
		TuneQueries(context.Context) (onnx.QueryTuning, error)
	}
	if emb, err := m.Embedder(ctx); err == nil {
		if t, ok := emb.(tuner); ok {
			qt, _ := t.TuneQueries(ctx)
			return qt
		}
	}
	return onnx.QueryTuning{}
}

// warm opens and loads the embedder, the vector graph and (when wanted)
// the reranker. Failures are left for the stages to report.
//
// The graph loads beside the embedder: they share nothing (the graph is
// named by the model's id, known before its weights are read), and in a
// one-shot process each is a good part of the start-up that a second
// core can take (bench/RESULTS.md, "A one-shot query's start-up").
func (m *Models) warm(ctx context.Context, rerank bool) {
	type loader interface{ Load() error }
	if emb, err := m.Embedder(ctx); err == nil {
		graph := make(chan any, 1) // a panic, raised again here
		go func() {
			defer func() { graph <- recover() }()
			if m.e.vectorSearcher(ctx) == nil {
				m.e.vectorIndex(ctx, emb.ModelID())
			} else {
				m.e.serverVectors(ctx, emb.ModelID())
			}
		}()
		if l, ok := emb.(loader); ok {
			l.Load()
		}
		if p := <-graph; p != nil {
			panic(p)
		}
	}
	if rerank {
		if rr, err := m.Reranker(ctx); err == nil && rr != nil {
			if l, ok := rr.(loader); ok {
				l.Load()
			}
		}
	}
}

// issues lists problems with the configured models for status.
func (m *Models) issues() []string {
	var out []string
	cfg := m.e.Config().Models
	if len(cfg.Custom) > 0 {
		if err := models.Builtin().AddConfig(cfg.Custom); err != nil {
			out = append(out, fmt.Sprintf("config models.custom ignored: %v", err))
		}
	}
	c := models.Cache{Dir: m.e.Paths.ModelsDir}
	if name := m.EmbedModel(); !installed(c, name) {
		out = append(out, fmt.Sprintf("embedding model %s not installed (vector search off): run `gno models pull %s`", name, name))
	}
	if r := cfg.Rerank; r != "" {
		if mi, err := c.Installed(r); err != nil {
			out = append(out, fmt.Sprintf("reranker %s not installed: run `gno models pull %s`", r, r))
		} else if mi.Test {
			out = append(out, fmt.Sprintf("reranker %s is an untrained test model: results are not reranked", r))
		}
	} else {
		out = append(out, "no reranker configured: default mode answers with reranked=false")
	}
	return out
}

func installed(c models.Cache, name string) bool {
	_, err := c.Installed(name)
	return err == nil
}

// covers reports whether the active embedder was trained for the language
// of text, with the language detected (by script: zh, ja, ko, th; ""
// when undetermined) and the model's name. A remote backend or a model
// without declared languages counts as covering.
func (m *Models) covers(text string) (lang, model string, ok bool) {
	model = m.EmbedModel()
	lang = ingest.DetectLang(text)
	if lang == "" || m.e.Config().Models.EmbedBackend.Kind != "" {
		return lang, model, true
	}
	mi, err := m.registry().Lookup(model)
	if err != nil {
		return lang, model, true
	}
	return lang, model, mi.Covers(lang)
}

// autoEmbedder picks the embedder when config names none: when most
// documents are in one language (detected at index time, or from front
// matter) that the default embedder does not cover, the first installed
// registry embedder that covers it, e.g. bge-small-zh-v1.5-q for a
// Chinese index. It returns "" to keep the default. The choice is the
// index's, not a collection's: one vector set per index keeps fusion and
// the vector graph simple. The choice is made while the index has no
// vectors; then it stays with the model that made them (models.embed in
// config changes it, and `gno embed` re-embeds).
func (m *Models) autoEmbedder() string {
	ctx := context.Background()
	st, err := m.e.store(ctx)
	if err != nil {
		return ""
	}
	gen, err := st.Generation(ctx)
	if err != nil {
		return ""
	}
	m.autoMu.Lock()
	defer m.autoMu.Unlock()
	if m.autoDone && m.autoGen == gen {
		return m.autoModel
	}
	m.autoDone, m.autoGen, m.autoModel = true, gen, ""
	reg := m.registry()
	cache := models.Cache{Dir: m.e.Paths.ModelsDir}
	// The choice sticks once vectors exist: re-deciding as the language
	// mix shifts would throw every vector away (Embed drops another
	// model's vectors) and leave searches without any in between.
	if made, err := st.VectorModel(ctx); err == nil && made != "" {
		if mi, err := reg.Lookup(made); err == nil && mi.Role == models.RoleEmbed && !mi.Test {
			if _, err := cache.Installed(made); err == nil {
				if made != models.DefaultEmbedder {
					m.autoModel = made
				}
				return m.autoModel
			}
		}
	}
	langs, err := st.LangCounts(ctx)
	if err != nil {
		return ""
	}
	main, total := "", 0
	for l, n := range langs {
		total += n
		if l != "" && n > langs[main] {
			main = l
		}
	}
	if main == "" || langs[main]*2 < total {
		return ""
	}
	if def, err := reg.Lookup(models.DefaultEmbedder); err == nil && def.Covers(main) {
		return ""
	}
	for _, mi := range reg.All() {
		if mi.Role != models.RoleEmbed || mi.Test || len(mi.Languages) == 0 || !mi.Covers(main) {
			continue
		}
		if _, err := cache.Installed(mi.Name); err == nil {
			m.autoModel = mi.Name
			break
		}
	}
	return m.autoModel
}

// ReleasePages drops the cached vector graph's file pages from the
// process's memory (vector.Graph.ReleasePages) when no search has asked
// for the graph for idle: a resting daemon calls it, and a daemon that
// only rests from syncing but still searches keeps its pages (dropping
// them would make each search fault them in again). It waits for
// nothing: while a graph is being loaded or built (minutes at 1M
// vectors, under the cache's lock) it does nothing, and says whether
// it released.
func (m *Models) ReleasePages(idle time.Duration) bool {
	c := &m.e.vectors
	if time.Since(time.Unix(0, c.used.Load())) < idle || !c.mu.TryLock() {
		return false
	}
	g := c.index
	c.mu.Unlock()
	if g == nil {
		return false
	}
	g.ReleasePages()
	return true
}
