//go:build unix

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/vector"
	"github.com/gnosearch/gno/retrieval/vector/vectortest"
)

// The phases over a real gno index: fill and open.

// fill stores a synthetic vector for every chunk of the index that has
// none, under model, in batches (one vectors_version each, as gno embed
// writes them).
func fill(index, model string, dims, clusters int, seed uint64) error {
	ctx := context.Background()
	st, queue, err := openQueue(ctx, index)
	if err != nil {
		return err
	}
	defer st.Close()
	t0, c0 := time.Now(), cpu()
	vecs := vectortest.Clustered(len(queue), clusters, dims, seed)
	const batch = 10_000
	for at := 0; at < len(queue); at += batch {
		end := min(at+batch, len(queue))
		ids := make([]int64, 0, end-at)
		for _, q := range queue[at:end] {
			ids = append(ids, q.ID)
		}
		if err := st.PutVectors(ctx, model, ids, vecs[at:end]); err != nil {
			return err
		}
	}
	fmt.Printf("filled %d chunks with %d-dim vectors of %s: wall %s, cpu %s\n", len(queue), dims, model,
		time.Since(t0).Round(time.Millisecond), (cpu() - c0).Round(time.Millisecond))
	return nil
}

// openQueue opens the index and lists its chunks that have no vector.
func openQueue(ctx context.Context, index string) (*store.Store, []store.Queued, error) {
	st, err := store.Open(ctx, index)
	if err != nil {
		return nil, nil, err
	}
	queue, err := st.EmbedQueue(ctx, "")
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, queue, nil
}

// openOnly opens a saved graph and walks it once for a random query.
func openOnly(graph, model string, dims int, seed uint64) error {
	t0, c0 := time.Now(), cpu()
	g, err := vector.Open(graph, dims, model, vector.Params{})
	if err != nil {
		return err
	}
	fmt.Printf("open %d vectors: wall %s, cpu %s; RSS %s\n", g.Len(), time.Since(t0).Round(time.Microsecond),
		(cpu() - c0).Round(time.Microsecond), rss())
	q := vectortest.Clustered(1, 1, dims, seed)[0]
	t0, c0 = time.Now(), cpu()
	hits, err := g.Search(vector.Query{Vector: q, K: 10})
	if err != nil {
		return err
	}
	fmt.Printf("first walk (cold pages), %d hits: wall %s, cpu %s; RSS %s\n", len(hits), time.Since(t0).Round(time.Microsecond),
		(cpu() - c0).Round(time.Microsecond), rss())
	return nil
}
