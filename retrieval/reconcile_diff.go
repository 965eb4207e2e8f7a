package retrieval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// DiffRequest asks what changed in the files a governing note governs, or
// in a document itself.
type DiffRequest struct {
	// Ref names the note or document.
	Ref string
	// Base or Since say since when (see AffectedRequest); a document
	// that governs nothing is diffed with itself. With neither, a
	// governing note's answer lists (in NotDiffed) the files it governs
	// whose content differs from the cursor's cache, without diffs.
	Base  string
	Since *int64
	// Exclude leaves out governed files matching any of these globs
	// (relative to their collection).
	Exclude []string
	// BypassCache diffs every governed file, whatever the reconcile cache
	// holds (the cache is not touched).
	BypassCache bool
	// Cursor names the reconcile cache (DefaultCursor if empty).
	Cursor string
	// MaxTokens bounds the answer (DefaultReconcileTokens if 0).
	MaxTokens int
}

// MaxDiffFile is the largest file Diff shows the changes of; a larger or
// binary file is named in NotDiffed.
const MaxDiffFile = 1 << 20

// ReasonChangedSinceCache is the NotDiffed reason of a governed file
// that differs from the reconcile cache, asked for without a base or a
// generation to diff against.
const ReasonChangedSinceCache = "changed since the reconcile cache"

// NotDiffed is a changed file whose diff is not given, and why.
type NotDiffed struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// NoteText is a note given in full (Content empty when given by
// reference only).
type NoteText struct {
	URI     string `json:"uri"`
	Title   string `json:"title"`
	Content string `json:"content,omitempty"`
}

// DiffResult is the answer of Notes.Diff.
type DiffResult struct {
	URI    string `json:"uri"`
	Title  string `json:"title"`
	Base   string `json:"base,omitempty"`
	Since  *int64 `json:"since,omitempty"`
	Cursor string `json:"cursor"`
	// Diff is the unified diff of Files (git's own output with Base).
	Diff  string   `json:"diff"`
	Files []string `json:"files"`
	// Skipped are governed files whose content matches the cursor's
	// reconcile cache; Excluded those matching Exclude.
	Skipped   []string    `json:"skipped"`
	Excluded  []string    `json:"excluded"`
	NotDiffed []NotDiffed `json:"notDiffed"`
	// Whole are files given in full because their diff can no longer be
	// made (the earlier text is gone).
	Whole []NoteText `json:"whole"`
	// SpecChanges are changed governing notes, in full.
	SpecChanges []NoteText `json:"specChanges"`
	// System is the parent note, when SpecChanges is not empty (by
	// reference only when it is itself among them).
	System *NoteText `json:"system"`
	// Omitted are files whose diff did not fit the budget.
	Omitted  []string `json:"omitted"`
	Message  string   `json:"message,omitempty"`
	Warnings []string `json:"warnings"`
}

// Diff answers for a governing note the unified diff of the files it
// governs that changed (against a git base branch, or since a
// generation), leaving out those the cursor's reconcile cache already
// holds as they are (Skipped) and those Exclude names (Excluded); changed
// governing notes in full (SpecChanges) and the parent note. For a
// document that governs nothing, it is the document's own diff.
//
// With a base, git runs outside the index's read snapshot: the change set
// first (git alone), then one snapshot reads everything the answer needs
// of the index (the note, the declarations, the changed notes' text, the
// cache), then the diffs (git alone). The index is read once, so its part
// of the answer is one state; the git part is the work tree's.
func (n *Notes) Diff(ctx context.Context, req DiffRequest) (*DiffResult, error) {
	cursor, err := checkCursor(req.Cursor)
	if err != nil {
		return nil, err
	}
	for _, x := range req.Exclude {
		if !doublestar.ValidatePattern(x) {
			return nil, gnoerr.New(gnoerr.InvalidInput, "invalid exclude glob %q", x)
		}
	}
	var cs *changeSet
	if req.Base != "" {
		if cs, err = n.changed(ctx, req.Base, req.Since, ""); err != nil {
			return nil, err
		}
	}
	p, err := readAs(ctx, n.e, func(ctx context.Context) (*diffPlan, error) { return n.diff(ctx, req, cursor, cs) })
	if err != nil {
		return nil, err
	}
	if p.done {
		return p.out, nil
	}
	parts, err := n.gitDiffs(ctx, cs, p.todo, p.out)
	if err != nil {
		return nil, err
	}
	if p.own {
		return ownFinish(p.out, parts, p.bud.max), nil
	}
	return p.finish(parts), nil
}

