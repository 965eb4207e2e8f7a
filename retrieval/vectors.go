package retrieval

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/ollama"
	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/inference/openai"
	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/ftsquery"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/vector"
)

// vectorState holds the lazily opened models and the in-memory vectors.
// Nothing here is touched before a request needs it, so start-up stays fast.
type vectorState struct {
	mu       sync.Mutex
	emb      inference.Embedder
	embErr   error
	rr       inference.Reranker
	rrErr    error
	rrOpened bool
	exp      inference.Expander
	index    *vector.Index
}

// close releases the models and forgets every cached open result, so the
// next request opens what the (possibly changed) config names.
func (v *vectorState) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.emb != nil {
		v.emb.Close()
	}
	if v.rr != nil {
		v.rr.Close()
	}
	v.emb, v.embErr, v.rr, v.rrErr, v.rrOpened, v.exp, v.index = nil, nil, nil, nil, false, nil, nil
}

// embedModelName is the configured embedding model; without one, an
// installed model that covers the index's main language when the default
// does not (autoEmbedder), else the default.
func (e *Engine) embedModelName() string {
	if m := e.Config().Models.Embed; m != "" {
		return m
	}
	if m := e.autoEmbedder(); m != "" {
		return m
	}
	return models.DefaultEmbedder
}

// onnxEnv says where models and the runtime are, with the user's own
// registry entries (models.custom) added to the built-in ones.
func (e *Engine) onnxEnv() onnx.Env {
	m := e.Config().Models
	env := onnx.Env{ModelsDir: e.Paths.ModelsDir, ORTLib: m.ORTLib, Threads: m.Threads, Parallel: m.Parallel}
	if len(m.Custom) > 0 {
		reg := models.Builtin()
		if err := reg.AddConfig(m.Custom); err == nil {
			env.Registry = reg
		}
	}
	return env
}

// embedder opens the embedding model once; a failure is remembered so a
// broken model costs one attempt per process, not one per query.
func (e *Engine) embedder(ctx context.Context) (inference.Embedder, error) {
	v := &e.vec
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.emb != nil || v.embErr != nil {
		return v.emb, v.embErr
	}
	emb, err := e.openEmbedder(ctx)
	if err != nil {
		v.embErr = gnoerr.Wrap(gnoerr.Unavailable, err, "embedding model %s unavailable", e.embedModelName())
		return nil, v.embErr
	}
	v.emb = emb
	return emb, nil
}

// openEmbedder opens the in-process ONNX model, or a remote backend when
// the config names one.
func (e *Engine) openEmbedder(ctx context.Context) (inference.Embedder, error) {
	b := e.Config().Models.EmbedBackend
	switch b.Kind {
	case "":
		return onnx.OpenInstalledEmbedder(ctx, e.onnxEnv(), e.embedModelName())
	case "ollama":
		return ollama.NewEmbedder(ollama.EmbedderConfig{URL: b.URL, Model: b.Model})
	case "openai":
		return openai.NewEmbedder(openai.EmbedderConfig{Config: openai.Config{BaseURL: b.URL, APIKey: b.APIKey, Model: b.Model}})
	}
	return nil, fmt.Errorf("unknown embed backend %q (ollama, openai, or empty for ONNX)", b.Kind)
}

// reranker opens the configured cross-encoder once. With none configured
// it returns nil, nil. A test model is never used on a user's results.
func (e *Engine) reranker(ctx context.Context) (inference.Reranker, error) {
	v := &e.vec
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rrOpened {
		return v.rr, v.rrErr
	}
	v.rrOpened = true
	cfg := e.Config().Models
	if cfg.Rerank == "" && cfg.RerankBackend.Kind == "" {
		return nil, nil
	}
	var rr inference.Reranker
	var err error
	switch b := cfg.RerankBackend; b.Kind {
	case "":
		maxTokens := cfg.RerankMaxTokens
		if maxTokens <= 0 {
			maxTokens = defaultRerankTokens
		}
		rr, err = onnx.OpenInstalledReranker(ctx, e.onnxEnv(), cfg.Rerank, maxTokens)
	case "openai":
		rr, err = openai.NewReranker(openai.RerankerConfig{Config: openai.Config{BaseURL: b.URL, APIKey: b.APIKey, Model: b.Model}})
	default:
		err = fmt.Errorf("unknown rerank backend %q (openai, or empty for ONNX)", b.Kind)
	}
	if err != nil {
		v.rrErr = gnoerr.Wrap(gnoerr.Unavailable, err, "reranker %s unavailable", cfg.Rerank)
		return nil, v.rrErr
	}
	if rr.IsTestModel() {
		rr.Close()
		v.rrErr = gnoerr.New(gnoerr.Unavailable, "reranker %s is an untrained test model; it never ranks user results", cfg.Rerank)
		return nil, v.rrErr
	}
	v.rr = rr
	return rr, nil
}

