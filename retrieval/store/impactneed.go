package store

import "context"

// PostingsNeeded says whether BuildPostings would build, read without
// the writer lock (an optional capability the engine asks for: a backend
// without postings of its own lacks it). The answer can be stale by the
// time a caller takes the lock; BuildPostings checks again under it.
func (s *Store) PostingsNeeded(ctx context.Context, behind bool) (bool, error) {
	return s.postingsNeeded(ctx, behind)
}
