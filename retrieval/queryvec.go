package retrieval

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/inference"
)

// queryVector is the embedding of the user's query, started beside BM25 of
// the same words. The two do not depend on each other, and the embedding
// is most of a fast query's CPU (bench/RESULTS.md, "Package docs"): run
// one after the other they add up; side by side, on a machine with a
// second core, the slower of the two sets the wall time. On a machine
// whose cores are all busy the two only share the process's CPU and
// nothing is gained (bench/RESULTS.md, "Query embedding beside BM25").
//
// The vector stage takes the vector from here instead of embedding the
// query again. Everything else about the stage stays as it was: it opens
// the embedder and the vector graph itself and reports their errors in
// the same order, and a budget that ran out before the pass could begin
// cuts the stage with the same note as ever (the embedder refuses).
type queryVector struct {
	model string // the embedder's ModelID: a vector from another is not used
	done  chan struct{}
	vec   []float32
	err   error
}

// prefetchQueryVector is off only in tests, which compare the prefetched
// path with the sequential one.
var prefetchQueryVector = true

// startQueryVector embeds text under ctx in a goroutine, or returns nil
// when the vector stage will not embed it: no embedder, or one known to
// have no vectors to search (the stage then stops before embedding).
// Callers check that the embedder covers text's language first.
func (e *Engine) startQueryVector(ctx context.Context, text string) *queryVector {
	if !prefetchQueryVector {
		return nil
	}
	emb, err := e.models.Embedder(ctx)
	if err != nil || emb == nil {
		return nil
	}
	model := emb.ModelID()
	if e.vectors.knownEmpty(model) {
		return nil
	}
	qv := &queryVector{model: model, done: make(chan struct{})}
	go func() {
		defer close(qv.done)
		// A panic here could not be recovered by the caller (a server's
		// handler): it becomes the stage's error instead.
		defer func() {
			if p := recover(); p != nil {
				qv.vec, qv.err = nil, fmt.Errorf("embed query: panic: %v", p)
			}
		}()
		qv.vec, qv.err = embedQuery(ctx, emb, text)
	}()
	return qv
}

// serves reports whether the prefetched vector stands in for an
// embedding of the query by emb (qv may be nil; a vector from another
// model does not).
func (qv *queryVector) serves(emb inference.Embedder) bool {
	return qv != nil && emb.ModelID() == qv.model
}

// vector waits for the query's vector, until ctx ends. ok is false when
// the prefetched vector cannot stand in for an embedding by emb (serves),
// and the caller embeds as it did before there was a prefetch.
//
// The budget rule is the sequential path's: an embedding whose pass began
// within the budget runs to its end (the embedder checks the budget
// before a pass, not during one) and its vector is used; one that could
// not begin in time fails with the embedder's refusal, and the stage is
// cut with the same note as ever. The prefetched pass begins with the
// budget, so its vector is used however long BM25 took beside it: the
// stage waits for it under the caller's context (vectorHitsFor), not the
// budget. An earlier rule, which took the vector after the budget only if
// it was already made, made the answer depend on timing where BM25 runs
// near the fast budget (SciFact claims whose BM25 takes 30-50 ms on two
// busy cores): the daemon's answer then differed from the in-process one
// in 1-2 of 300 claims (bench/RESULTS.md, "A one-shot query's start-up").
func (qv *queryVector) vector(ctx context.Context, emb inference.Embedder) (vec []float32, ok bool, err error) {
	if !qv.serves(emb) {
		return nil, false, nil
	}
	select {
	case <-qv.done: // a made vector is taken even if ctx has ended
		return qv.vec, true, qv.err
	default:
	}
	select {
	case <-qv.done:
		return qv.vec, true, qv.err
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// embedQuery embeds one query text.
func embedQuery(ctx context.Context, emb inference.Embedder, text string) ([]float32, error) {
	vecs, err := emb.Embed(ctx, []string{text}, inference.Query)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	return vecs[0], nil
}
