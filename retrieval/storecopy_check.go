package retrieval

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/query"
	"github.com/gnosearch/gno/retrieval/store"
)

// The checks of a store copy (storecopy.go): the names first (refuseNames),
// and at the end the counts, then a sample of searches, on both sides.

// checkSearches is how many titles' words are searched on both sides.
const checkSearches = 20

// check compares the counts and a sample of searches on both sides.
func (c *copier) check(ctx context.Context) error {
	c.progress(CopyProgress{Stage: "check", Total: checkSearches})
	sc, err := c.src.ChunkCount(ctx)
	if err != nil {
		return err
	}
	dc, err := c.dst.ChunkCount(ctx)
	if err != nil {
		return err
	}
	c.res.Chunks = sc
	if sc != dc {
		return copyMismatch("chunks: %d in the source, %d in the copy", sc, dc)
	}
	if len(c.docMap) != c.res.Documents {
		return copyMismatch("documents: %d in the source, %d copied", c.res.Documents, len(c.docMap))
	}
	if c.res.Model != "" {
		sv, _, err := c.src.VectorCount(ctx, c.res.Model)
		if err != nil {
			return err
		}
		dv, _, err := c.dst.VectorCount(ctx, c.res.Model)
		if err != nil {
			return err
		}
		c.res.Vectors = sv
		if sv != dv {
			return copyMismatch("vectors of %s: %d in the source, %d in the copy", c.res.Model, sv, dv)
		}
	}
	return c.checkSearches(ctx)
}

// checkSearches searches the words of titles spread over the index on both
// sides and wants the same documents in the same order.
func (c *copier) checkSearches(ctx context.Context) error {
	n := c.res.Documents
	if n == 0 {
		return nil
	}
	step := max(n/checkSearches, 1)
	for i := 0; i < n && c.res.Searches < checkSearches; i += step {
		m, err := c.src.List(ctx, nil, "", 1, i)
		if err != nil {
			return err
		}
		if len(m) == 0 || strings.TrimSpace(m[0].Title) == "" {
			continue
		}
		q := query.Parse(m[0].Title)
		if q.Empty() {
			continue
		}
		a, err := c.src.SearchFTS(ctx, q, store.Filter{}, 10)
		if err != nil {
			return err
		}
		b, err := c.dst.SearchFTS(ctx, q, store.Filter{}, 10)
		if err != nil {
			return err
		}
		if len(a) != len(b) {
			return copyMismatch("a search for %q finds %d chunks in the source, %d in the copy", m[0].Title, len(a), len(b))
		}
		if !c.sameHits(a, b) {
			return copyMismatch("a search for %q ranks differently in the copy", m[0].Title)
		}
		c.res.Searches++
		c.progress(CopyProgress{Stage: "check", Done: c.res.Searches, Total: checkSearches})
	}
	return nil
}

// sameHits reports whether the copy's hits b are the source's a: the same
// chunks with the same scores, in any order among equal scores (documents
// have other ids there, which break ties); a tie at the cut may keep
// other chunks, so only hits scoring above the last are compared.
func (c *copier) sameHits(a, b []store.ChunkHit) bool {
	if len(a) != len(b) {
		return false
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-6*max(math.Abs(x), math.Abs(y), 1) }
	got := make(map[int64]float64, len(b))
	for _, h := range b {
		got[h.ChunkID] = h.Score
	}
	for k, h := range a {
		if !near(h.Score, b[k].Score) {
			return false
		}
		if near(h.Score, a[len(a)-1].Score) {
			continue
		}
		s, ok := got[store.ChunkID(c.docMap[h.DocID], int(h.ChunkID&0xffff))]
		if !ok || !near(s, h.Score) {
			return false
		}
	}
	return true
}

func copyMismatch(format string, args ...any) error {
	return gnoerr.New(gnoerr.Conflict, "the copy differs from its source: "+format+"; run the copy again to resume it", args...)
}

// refuseNames refuses, before anything is written, a copy of documents
// whose names the destination cannot hold (PostgreSQL: not UTF-8): a sync
// into it skips those files, so no copy of them could be equal. The user
// renames them first.
func (c *copier) refuseNames(ctx context.Context) error {
	cols, err := c.src.CollectionNames(ctx)
	if err != nil {
		return err
	}
	for _, col := range cols {
		docs, err := c.src.DocStates(ctx, col)
		if err != nil {
			return err
		}
		var bad []string
		for rel := range docs {
			if c.dst.PathProblem(rel) != "" {
				bad = append(bad, rel)
			}
		}
		if len(bad) > 0 {
			slices.Sort(bad)
			return gnoerr.New(gnoerr.InvalidInput, "%d document(s) of %s cannot be copied to %s (nothing was copied): %s: %s; rename the file(s) and run gno update first",
				len(bad), col, c.res.To, strconv.Quote(bad[0]), c.dst.PathProblem(bad[0]))
		}
	}
	return nil
}
