package onnx

import (
	"context"
	"fmt"
	"math"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/models"
)

// Reranker is an inference.Reranker running a cross-encoder in-process:
// each (query, passage) pair is encoded together, truncated longest side
// first, and its relevance logit mapped to [0, 1] with a sigmoid. It loads
// the model on first use and is safe for concurrent use.
type Reranker struct {
	s *session
}

var _ inference.Reranker = (*Reranker)(nil)

// OpenReranker prepares a reranker for the model in opts.ModelDir; the
// model is loaded on the first Score or Load call. opts.MaxTokens caps the
// pair length to hold a latency budget.
func OpenReranker(ctx context.Context, opts Options) (*Reranker, error) {
	if opts.Spec.Role != models.RoleRerank {
		return nil, fmt.Errorf("open reranker: %s is a %s model", opts.Spec.Name, opts.Spec.Role)
	}
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	return &Reranker{s: s}, ctx.Err()
}

// Load loads the model now instead of on first use.
func (r *Reranker) Load() error { return r.s.load() }

// Score returns one relevance score in [0, 1] per passage, in order.
func (r *Reranker) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	if len(passages) == 0 {
		return nil, nil
	}
	if err := r.s.load(); err != nil {
		return nil, err
	}
	encs := make([]Encoded, len(passages))
	for i, p := range passages {
		enc, err := r.s.tok.EncodePair(query, p)
		if err != nil {
			return nil, err
		}
		encs[i] = enc
		if enc.Truncated {
			r.s.truncated.Add(1)
		}
	}
	r.s.texts.Add(int64(len(passages)))
	out := make([]float32, len(passages))
	err := r.s.each(ctx, r.s.plan(encs), func(b batch) error {
		data, shape, err := r.s.run(ctx, b)
		if err != nil {
			return err
		}
		rows := len(b.idx)
		if len(shape) != 2 || shape[0] != int64(rows) || (shape[1] != 1 && shape[1] != 2) {
			return fmt.Errorf("model %s: output %s has shape %v, want [%d 1] logits", r.s.opts.Spec.Name, r.s.output.Name, shape, rows)
		}
		width := int(shape[1])
		for j, i := range b.idx {
			logit := float64(data[j*width+width-1])
			if width == 2 { // two-class head: the relevant class against the other
				logit -= float64(data[j*width])
			}
			out[i] = float32(1 / (1 + math.Exp(-logit)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ModelID names the model.
func (r *Reranker) ModelID() string { return r.s.opts.ModelID }

// IsTestModel reports the untrained test cross-encoder, which must never
// rank a user's results.
func (r *Reranker) IsTestModel() bool { return r.s.opts.Spec.Test }

// Stats reports the work done so far.
func (r *Reranker) Stats() Stats { return r.s.stats() }

// Close releases the ONNX Runtime session; later calls fail.
func (r *Reranker) Close() error { return r.s.close() }
