package ingest

import (
	"context"
	"strconv"

	"github.com/gnosearch/gno/retrieval/store"
)

// unnamable records the files whose names the store cannot hold
// (PostgreSQL: not UTF-8, or a NUL): each is skipped with the store's
// reason, under its Go-quoted name (which the store can hold), so that
// status counts it and the rest of the collection is indexed. A recorded
// one whose size and mtime are unchanged is not written again.
func (w *writer) unnamable(ctx context.Context, cands []candidate, res *Result) error {
	for _, c := range cands {
		reason := w.st.PathProblem(c.rel)
		key := strconv.Quote(c.rel)
		res.skip(reason)
		if len(res.Errors) < 20 {
			res.Errors = append(res.Errors, key+": "+reason)
		}
		w.skipped[key] = true
		if s, ok := w.skips[key]; ok && s.Size == c.size && s.MtimeNS == c.mtimeNS && s.Reason == reason {
			continue
		}
		if err := w.begin(ctx); err != nil {
			return err
		}
		st := store.SkipState{Size: c.size, MtimeNS: c.mtimeNS, Reason: reason, Detail: key}
		if err := w.batch.PutSkip(ctx, w.col, key, st); err != nil {
			return err
		}
		if err := w.step(); err != nil {
			return err
		}
	}
	return nil
}
