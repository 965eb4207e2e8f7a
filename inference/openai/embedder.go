package openai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/gnosearch/gno/inference"
)

// EmbedderConfig configures an embedding model served at /embeddings.
type EmbedderConfig struct {
	Config
	// QueryPrefix and DocumentPrefix are prepended by text kind, for models
	// trained with them (e5: "query: " / "passage: ").
	QueryPrefix, DocumentPrefix string
	// Dimensions asks the server to shorten vectors (OpenAI text-embedding-3,
	// Matryoshka models); 0 keeps the model's own size.
	Dimensions int
	// BatchSize is how many texts go in one request (default 64).
	BatchSize int
}

// Embedder implements inference.Embedder over /embeddings. It is safe for
// concurrent use.
type Embedder struct {
	c   *client
	cfg EmbedderConfig

	mu  sync.Mutex
	dim int
}

var _ inference.Embedder = (*Embedder)(nil)

// NewEmbedder checks the configuration without contacting the server; call
// Probe to learn Dim and fail early when the server or model is missing.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("openai embedder: dimensions %d < 0", cfg.Dimensions)
	}
	c, err := newClient("embedder", cfg.Config)
	if err != nil {
		return nil, err
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	return &Embedder{c: c, cfg: cfg, dim: cfg.Dimensions}, nil
}

// Dim is the vector length: cfg.Dimensions, else what the first response
// carried; 0 before any successful Embed or Probe.
func (e *Embedder) Dim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// ModelID is "openai:<model>", plus "@<dims>" when shortening was asked
// for, so vectors of another size are recognised as stale.
func (e *Embedder) ModelID() string {
	id := "openai:" + e.c.model
	if e.cfg.Dimensions > 0 {
		id += "@" + strconv.Itoa(e.cfg.Dimensions)
	}
	return id
}

// Close drops idle connections.
func (e *Embedder) Close() error {
	e.c.close()
	return nil
}

// Probe embeds one short text, so Dim is known and a missing server or
// model shows before indexing starts.
func (e *Embedder) Probe(ctx context.Context) (int, error) {
	if _, err := e.Embed(ctx, []string{"dimension probe"}, inference.Query); err != nil {
		return 0, err
	}
	return e.Dim(), nil
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one L2-normalised vector per text, in input order (the
// response's "index" fields are honoured, not its order). A wrong count,
// a bad index, a changed dimension or non-finite values are ErrBadResponse.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind inference.TextKind) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	prefix := e.cfg.DocumentPrefix
	if kind == inference.Query {
		prefix = e.cfg.QueryPrefix
	}
	ctx, cancel := e.c.withTimeout(ctx)
	defer cancel()
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		req := embedRequest{Model: e.c.model, Input: make([]string, len(batch)), EncodingFormat: "float", Dimensions: e.cfg.Dimensions}
		for i, t := range batch {
			req.Input[i] = prefix + t
		}
		var resp embedResponse
		if err := e.c.post(ctx, "embed", "/embeddings", req, &resp); err != nil {
			return nil, err
		}
		if len(resp.Data) != len(batch) {
			return nil, newErr(ErrBadResponse, "embed", fmt.Sprintf("%d vectors for %d texts", len(resp.Data), len(batch)), nil)
		}
		vecs := make([][]float32, len(batch))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil {
				return nil, newErr(ErrBadResponse, "embed", fmt.Sprintf("bad or repeated index %d", d.Index), nil)
			}
			if err := e.checkDim(len(d.Embedding)); err != nil {
				return nil, err
			}
			if err := normalize(d.Embedding); err != nil {
				return nil, newErr(ErrBadResponse, "embed", fmt.Sprintf("vector %d: %v", start+d.Index, err), nil)
			}
			vecs[d.Index] = d.Embedding
		}
		out = append(out, vecs...)
	}
	return out, nil
}

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

// normalize scales v to unit length in place (sum in float64); an all-zero
// vector is left as is.
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
