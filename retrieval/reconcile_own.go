package retrieval

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// A document that governs nothing is diffed with itself: since a
// generation from the earlier-version store, or against a git base
// branch (planned in the read snapshot, diffed by git after it).

// ownDiff is a document's own diff since a generation, or the plan of
// its diff against a git base branch (cs).
func (n *Notes) ownDiff(ctx context.Context, st store.Backend, m *store.DocMeta, req DiffRequest, cs *changeSet, out *DiffResult, budget int) (*diffPlan, error) {
	if cs != nil {
		if cs.mergeBase[m.Collection] == "" {
			col, _ := n.e.Config().Collection(m.Collection)
			where := m.Collection
			if col != nil {
				where += " (" + col.Path + ")"
			}
			return nil, gnoerr.New(gnoerr.InvalidInput, "collection %s is not inside a git work tree: --base needs git; use --since GEN", where)
		}
		p := &diffPlan{out: out, own: true, bud: &tokenBudget{max: budget}}
		for _, f := range cs.files {
			if f.collection == m.Collection && f.rel == m.RelPath {
				p.todo = append(p.todo, f)
			}
		}
		return p, nil
	}
	if req.Since == nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s governs nothing: give --since GEN (or --base BRANCH) for its own diff", out.URI)
	}
	d, whole, large, err := textDiff(ctx, st, m.Collection, m.RelPath, *req.Since)
	if err != nil {
		return nil, err
	}
	if large {
		out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: out.URI, Reason: fmt.Sprintf("larger than %d bytes", MaxDiffFile)})
	}
	if whole != nil {
		out.Whole = append(out.Whole, *whole)
		out.Message = fmt.Sprintf("the text of %s at generation %d is no longer kept (gno cleanup, or the earlier-version store's limit): here is the whole current text", out.URI, *req.Since)
	}
	var parts []filePart
	if d != "" {
		parts = append(parts, filePart{uri: out.URI, diff: d})
	}
	return &diffPlan{out: ownFinish(out, parts, budget), done: true}, nil
}

// ownFinish completes a document's own diff within the budget.
func ownFinish(out *DiffResult, parts []filePart, budget int) *DiffResult {
	for _, p := range parts {
		out.Diff += p.diff
	}
	if out.Diff != "" {
		out.Files = append(out.Files, out.URI)
	}
	if chunk.EstimateTokens(out.Diff) > budget {
		out.Omitted, out.Files, out.Diff = out.Files, []string{}, ""
		out.Message = fmt.Sprintf("the diff is larger than the budget of %d tokens", budget)
	}
	for i := range out.Whole {
		if chunk.EstimateTokens(out.Whole[i].Content) > budget {
			out.Whole[i].Content = ""
			out.Message += " (larger than the budget: read it with gno get)"
		}
	}
	return out
}
