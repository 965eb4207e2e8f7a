package retrieval

import (
	"context"
	"fmt"
	"slices"

	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/store"
)

// linksOf is the links document id makes, as its sync wrote them (kind,
// line, target, fragment, alias: all a store keeps of a link), so the
// destination resolves them by its own documents as a sync would.
func (c *copier) linksOf(ctx context.Context, id int64) ([]links.Link, error) {
	rows, err := c.src.LinksFrom(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]links.Link, len(rows))
	for i, r := range rows {
		out[i] = links.Link{Kind: r.Kind, Target: r.Target, Fragment: r.Fragment, Alias: r.Alias, Line: r.Line}
	}
	return out, nil
}

// statesWithHashes is the destination's documents of col with their
// hashes, which DocStates may leave out (an unchanged sync needs none)
// and resuming compares.
func (c *copier) statesWithHashes(ctx context.Context, col string) (map[string]store.DocState, error) {
	have, err := c.dst.DocStates(ctx, col)
	if err != nil || len(have) == 0 {
		return have, err
	}
	rels := make([]string, 0, len(have))
	for rel := range have {
		rels = append(rels, rel)
	}
	return c.dst.DocStatesOf(ctx, col, rels)
}

// sameTags reports whether two documents' tag lists hold the same tags.
func sameTags(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// lockedStore takes the writer lock of the index at loc, then opens it;
// done closes it and releases the lock.
func lockedStore(ctx context.Context, loc string) (st store.Backend, done func(), err error) {
	lock, err := store.LockBackend(ctx, loc, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", store.Redact(loc), err)
	}
	st, err = store.OpenBackend(ctx, loc)
	if err != nil {
		lock.Unlock()
		return nil, nil, damaged(store.Redact(loc), err)
	}
	return st, func() { st.Close(); lock.Unlock() }, nil
}