// modelIssues lists problems with the configured models for status.
func (e *Engine) modelIssues() []string {
	var out []string
	if custom := e.Config().Models.Custom; len(custom) > 0 {
		if err := models.Builtin().AddConfig(custom); err != nil {
			out = append(out, fmt.Sprintf("config models.custom ignored: %v", err))
		}
	}
	c := models.Cache{Dir: e.Paths.ModelsDir}
	if _, err := c.Installed(e.embedModelName()); err != nil {
		out = append(out, fmt.Sprintf("embedding model %s not installed (vector search off): run `gno models pull %s`", e.embedModelName(), e.embedModelName()))
	}
	if r := e.Config().Models.Rerank; r != "" {
		if m, err := c.Installed(r); err != nil {
			out = append(out, fmt.Sprintf("reranker %s not installed: run `gno models pull %s`", r, r))
		} else if m.Test {
			out = append(out, fmt.Sprintf("reranker %s is an untrained test model: results are not reranked", r))
		}
	} else {
		out = append(out, "no reranker configured: default mode answers with reranked=false")
	}
	return out
}

// syncVectors drops the in-memory vectors after a sync so the next search
// reloads them; embedding new chunks is `gno embed`'s job.
func (e *Engine) syncVectors(ctx context.Context) error {
	e.vec.mu.Lock()
	e.vec.index = nil
	e.vec.mu.Unlock()
	return nil
}

// EmbedOptions tune Embed.
type EmbedOptions struct {
	Collection string
	// Force re-embeds every chunk.
	Force    bool
	Progress func(done, total int)
}

// EmbedResult summarises an embedding run.
type EmbedResult struct {
	Model        string  `json:"model"`
	Embedded     int     `json:"embedded"`
	Total        int     `json:"total"`
	DurationMS   float64 `json:"durationMs"`
	ChunksPerSec float64 `json:"chunksPerSec"`
}

// embedBatch is how many chunks one forward pass and one transaction hold;
// a killed run loses at most one batch.
const embedBatch = 32

type pending struct {
	id   int64
	text string
}

// Embed computes vectors for chunks that lack one for the active model.
// It is resumable: every batch is committed as it completes.
func (e *Engine) Embed(ctx context.Context, opt EmbedOptions) (*EmbedResult, error) {
	start := time.Now()
	emb, err := e.embedder(ctx)
	if err != nil {
		return nil, err
	}
	// Vectors outlive the run that made them: a damaged model file of the
	// right size would fill the index with garbage without an error, so
	// embedding checks the model's checksums first (a query does not; its
	// vector lives for one search).
	if e.Config().Models.EmbedBackend.Kind == "" {
		if err := (models.Cache{Dir: e.Paths.ModelsDir}).Verify(e.embedModelName()); err != nil {
			return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "embedding model %s is damaged; reinstall it with `gno models pull %s`", e.embedModelName(), e.embedModelName())
		}
	}
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, time.Minute)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	model := emb.ModelID()
	db := st.DB()
	// Vectors of another model are stale: drop them.
	if opt.Force {
		_, err = db.ExecContext(ctx, "DELETE FROM vectors")
	} else {
		_, err = db.ExecContext(ctx, "DELETE FROM vectors WHERE model != ?", model)
	}
	if err != nil {
		return nil, fmt.Errorf("clear stale vectors: %w", err)
	}
	q := `SELECT c.id, c.title, c.headings, c.body FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)`
	var args []any
	if opt.Collection != "" {
		name := strings.ToLower(opt.Collection)
		if _, ok := e.Config().Collection(name); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", opt.Collection)
		}
		q += " AND d.collection = ?"
		args = append(args, name)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find chunks to embed: %w", err)
	}
	var todo []pending
	for rows.Next() {
		var p pending
		var title, headings, body string
		if err := rows.Scan(&p.id, &title, &headings, &body); err != nil {
			rows.Close()
			return nil, err
		}
		p.text = embedText(title, headings, body)
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Similar lengths together waste no padding.
	sort.SliceStable(todo, func(i, j int) bool { return len(todo[i].text) < len(todo[j].text) })
	res := &EmbedResult{Model: model}
	for i := 0; i < len(todo); i += embedBatch {
		batch := todo[i:min(i+embedBatch, len(todo))]
		texts := make([]string, len(batch))
		for j, p := range batch {
			texts[j] = p.text
		}
		vecs, err := emb.Embed(ctx, texts, inference.Document)
		if err != nil {
			return res, fmt.Errorf("embed: %w", err)
		}
		if err := putVectors(ctx, st, model, batch, vecs); err != nil {
			return res, err
		}
		res.Embedded += len(batch)
		if opt.Progress != nil {
			opt.Progress(res.Embedded, len(todo))
		}
	}
	if err := st.SetMeta(ctx, "embed_model", model); err != nil {
		return res, err
	}
	if err := st.SetMeta(ctx, "embed_dim", strconv.Itoa(emb.Dim())); err != nil {
		return res, err
	}
	db.QueryRowContext(ctx, "SELECT count(*) FROM vectors WHERE model = ?", model).Scan(&res.Total)
	d := time.Since(start)
	res.DurationMS = ms(d)
	if res.Embedded > 0 {
		res.ChunksPerSec = float64(res.Embedded) / d.Seconds()
	}
	// Build (or bring up to date) and save the graph now, so searches
	// start from the export.
	e.syncVectors(ctx)
	if _, err := e.vectors(ctx, model); err != nil {
		return res, err
	}
	return res, nil
}