// diffPlan is what Diff read of the index: the answer so far and, with a
// base, the files git still has to diff.
type diffPlan struct {
	out  *DiffResult
	todo []ChangedFile
	bud  *tokenBudget
	// done: the answer is complete (no git diff to make); own: the
	// document's own diff.
	done, own bool
}

// finish adds the diffs of parts within the budget.
func (p *diffPlan) finish(parts []filePart) *DiffResult {
	out := p.out
	var b strings.Builder
	for _, fp := range parts {
		if !p.bud.take(fp.diff) {
			out.Omitted = append(out.Omitted, fp.uri)
			continue
		}
		b.WriteString(fp.diff)
		out.Files = append(out.Files, fp.uri)
	}
	out.Diff = b.String()
	if len(out.Omitted) > 0 {
		out.Message = fmt.Sprintf("%d files did not fit the budget of %d tokens: ask for them with exclude, or mark what you reconciled", len(out.Omitted), p.bud.max)
	}
	return out
}

func (n *Notes) diff(ctx context.Context, req DiffRequest, cursor string, cs *changeSet) (*diffPlan, error) {
	m, err := n.e.resolve(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	notes, warn, err := governingNotes(ctx, st)
	if err != nil {
		return nil, err
	}
	out := &DiffResult{URI: ref.URI(m.Collection, m.RelPath), Title: m.Title, Base: req.Base, Cursor: cursor,
		Files: []string{}, Skipped: []string{}, Excluded: []string{}, NotDiffed: []NotDiffed{}, Whole: []NoteText{},
		SpecChanges: []NoteText{}, Omitted: []string{}, Warnings: warn}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if req.Base == "" {
		out.Since = req.Since
	}
	budget := req.MaxTokens
	if budget <= 0 {
		budget = DefaultReconcileTokens
	}
	var self *store.GoverningNote
	declared := map[[2]string]*store.GoverningNote{}
	for _, g := range notes {
		declared[[2]string{g.Collection, g.RelPath}] = g
		if g.ID == m.ID {
			self = g
		}
	}
	governs := func(c, rel string) bool {
		if self == nil {
			return false
		}
		for _, gv := range self.Declares.Governs {
			if gv.Matches(self.Collection, c, rel) {
				return true
			}
		}
		return false
	}
	if self == nil || len(self.Declares.Governs) == 0 {
		return n.ownDiff(ctx, st, m, req, cs, out, budget)
	}
	// Neither a base nor a generation: the governed files whose content
	// differs from the cursor's cache, without diffs (the spec's
	// get_changed_artifacts): every file the index holds, or held, is a
	// candidate.
	artifacts := req.Base == "" && req.Since == nil
	if cs == nil {
		if artifacts {
			cs, err = n.indexChanges(ctx, 0, "")
		} else {
			cs, err = n.changed(ctx, req.Base, req.Since, "")
		}
		if err != nil {
			return nil, err
		}
	}
	cfg := n.e.Config()
	cache := map[string]map[string]string{}
	var hasher fileHasher
	cached := func(c, rel string) bool {
		if req.BypassCache {
			return false
		}
		h, ok := cache[c]
		if !ok {
			if h, err = st.ReconciledHashes(ctx, cursor, c); err != nil {
				return false
			}
			cache[c] = h
		}
		want, ok := h[rel]
		if !ok {
			return false
		}
		col, ok := cfg.Collection(c)
		if !ok {
			return false
		}
		got, err := hasher.hash(col, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return want == goneHash
		}
		return err == nil && got == want
	}
	var todo []ChangedFile
	var specs []*store.GoverningNote
	for _, f := range cs.files {
		isSelf := f.collection == m.Collection && f.rel == m.RelPath
		if !isSelf && !governs(f.collection, f.rel) {
			continue
		}
		if g := declared[[2]string{f.collection, f.rel}]; g != nil && f.Status != "deleted" {
			if !cached(f.collection, f.rel) {
				specs = append(specs, g)
			}
			continue
		}
		if isSelf {
			continue
		}
		if excluded(req.Exclude, f.rel) {
			out.Excluded = append(out.Excluded, f.URI)
			continue
		}
		if cached(f.collection, f.rel) {
			out.Skipped = append(out.Skipped, f.URI)
			continue
		}
		todo = append(todo, f)
	}
	bud := &tokenBudget{max: budget, used: chunk.EstimateTokens(strings.Join(out.Skipped, " ")+strings.Join(out.Excluded, " ")) + 64}
	for _, g := range specs {
		text, err := st.Content(ctx, g.ID)
		if err != nil {
			return nil, err
		}
		uri := ref.URI(g.Collection, g.RelPath)
		if !bud.take(text) {
			text = ""
			out.Omitted = append(out.Omitted, uri)
		}
		out.SpecChanges = append(out.SpecChanges, NoteText{URI: uri, Title: g.Title, Content: text})
	}
	if len(out.SpecChanges) > 0 {
		if p := n.parentOf(ctx, st, self, notes); p != nil {
			out.System = &NoteText{URI: ref.URI(p.Collection, p.RelPath), Title: p.Title}
			inSpecs := false
			for _, s := range out.SpecChanges {
				inSpecs = inSpecs || s.URI == out.System.URI
			}
			if !inSpecs {
				if out.System.Content, err = st.Content(ctx, p.ID); err != nil {
					return nil, err
				}
				if !bud.take(out.System.Content) {
					out.System.Content = ""
				}
			}
		}
	}
	p := &diffPlan{out: out, todo: todo, bud: bud}
	if cs.base != "" {
		return p, nil
	}
	if artifacts {
		for _, f := range todo {
			out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: ReasonChangedSinceCache})
		}
		out.Message = fmt.Sprintf("no base or generation: %d governed files differ from the reconcile cache of cursor %s (not diffed; give base or since for their diffs)", len(todo), cursor)
		p.done = true
		return p, nil
	}
	parts, err := n.indexDiffs(ctx, st, *req.Since, todo, out, bud)
	if err != nil {
		return nil, err
	}
	p.out, p.done = p.finish(parts), true
	return p, nil
}

