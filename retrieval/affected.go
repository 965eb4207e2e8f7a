package retrieval

import (
	"context"
	"sort"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/ref"
)

// AffectedRequest asks which notes a change touches.
type AffectedRequest struct {
	// Base is a git branch: the change is the work tree (committed or
	// not, untracked files included) against the commit where the
	// current branch left Base, in each collection inside a git work tree.
	Base string
	// Since is a generation: the change is what the index saw after it.
	// One of Base and Since is required.
	Since *int64
	// Collection limits the changed files to one collection (the notes
	// affected may be in any).
	Collection string
	// MaxTokens bounds the answer (DefaultReconcileTokens if 0); notes'
	// contents that do not fit are left out and marked.
	MaxTokens int
}

// MaxWhy bounds the reasons listed per affected note.
const MaxWhy = 50

// DefaultReconcileTokens is the token budget of Affected and Diff answers.
const DefaultReconcileTokens = 8000

// AffectedWhy is one reason a note is affected: it governs (explicitly, by
// a glob) or links to (implicitly) a changed file.
type AffectedWhy struct {
	File string `json:"file"`
	// By is "governs" or "links".
	By   string `json:"by"`
	Glob string `json:"glob,omitempty"`
}

// AffectedNote is a note a change touches.
type AffectedNote struct {
	URI   string        `json:"uri"`
	DocID string        `json:"docid"`
	Title string        `json:"title"`
	Why   []AffectedWhy `json:"why"`
	// Content is the note's text, when it fits the budget.
	Content string `json:"content,omitempty"`
	// ContentOmitted is true when the content did not fit.
	ContentOmitted bool `json:"contentOmitted,omitempty"`
	// WhyOmitted counts reasons past the first MaxWhy.
	WhyOmitted int `json:"whyOmitted,omitempty"`

	governs bool
}

// Affected is the answer of Notes.Affected.
type Affected struct {
	Base       string        `json:"base,omitempty"`
	Since      *int64        `json:"since,omitempty"`
	Generation int64         `json:"generation"`
	Changed    []ChangedFile `json:"changed"`
	// ChangedOmitted counts changed files left out of Changed because the
	// list alone passed half the budget.
	ChangedOmitted int            `json:"changedOmitted,omitempty"`
	Notes          []AffectedNote `json:"notes"`
	// Warnings name refused governs globs (they match nothing).
	Warnings []string `json:"warnings"`
}

// Affected lists the files changed (against a git base branch or since a
// generation) and every note that governs one of them (its `governs`
// globs, the explicit form) or links to one (the implicit form), with why
// and, within the budget, its content.
// With a base, git runs before the index's read snapshot is taken (see
// Diff).
func (n *Notes) Affected(ctx context.Context, req AffectedRequest) (*Affected, error) {
	var cs *changeSet
	if req.Base != "" {
		var err error
		if cs, err = n.changed(ctx, req.Base, req.Since, req.Collection); err != nil {
			return nil, err
		}
	}
	return readAs(ctx, n.e, func(ctx context.Context) (*Affected, error) { return n.affected(ctx, req, cs) })
}

func (n *Notes) affected(ctx context.Context, req AffectedRequest, cs *changeSet) (*Affected, error) {
	if cs == nil {
		var err error
		if cs, err = n.changed(ctx, req.Base, req.Since, req.Collection); err != nil {
			return nil, err
		}
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	gen, err := st.Generation(ctx)
	if err != nil {
		return nil, err
	}
	notes, warn, err := governingNotes(ctx, st)
	if err != nil {
		return nil, err
	}
	out := &Affected{Base: cs.base, Generation: gen, Changed: cs.files, Notes: []AffectedNote{}, Warnings: warn}
	if out.Changed == nil {
		out.Changed = []ChangedFile{}
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if req.Base == "" {
		out.Since = req.Since
	}
	byID := map[int64]*AffectedNote{}
	note := func(id int64, uri, docid, title string) *AffectedNote {
		a := byID[id]
		if a == nil {
			a = &AffectedNote{URI: uri, DocID: docid, Title: title}
			byID[id] = a
		}
		return a
	}
	for _, f := range cs.files {
		for _, g := range notes {
			self := g.Collection == f.collection && g.RelPath == f.rel
			for _, gv := range g.Declares.Governs {
				if !self && gv.Matches(g.Collection, f.collection, f.rel) {
					a := note(g.ID, ref.URI(g.Collection, g.RelPath), docID(g.Hash), g.Title)
					a.Why = append(a.Why, AffectedWhy{File: f.URI, By: "governs", Glob: globLabel(gv, g.Collection)})
					a.governs = true
					break
				}
			}
		}
		if f.Status == "deleted" {
			continue
		}
		m, err := st.DocByPath(ctx, f.collection, f.rel)
		if err != nil {
			continue // a changed file gno does not index
		}
		in, err := st.LinksTo(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		// A note linking to a code file or another attachment gno indexes
		// is affected too (the graph keeps no edge for those).
		att, err := st.AttachmentsTo(ctx, m.ID)
		if err != nil {
			return nil, err
		}
		for _, l := range append(in, att...) {
			if l.Other == nil || l.Src == m.ID {
				continue
			}
			a := note(l.Src, ref.URI(l.Other.Collection, l.Other.RelPath), docID(l.Other.Hash), l.Other.Title)
			if w := (AffectedWhy{File: f.URI, By: "links"}); len(a.Why) == 0 || a.Why[len(a.Why)-1] != w {
				a.Why = append(a.Why, w)
			}
		}
	}
	order := make([]int64, 0, len(byID))
	for id := range byID {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := byID[order[i]], byID[order[j]]
		if a.governs != b.governs {
			return a.governs
		}
		return a.URI < b.URI
	})
	budget := req.MaxTokens
	if budget <= 0 {
		budget = DefaultReconcileTokens
	}
	used := 0
	for i, f := range out.Changed {
		if used > budget/2 {
			out.ChangedOmitted = len(out.Changed) - i
			out.Changed = out.Changed[:i]
			break
		}
		used += chunk.EstimateTokens(f.URI) + 8
	}
	for _, id := range order {
		a := byID[id]
		if len(a.Why) > MaxWhy {
			a.WhyOmitted, a.Why = len(a.Why)-MaxWhy, a.Why[:MaxWhy]
		}
		used += 16 + chunk.EstimateTokens(a.URI+a.Title)
		for _, w := range a.Why {
			used += 8 + chunk.EstimateTokens(w.File+w.Glob)
		}
	}
	for _, id := range order {
		a := byID[id]
		text, err := st.Content(ctx, id)
		if err == nil {
			if t := chunk.EstimateTokens(text); used+t <= budget {
				a.Content = text
				used += t
			} else {
				a.ContentOmitted = true
			}
		}
		out.Notes = append(out.Notes, *a)
	}
	return out, nil
}