// embedText is what the embedder sees for a chunk: the document title and
// heading path give a passage its topic when the body alone does not.
func embedText(title, headings, body string) string {
	var b strings.Builder
	if title != "" && !strings.Contains(body[:min(len(body), len(title)+8)], title) {
		b.WriteString(title)
		b.WriteString("\n")
	}
	if headings != "" && headings != title {
		b.WriteString(headings)
		b.WriteString("\n")
	}
	b.WriteString(body)
	return b.String()
}

func putVectors(ctx context.Context, st *store.Store, model string, batch []pending, vecs [][]float32) error {
	if len(vecs) != len(batch) {
		return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(batch))
	}
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback()
	var ver int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO meta(key, value) VALUES('vectors_version', '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING CAST(value AS INTEGER)`).Scan(&ver); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	for i, p := range batch {
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO vectors(chunk_id, model, ver, vec) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
			p.id, model, ver, encodeVec(vecs[i]), p.id); err != nil {
			return fmt.Errorf("store vectors: %w", err)
		}
	}
	return tx.Commit()
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// graphFile is the persisted vector graph of model in the index directory.
func (e *Engine) graphFile(model string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, model)
	return filepath.Join(e.Paths.IndexDir, "vectors-"+safe+".hnsw")
}

// vectors returns the vector graph of model, loading the persisted export
// and applying what changed in SQLite since it was saved (rows with a
// newer ver, rows deleted with their chunks); without an export the graph
// is built from the stored vectors and saved.
func (e *Engine) vectors(ctx context.Context, model string) (*vector.Index, error) {
	v := &e.vec
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.index != nil && v.index.ModelID() == model {
		return v.index, nil
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	db := st.DB()
	var count, dims int
	if err := vectorShape(ctx, db, model, &count, &dims); err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	if count == 0 {
		v.index = vector.New(0, model, vector.Params{})
		return v.index, nil
	}
	path := e.graphFile(model)
	var saved int64 = -1
	ix, err := vector.Load(path, dims, model, vector.Params{})
	if err == nil {
		if b, err := os.ReadFile(path + ".ver"); err == nil {
			saved, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		}
	}
	if ix == nil || saved < 0 {
		ix, saved = vector.New(dims, model, vector.Params{}), -1
	}
	cur, _ := st.Meta(ctx, "vectors_version")
	curVer, _ := strconv.ParseInt(cur, 10, 64)
	if saved == curVer && ix.Len() == count {
		v.index = ix
		return ix, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT chunk_id, vec FROM vectors WHERE model = ? AND ver > ?", model, saved)
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return nil, err
		}
		if len(b) == 4*dims {
			ix.Add(id, decodeVec(b))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if ix.Len() != count {
		// Some vectors went with their chunks: drop them from the graph.
		live := make(map[int64]bool, count)
		rows, err := db.QueryContext(ctx, "SELECT chunk_id FROM vectors WHERE model = ?", model)
		if err != nil {
			return nil, fmt.Errorf("load vectors: %w", err)
		}
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			live[id] = true
		}
		rows.Close()
		for _, id := range ix.Keys() {
			if !live[id] {
				ix.Delete(id)
			}
		}
	}
	// A failed save only costs the next process a rebuild.
	if err := ix.Save(path); err == nil {
		config.WriteFileAtomic(path+".ver", []byte(strconv.FormatInt(curVer, 10)), 0o644)
	}
	v.index = ix
	return ix, nil
}

// vectorShape counts a model's vectors and finds their width. The count
// reads only the model index; the width is read from the model's first and
// last vector, and only when those differ (a damaged row) from the widest
// of all, which reads the whole table: 60 ms and more at 5,000 chunks, most
// of what a query with vectors spent before its first search.
func vectorShape(ctx context.Context, db *sql.DB, model string, count, dims *int) error {
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM vectors WHERE model = ?", model).Scan(count); err != nil || *count == 0 {
		*dims = 0
		return err
	}
	var first, last int
	if err := db.QueryRowContext(ctx, `SELECT
		(SELECT length(vec) FROM vectors WHERE model = ?1 ORDER BY chunk_id LIMIT 1),
		(SELECT length(vec) FROM vectors WHERE model = ?1 ORDER BY chunk_id DESC LIMIT 1)`, model).Scan(&first, &last); err != nil {
		return err
	}
	if first == last {
		*dims = first / 4
		return nil
	}
	return db.QueryRowContext(ctx, "SELECT coalesce(max(length(vec)), 0) / 4 FROM vectors WHERE model = ?", model).Scan(dims)
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// searchGraph returns the best chunk of each of the top k documents among
// chunks whose document passes allow (nil: all).
func searchGraph(ix *vector.Index, q []float32, k int, allow func(doc int64) bool, admitted int) ([]hit, error) {
	vq := vector.Query{Vector: q, K: k * 3, Admitted: admitted}
	if allow != nil {
		vq.Filter = func(key int64) bool { return allow(store.DocOfChunk(key)) }
	}
	hs, err := ix.Search(vq)
	if err != nil {
		return nil, err
	}
	var out []hit
	seen := map[int64]bool{}
	for _, h := range hs {
		doc := store.DocOfChunk(h.Key)
		if seen[doc] {
			continue
		}
		seen[doc] = true
		out = append(out, hit{DocID: doc, ChunkID: h.Key, Score: float64(h.Score)})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// errNoVectors is returned when the index has no vectors for the model.
var errNoVectors = gnoerr.New(gnoerr.Unavailable, "vectors not available: run `gno index` (or `gno embed`) to build them")

// vectorHits embeds text and returns the top documents by similarity.
func (e *Engine) vectorHits(ctx context.Context, text string, f store.Filter, k int) ([]hit, error) {
	emb, err := e.embedder(ctx)
	if err != nil {
		return nil, err
	}
	ix, err := e.vectors(ctx, emb.ModelID())
	if err != nil {
		return nil, err
	}
	if ix.Len() == 0 {
		return nil, errNoVectors
	}
	vecs, err := emb.Embed(ctx, []string{text}, inference.Query)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	allow, admitted, err := e.allowed(ctx, f)
	if err != nil {
		return nil, err
	}
	hits, err := searchGraph(ix, vecs[0], k, allow, admitted)
	if err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Explain = &Explain{VectorRank: i + 1, VectorScore: round4(hits[i].Score)}
		hits[i].Score = math.Max(0, math.Min(1, hits[i].Score))
	}
	return hits, nil
}

// allowed returns a predicate over document ids for a filter, nil if the
// filter lets everything through. The filter applies before the top-k.
func (e *Engine) allowed(ctx context.Context, f store.Filter) (func(int64) bool, int, error) {
	if f.Empty() {
		return nil, 0, nil
	}
	st, err := e.store(ctx)
	if err != nil {
		return nil, 0, err
	}
	ids, err := st.FilterDocs(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	// Documents average about one chunk; the graph only needs an estimate.
	return func(id int64) bool { return ids[id] }, len(ids) + 1, nil
}

// VSearch runs a vector search: embed the query, scan chunk vectors, best
// chunk per document.
func (e *Engine) VSearch(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	start := time.Now()
	f, err := e.prepare(ctx, &req)
	if err != nil {
		return nil, err
	}
	hits, err := e.vectorHits(ctx, req.Query, f, req.Limit)
	if err != nil {
		if gnoerr.Is(err, gnoerr.Unavailable) && !errors.Is(err, errNoVectors) {
			return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "vectors not available: install an embedding model (`make models`) and run `gno index`")
		}
		return nil, err
	}
	res, err := e.results(ctx, hits, ftsquery.Parse(req.Query), req)
	if err != nil {
		return nil, err
	}
	res.Meta.Mode = "vector"
	res.Meta.VectorsUsed = true
	if req.Explain {
		res.Meta.Timings = map[string]float64{"total": ms(time.Since(start))}
	}
	return res, nil
}