// filePart is one file's diff.
type filePart struct {
	uri, diff string
}

// tokenBudget is what an answer has spent of its token budget.
type tokenBudget struct {
	used, max int
}

// take spends text's tokens when they fit, and says whether they did.
func (b *tokenBudget) take(text string) bool {
	t := chunk.EstimateTokens(text)
	if b.used+t > b.max {
		return false
	}
	b.used += t
	return true
}

// spent reports that nothing more fits.
func (b *tokenBudget) spent() bool { return b.used >= b.max }

func excluded(globs []string, rel string) bool {
	for _, x := range globs {
		if ok, _ := doublestar.Match(x, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(x, path.Base(rel)); ok && !strings.Contains(x, "/") {
			return true
		}
	}
	return false
}

// indexDiffs diffs each file's indexed text against its text at
// generation since (kept by the store); a file whose earlier text is gone
// is given whole, within the budget. A file larger than MaxDiffFile is
// named in NotDiffed; once the budget is spent the rest are not diffed
// but Omitted.
func (n *Notes) indexDiffs(ctx context.Context, st store.Backend, since int64, files []ChangedFile, out *DiffResult, bud *tokenBudget) ([]filePart, error) {
	var parts []filePart
	for _, f := range files {
		if bud.spent() {
			out.Omitted = append(out.Omitted, f.URI)
			continue
		}
		d, whole, large, err := textDiff(ctx, st, f.collection, f.rel, since)
		if err != nil {
			return nil, err
		}
		switch {
		case large:
			out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: fmt.Sprintf("larger than %d bytes", MaxDiffFile)})
		case whole != nil:
			if !bud.take(whole.Content) {
				whole.Content = ""
				out.Omitted = append(out.Omitted, f.URI)
			}
			out.Whole = append(out.Whole, *whole)
			out.NotDiffed = append(out.NotDiffed, NotDiffed{URI: f.URI, Reason: "earlier text no longer kept: given whole"})
		default:
			parts = append(parts, filePart{uri: f.URI, diff: d})
		}
	}
	return parts, nil
}

