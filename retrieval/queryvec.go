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
// the same order, and a budget that runs out before the vector is made
// cuts the stage exactly as before (it embeds then, and the embedder
// refuses).
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

// vector returns the query's vector for emb. ok is false when the
// prefetched vector cannot stand in for an embedding started now, and the
// caller embeds as it did before there was a prefetch: another model's
// vector, or a budget that ended before the vector was made (the embedder
// then refuses, and the stage is cut with the same note as ever).
//
// The stage keeps the sequential path's rule: an embedding started within
// the budget runs to its end (the embedder checks the budget before a
// pass, not during one), so a stage that starts within the budget waits
// for the prefetch however long it takes, as it would have waited for its
// own pass. A stage that starts after the budget ended takes a vector that
// is already made: what remains is the graph search (about a
// millisecond), and BM25, sharing the CPU with the embedding, may have
// ended later than it would alone; cutting the stage then would throw a
// finished vector away.
func (qv *queryVector) vector(ctx context.Context, emb inference.Embedder) (vec []float32, ok bool, err error) {
	if qv == nil || emb.ModelID() != qv.model {
		return nil, false, nil
	}
	if ctx.Err() == nil {
		<-qv.done
	} else {
		select {
		case <-qv.done:
		default:
			return nil, false, nil
		}
	}
	if qv.err != nil && ctx.Err() != nil {
		return nil, false, nil
	}
	return qv.vec, true, qv.err
}

// embedQuery embeds one query text.
func embedQuery(ctx context.Context, emb inference.Embedder, text string) ([]float32, error) {
	vecs, err := emb.Embed(ctx, []string{text}, inference.Query)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	return vecs[0], nil
}
