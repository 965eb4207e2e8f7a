package onnx

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gnosearch/gno/models"
)

// Options say which model to run and how.
type Options struct {
	// ModelDir holds the model's model.onnx and tokenizer.json.
	ModelDir string
	// Spec describes the model (pooling, prefixes, output, max length).
	Spec models.Model
	// ORTLib is the ONNX Runtime library to load; empty means Init was
	// called already.
	ORTLib string
	// Threads is ONNX Runtime's intra-op thread count per forward pass;
	// 0 means DefaultThreads.
	Threads int
	// BatchSize caps texts per forward pass; 0 means 32.
	BatchSize int
	// Parallel is how many forward passes one call runs at once; 0 means
	// DefaultParallel (one per core). With one intra-op thread each, every
	// core runs whole passes with no cross-thread synchronisation.
	Parallel int
	// MaxTokens overrides Spec.MaxTokens when smaller (to hold a latency
	// budget, e.g. for reranking); 0 keeps the model's.
	MaxTokens int
	// ModelID overrides the ID reported to callers; empty means Spec.Name.
	ModelID string
	// NoCache loads the model without the optimized-model cache (see
	// optcache.go): neither read nor written.
	NoCache bool
	// NoSpin makes idle intra-op threads sleep at once instead of
	// spinning for more work: for a session that runs one short pass now
	// and then (TuneQueries' query session), whose spinning threads would
	// otherwise burn a core after every query.
	NoSpin bool
}

// Stats counts work done, for progress reports and benchmarks.
type Stats struct {
	Texts     int64 // texts encoded
	Truncated int64 // texts cut to the model's maximum length
	Tokens    int64 // real tokens fed to the model
	Padded    int64 // padding tokens fed to the model
	Batches   int64 // forward passes
}

// session is a lazily loaded model: tokenizer, graph checks and an ONNX
// Runtime session, shared by the embedder and the reranker.
type session struct {
	opts Options

	once    sync.Once
	loadErr error
	tok     *Tokenizer
	sess    *ort.DynamicAdvancedSession
	inputs  []string // fed, in graph order: input_ids, attention_mask[, token_type_ids]
	output  valueInfo
	cache   string // how the session was made: cacheOff, cacheHit or cacheWritten
	release func() // unmaps the cache entry the session reads its weights from

	closeMu sync.RWMutex
	closed  bool

	texts, truncated, tokens, padded, batches atomic.Int64
}

func newSession(opts Options) (*session, error) {
	if err := opts.Spec.Validate(); err != nil {
		return nil, err
	}
	if opts.ModelDir == "" {
		return nil, errors.New("open model: no model folder given")
	}
	for _, f := range []string{models.ModelFile, models.TokenizerFile} {
		if err := isFile(filepath.Join(opts.ModelDir, f)); err != nil {
			return nil, fmt.Errorf("open model %s: %w", opts.Spec.Name, err)
		}
	}
	if opts.Threads <= 0 {
		opts.Threads = DefaultThreads()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 32
	}
	if opts.Spec.Quantized {
		// Dynamically quantised graphs pick one activation scale per
		// tensor, so a text's vector would depend on what else shares its
		// batch (padding included). One text per pass keeps every vector
		// reproducible and equal to the reference.
		opts.BatchSize = 1
	}
	if opts.MaxTokens <= 0 || opts.MaxTokens > opts.Spec.MaxTokens {
		opts.MaxTokens = opts.Spec.MaxTokens
	}
	if opts.ModelID == "" {
		opts.ModelID = opts.Spec.Name
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel()
	}
	return &session{opts: opts}, nil
}

// batch is a set of encodings run in one forward pass, with their
// positions in the caller's slice.
type batch struct {
	idx  []int
	encs []Encoded
}

// plan groups encodings of similar length so little padding is fed:
// sorted by length, cut into runs of at most BatchSize texts and a token
// budget that keeps long-text batches small.
func (s *session) plan(encs []Encoded) []batch {
	order := make([]int, len(encs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(encs[order[a]].IDs) < len(encs[order[b]].IDs) })
	const tokenBudget = 8192
	var out []batch
	var cur batch
	for _, i := range order {
		n := len(encs[i].IDs)
		if len(cur.idx) > 0 && (len(cur.idx) >= s.opts.BatchSize || (len(cur.idx)+1)*n > tokenBudget) {
			out = append(out, cur)
			cur = batch{}
		}
		cur.idx = append(cur.idx, i)
		cur.encs = append(cur.encs, encs[i])
	}
	if len(cur.idx) > 0 {
		out = append(out, cur)
	}
	return out
}

// run feeds one batch, padded to its longest member, and returns the raw
// output with its shape.
func (s *session) run(ctx context.Context, b batch) ([]float32, ort.Shape, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return nil, nil, errors.New("model is closed")
	}
	rows, cols := len(b.encs), 0
	for _, e := range b.encs {
		cols = max(cols, len(e.IDs))
	}
	ids := make([]int64, rows*cols)
	mask := make([]int64, rows*cols)
	types := make([]int64, rows*cols)
	var real int64
	for r, e := range b.encs {
		copy(ids[r*cols:], e.IDs)
		copy(types[r*cols:], e.TypeIDs)
		for c := range e.IDs {
			mask[r*cols+c] = 1
		}
		real += int64(len(e.IDs))
	}
	s.tokens.Add(real)
	s.padded.Add(int64(rows*cols) - real)
	s.batches.Add(1)
	shape := ort.NewShape(int64(rows), int64(cols))
	feed := map[string][]int64{"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
	inputs := make([]ort.Value, len(s.inputs))
	for i, name := range s.inputs {
		t, err := ort.NewTensor(shape, feed[name])
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", s.opts.Spec.Name, err)
		}
		defer t.Destroy()
		inputs[i] = t
	}
	outputs := []ort.Value{nil}
	if err := s.sess.Run(inputs, outputs); err != nil {
		return nil, nil, fmt.Errorf("run %s on %d texts of %d tokens: %w", s.opts.Spec.Name, rows, cols, err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("run %s: output %s is not a float32 tensor", s.opts.Spec.Name, s.output.Name)
	}
	out := append([]float32(nil), t.GetData()...)
	return out, t.GetShape().Clone(), nil
}

// each runs fn on every batch, Parallel at a time, and returns the first
// error.
func (s *session) each(ctx context.Context, batches []batch, fn func(batch) error) error {
	workers := min(s.opts.Parallel, len(batches))
	if workers <= 1 {
		for _, b := range batches {
			if err := fn(b); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan batch)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if err := fn(b); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case next <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

func (s *session) stats() Stats {
	return Stats{
		Texts: s.texts.Load(), Truncated: s.truncated.Load(), Tokens: s.tokens.Load(),
		Padded: s.padded.Load(), Batches: s.batches.Load(),
	}
}

func (s *session) close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.sess != nil {
		err = s.sess.Destroy()
	}
	if s.release != nil {
		s.release() // after the session: it reads weights from the mapping
	}
	return err
}
