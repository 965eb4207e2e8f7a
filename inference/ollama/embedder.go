package ollama

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/gnosearch/gno/inference"
)

// EmbedderConfig configures an Ollama-served embedding model (/api/embed).
type EmbedderConfig struct {
	// URL of the server; empty means OLLAMA_HOST, then 127.0.0.1:11434.
	URL string
	// Model is the Ollama model name, e.g. "nomic-embed-text". Required.
	Model string
	// QueryPrefix and DocumentPrefix are prepended by text kind, for models
	// trained with them (nomic-embed-text: "search_query: " and
	// "search_document: "; e5: "query: " and "passage: ").
	QueryPrefix, DocumentPrefix string
	// Dimensions asks the server to truncate vectors (Matryoshka models);
	// 0 keeps the model's own size, learnt from the first response.
	Dimensions int
	// BatchSize is how many texts go in one request (default 32).
	BatchSize int
	// Timeout bounds a call whose context has no deadline (default 60s).
	Timeout time.Duration
	// HTTPClient replaces the default client (no timeout, capped bodies).
	HTTPClient *http.Client
}

// Embedder implements inference.Embedder over Ollama's /api/embed. It is
// safe for concurrent use.
type Embedder struct {
	client  *api.Client
	hc      *http.Client
	cfg     EmbedderConfig
	timeout time.Duration

	mu  sync.Mutex
	dim int // 0 until the first response (or cfg.Dimensions)
}

var _ inference.Embedder = (*Embedder)(nil)

// NewEmbedder checks the configuration without contacting the server; call
// Probe to learn Dim and to fail early when the server or model is missing.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	cfg.Model = strings.TrimSpace(cfg.Model)
	if cfg.Model == "" {
		return nil, errors.New("ollama embedder: no model configured")
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("ollama embedder: dimensions %d < 0", cfg.Dimensions)
	}
	base, err := resolveHost(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("ollama embedder: %w", err)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	e := &Embedder{cfg: cfg, timeout: cfg.Timeout, dim: cfg.Dimensions}
	if e.timeout <= 0 {
		e.timeout = 60 * time.Second
	}
	e.client, e.hc = newClient(base, cfg.HTTPClient, 256<<20)
	return e, nil
}

// Dim is the vector length: cfg.Dimensions, else what the first response
// carried; 0 before any successful Embed or Probe.
func (e *Embedder) Dim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// ModelID is "ollama:<model>", plus "@<dims>" when truncation was asked
// for, so vectors of another size are recognised as stale.
func (e *Embedder) ModelID() string {
	id := "ollama:" + e.cfg.Model
	if e.cfg.Dimensions > 0 {
		id += "@" + strconv.Itoa(e.cfg.Dimensions)
	}
	return id
}

// Close drops idle connections to the server.
func (e *Embedder) Close() error {
	closeIdle(e.hc)
	return nil
}

// Probe embeds one short text, so Dim is known and a missing server or
// model is reported before indexing starts.
func (e *Embedder) Probe(ctx context.Context) (int, error) {
	if _, err := e.Embed(ctx, []string{"dimension probe"}, inference.Query); err != nil {
		return 0, err
	}
	return e.Dim(), nil
}

// Embed returns one L2-normalised vector per text. A response with the
// wrong count, a changed dimension or non-finite values is an
// ErrBadResponse; an all-zero vector is returned as is.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind inference.TextKind) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, classify("embed", err)
	}
	ctx, cancel := withDefaultTimeout(ctx, e.timeout)
	defer cancel()

	prefix := e.cfg.DocumentPrefix
	if kind == inference.Query {
		prefix = e.cfg.QueryPrefix
	}
	truncate := true
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		input := make([]string, len(batch))
		for i, t := range batch {
			input[i] = prefix + t
		}
		resp, err := e.client.Embed(ctx, &api.EmbedRequest{
			Model: e.cfg.Model, Input: input, Truncate: &truncate, Dimensions: e.cfg.Dimensions,
		})
		if err != nil {
			return nil, classify("embed", err)
		}
		if len(resp.Embeddings) != len(batch) {
			return nil, newErr(ErrBadResponse, "embed",
				fmt.Sprintf("%d vectors for %d texts", len(resp.Embeddings), len(batch)), nil)
		}
		for i, v := range resp.Embeddings {
			if err := e.checkDim(len(v)); err != nil {
				return nil, err
			}
			if err := normalize(v); err != nil {
				return nil, newErr(ErrBadResponse, "embed", fmt.Sprintf("vector %d: %v", start+i, err), nil)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// checkDim learns the dimension from the first vector and then holds
// every later vector to it, so an index never mixes sizes.
func (e *Embedder) checkDim(n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n == 0 {
		return newErr(ErrBadResponse, "embed", "empty vector", nil)
	}
	if e.dim == 0 {
		e.dim = n
		return nil
	}
	if n != e.dim {
		return newErr(ErrBadResponse, "embed", fmt.Sprintf("vector has %d dimensions, want %d", n, e.dim), nil)
	}
	return nil
}

// normalize scales v to unit length in place; the sum runs in float64 so
// large dimensions do not lose precision.
func normalize(v []float32) error {
	var ss float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errors.New("non-finite value")
		}
		ss += f * f
	}
	if ss == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return nil
}
