package retrieval

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gnosearch/gno/retrieval/store"
)

// The counts `gno status` shows — documents, chunks and vectors per
// collection, links and unresolved links — take a pass over every document,
// chunk and link (8 s of CPU at a million documents; resolving links needs
// every name). The store keeps them (store.Backend's CountsCache: a file
// beside a SQLite index, a meta row on Postgres that every server shares),
// keyed by what they depend on: the store's writes counter (bumped in every write
// batch's transaction, starting at a random value, so a rebuilt index
// never matches an old key), the embedding model and its vector count
// (vectors are added without a batch, never moved between chunks). A key
// that differs is recomputed; a cache torn by a kill does not parse or does
// not match. So the cache is never wrong, only missing or stale, and status
// costs a scan once per change of the index instead of every time.

type statusCounts struct {
	Key   string                            `json:"key"`
	Stats map[string]*store.CollectionStats `json:"stats"`
	Links map[string]*store.LinkStats       `json:"links"`
}

// counts returns the status counts of the committed index, from the
// cache when its key is current. Run it in a read snapshot.
func (e *Engine) counts(ctx context.Context, st store.Backend, model string) (*statusCounts, error) {
	writes, err := st.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	key := "w" + writes + "|m" + model
	if model != "" {
		n, _, err := st.VectorCount(ctx, model)
		if err != nil {
			return nil, err
		}
		key += "|v" + strconv.Itoa(n)
	}
	if writes != "" {
		if b, err := st.CountsCache(ctx); err == nil && b != nil {
			var c statusCounts
			if json.Unmarshal(b, &c) == nil && c.Key == key && c.Stats != nil {
				return &c, nil
			}
		}
	}
	c := &statusCounts{Key: key}
	if c.Stats, err = st.Stats(ctx, model); err != nil {
		return nil, err
	}
	if c.Links, err = st.LinkStats(ctx); err != nil {
		c.Links = nil // status shows no link counts, as before
	}
	if writes != "" && c.Links != nil {
		// A read-only index folder or replica just keeps none.
		if b, err := json.Marshal(c); err == nil {
			st.PutCountsCache(ctx, b)
		}
	}
	return c, nil
}
