package onnx

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
)

// Embedder is an inference.Embedder running a sentence-embedding model
// in-process. It loads the model on first use and is safe for concurrent
// use.
type Embedder struct {
	s *session
	// pick, when set (TuneQueries), runs each one-text query on this
	// session or a two-thread one, whichever is faster now.
	pick atomic.Pointer[queryPick]
	// tuneMu is held by TuneQueries and Close, so a session being tuned
	// is never left open behind a closed embedder; it guards tuned, when
	// TuneQueries last measured.
	tuneMu sync.Mutex
	tuned  time.Time
}

var _ inference.Embedder = (*Embedder)(nil)

// OpenEmbedder prepares an embedder for the model in opts.ModelDir. It
// checks that the files exist; the model itself is loaded on the first
// Embed or Load call, so opening is cheap.
func OpenEmbedder(ctx context.Context, opts Options) (*Embedder, error) {
	if opts.Spec.Role != models.RoleEmbed {
		return nil, fmt.Errorf("open embedder: %s is a %s model", opts.Spec.Name, opts.Spec.Role)
	}
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	return &Embedder{s: s}, ctx.Err()
}

// Load loads the model now instead of on first use, reporting a broken
// model (not ONNX, wrong inputs or outputs, mismatched tokenizer) early.
func (e *Embedder) Load() error { return e.s.load() }

// Embed returns one L2-normalised vector per text, with the model's query
// or passage prefix applied. Texts longer than the model's maximum length
// are truncated (see Stats).
func (e *Embedder) Embed(ctx context.Context, texts []string, kind inference.TextKind) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if p := e.pick.Load(); p != nil && len(texts) == 1 && kind == inference.Query {
		return p.embed(ctx, e, texts)
	}
	return e.embedOn(ctx, e.s, texts, kind)
}

// embedOn embeds texts with session s (the embedder's own, or its query
// session: same model and tokenizer).
func (e *Embedder) embedOn(ctx context.Context, s *session, texts []string, kind inference.TextKind) ([][]float32, error) {
	if err := s.load(); err != nil {
		return nil, err
	}
	spec := s.opts.Spec
	prefix := spec.DocPrefix
	if kind == inference.Query {
		prefix = spec.QueryPrefix
	}
	encs := make([]Encoded, len(texts))
	for i, t := range texts {
		enc, err := s.tok.Encode(prefix + t)
		if err != nil {
			return nil, err
		}
		encs[i] = enc
		if enc.Truncated {
			s.truncated.Add(1)
		}
	}
	s.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	err := s.each(ctx, s.plan(encs), func(b batch) error {
		data, shape, err := s.run(ctx, b)
		if err != nil {
			return err
		}
		vecs, err := e.pool(data, shape, b)
		if err != nil {
			return err
		}
		for j, i := range b.idx {
			out[i] = vecs[j] // distinct i per batch: no race
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pool reduces the output of one batch to one normalised vector per text.
func (e *Embedder) pool(data []float32, shape []int64, b batch) ([][]float32, error) {
	spec := e.s.opts.Spec
	dim := spec.Dims
	rows := len(b.encs)
	vecs := make([][]float32, rows)
	switch spec.Pooling {
	case models.PoolNone:
		if len(shape) != 2 || shape[0] != int64(rows) || shape[1] != int64(dim) {
			return nil, fmt.Errorf("model %s: output %s has shape %v, want [%d %d]", spec.Name, e.s.output.Name, shape, rows, dim)
		}
		for r := range vecs {
			vecs[r] = append([]float32(nil), data[r*dim:(r+1)*dim]...)
		}
	case models.PoolCLS, models.PoolMean:
		if len(shape) != 3 || shape[0] != int64(rows) || shape[2] != int64(dim) {
			return nil, fmt.Errorf("model %s: output %s has shape %v, want [%d seq %d]", spec.Name, e.s.output.Name, shape, rows, dim)
		}
		seq := int(shape[1])
		for r, enc := range b.encs {
			v := make([]float32, dim)
			base := r * seq * dim
			if spec.Pooling == models.PoolCLS {
				copy(v, data[base:base+dim])
			} else {
				// Mean over real tokens only; accumulate in float64 as the
				// reference does in numpy, so long texts agree closely.
				acc := make([]float64, dim)
				for t := range enc.IDs {
					row := data[base+t*dim : base+(t+1)*dim]
					for k, x := range row {
						acc[k] += float64(x)
					}
				}
				n := float64(len(enc.IDs))
				for k := range v {
					v[k] = float32(acc[k] / n)
				}
			}
			vecs[r] = v
		}
	}
	for _, v := range vecs {
		normalize(v)
	}
	return vecs, nil
}

func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// Dim is the vector length, from the registry and checked against the
// model's output when it loads.
func (e *Embedder) Dim() int { return e.s.opts.Spec.Dims }

// ModelID names the model, so vectors made by another are known stale.
func (e *Embedder) ModelID() string { return e.s.opts.ModelID }

// Stats reports the work done so far.
func (e *Embedder) Stats() Stats { return e.s.stats() }

// Close releases the ONNX Runtime session; later calls fail.
func (e *Embedder) Close() error {
	e.tuneMu.Lock()
	defer e.tuneMu.Unlock()
	if p := e.pick.Swap(nil); p != nil {
		p.q.close()
	}
	return e.s.close()
}