// textDiff is the unified diff of a document since generation since; when
// its earlier text is gone it returns the whole current text instead, and
// when either text is larger than MaxDiffFile it reports large (no diff).
func textDiff(ctx context.Context, st store.Backend, collection, rel string, since int64) (string, *NoteText, bool, error) {
	old, state, err := st.TextAt(ctx, collection, rel, since)
	if err != nil {
		return "", nil, false, err
	}
	cur, title := "", ""
	m, err := st.DocByPath(ctx, collection, rel)
	switch {
	case err == nil:
		if cur, err = st.Content(ctx, m.ID); err != nil {
			return "", nil, false, err
		}
		title = m.Title
	case err != store.ErrNotFound:
		return "", nil, false, err
	}
	if state == store.TextDropped {
		return "", &NoteText{URI: ref.URI(collection, rel), Title: title, Content: cur}, false, nil
	}
	if len(old) > MaxDiffFile || len(cur) > MaxDiffFile {
		return "", nil, true, nil
	}
	return unified(rel, old, cur, state == store.TextAbsent, m == nil), nil, false, nil
}

// unified formats a file's diff as git does its header: diff --git, then
// the ---/+++ labels (/dev/null for a side that does not exist).
func unified(rel, old, cur string, added, deleted bool) string {
	if old == cur {
		return ""
	}
	from, to := "a/"+rel, "b/"+rel
	if added {
		from = "/dev/null"
	}
	if deleted {
		to = "/dev/null"
	}
	return "diff --git a/" + rel + " b/" + rel + "\n" + udiff.Unified(from, to, old, cur)
}

// parentOf is the parent of a governing note: the note its `system`
// names, else one that lists it under `subsystems`.
func (n *Notes) parentOf(ctx context.Context, st store.Backend, g *store.GoverningNote, notes []*store.GoverningNote) *store.GoverningNote {
	resolve := func(name string, from *store.GoverningNote) int64 {
		name = links.NameOf(name)
		key := links.Key(name)
		cands, err := st.Candidates(ctx, []string{key})
		if err != nil {
			return 0
		}
		return links.Resolve(links.Wiki, name, from.Collection, from.RelPath, cands[key])
	}
	byID := map[int64]*store.GoverningNote{}
	for _, p := range notes {
		byID[p.ID] = p
	}
	if g.Declares.System != "" {
		if id := resolve(g.Declares.System, g); id != 0 {
			if p := byID[id]; p != nil {
				return p
			}
			if ms, err := st.Docs(ctx, []int64{id}); err == nil && ms[id] != nil {
				return &store.GoverningNote{ID: id, Collection: ms[id].Collection, RelPath: ms[id].RelPath, Title: ms[id].Title}
			}
		}
	}
	for _, p := range notes {
		for _, s := range p.Declares.Subsystems {
			if p.ID != g.ID && resolve(s, p) == g.ID {
				return p
			}
		}
	}
	return nil
}
