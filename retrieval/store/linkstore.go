package store

import (
	"context"

	"github.com/gnosearch/gno/retrieval/links"
)

// LinkReads are the link reads of store.Backend, each answered from the
// LinkIndex Load returns for its context (the committed index, or the
// snapshot's the context carries). A backend embeds it with its own Load,
// so every backend's links mean the same.
type LinkReads struct {
	Load func(ctx context.Context) (*LinkIndex, error)
}

// LinksFrom is LinkIndex.LinksFrom of the index.
func (r LinkReads) LinksFrom(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.LinksFrom(id), nil
}

// LinksTo is LinkIndex.LinksTo of the index.
func (r LinkReads) LinksTo(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.LinksTo(id), nil
}

// AttachmentsTo is LinkIndex.AttachmentsTo of the index.
func (r LinkReads) AttachmentsTo(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.AttachmentsTo(id), nil
}

// Unresolved is LinkIndex.Unresolved of the index.
func (r LinkReads) Unresolved(ctx context.Context, collection string, limit int) ([]LinkRow, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.Unresolved(collection, limit), nil
}

// LinkStats is LinkIndex.LinkStats of the index.
func (r LinkReads) LinkStats(ctx context.Context) (map[string]*LinkStats, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.LinkStats(), nil
}

// LinkGraph is LinkIndex.LinkGraph of the index.
func (r LinkReads) LinkGraph(ctx context.Context, collections []string) ([]int64, [][2]int64, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	r0, r1 := idx.LinkGraph(collections)
	return r0, r1, nil
}

// Candidates is LinkIndex.Candidates of the index.
func (r LinkReads) Candidates(ctx context.Context, keys []string) (map[string][]links.Candidate, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.Candidates(keys), nil
}

// DocNames is LinkIndex.DocNames of the index.
func (r LinkReads) DocNames(ctx context.Context, collections []string) ([]DocName, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.DocNames(collections), nil
}

// NoteNames is LinkIndex.NoteNames of the index.
func (r LinkReads) NoteNames(ctx context.Context, collections []string) ([]NoteName, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.NoteNames(collections), nil
}

// NoteNamesOf is LinkIndex.NoteNamesOf of the index.
func (r LinkReads) NoteNamesOf(ctx context.Context, ids []int64) ([]NoteName, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.NoteNamesOf(ids), nil
}

// UnresolvedFrom is LinkIndex.UnresolvedFrom of the index.
func (r LinkReads) UnresolvedFrom(ctx context.Context, ids []int64) ([]LinkRow, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.UnresolvedFrom(ids), nil
}

// LinkGraphSince is LinkIndex.LinkGraphSince of the index.
func (r LinkReads) LinkGraphSince(ctx context.Context, base uint64, touched []int64) (*LinkGraphDelta, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.LinkGraphSince(base, touched), nil
}

// LinkGraphAmong is LinkIndex.LinkGraphAmong of the index.
func (r LinkReads) LinkGraphAmong(ctx context.Context, ids []int64) ([][2]int64, error) {
	idx, err := r.Load(ctx)
	if err != nil {
		return nil, err
	}
	return idx.LinkGraphAmong(ids), nil
}
