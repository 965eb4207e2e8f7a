package retrieval

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// NoteLockWait is how long a note edit waits for another writer.
const NoteLockWait = 5 * time.Second

// NoteResult is the outcome of a note edit.
type NoteResult struct {
	URI   string `json:"uri"`
	DocID string `json:"docid,omitempty"`
	// AbsPath is the file written, moved or deleted.
	AbsPath string `json:"absPath"`
	// Deleted is set by DeleteNote: false when no document had the REF.
	Deleted *bool `json:"deleted,omitempty"`
	// From is the old URI of a renamed note.
	From string `json:"from,omitempty"`
	// LinksUpdated counts links rewritten in other notes; FilesUpdated
	// lists those notes.
	LinksUpdated int      `json:"linksUpdated,omitempty"`
	FilesUpdated []string `json:"filesUpdated,omitempty"`
	// BrokenLinks counts links left pointing at nothing by a delete.
	BrokenLinks int  `json:"brokenLinks,omitempty"`
	Indexed     bool `json:"indexed"`
}

// noteTarget resolves a REF to its document, collection and file, under
// the writer lock the caller holds.
func (e *Engine) noteTarget(ctx context.Context, refStr string) (*store.DocMeta, *config.Collection, string, error) {
	m, err := e.resolve(ctx, refStr)
	if err != nil {
		return nil, nil, "", err
	}
	col, ok := e.Config().Collection(m.Collection)
	if !ok {
		return nil, nil, "", gnoerr.New(gnoerr.NotFound, "collection %q not found", m.Collection)
	}
	abs, err := note.Path(col.Path, m.RelPath, true)
	if err != nil {
		return nil, nil, "", err
	}
	return m, col, abs, nil
}

// resyncNote syncs a collection after an edit so search and the graph see
// the change at once; it reports the document's new docid.
func (e *Engine) resyncNote(ctx context.Context, col, rel string) (string, bool) {
	if _, err := e.Update(ctx, UpdateOptions{Collection: col, Locked: true}); err != nil {
		return "", false
	}
	st, err := e.store(ctx)
	if err != nil {
		return "", false
	}
	m, err := st.DocByPath(ctx, col, rel)
	if err != nil {
		return "", false
	}
	return docID(m.Hash), true
}

// UpdateNote replaces a note's body (content; front matter kept unless
// content brings its own) and/or its front-matter tags (tags non-nil),
// writing the file atomically and re-indexing it.
func (e *Engine) UpdateNote(ctx context.Context, refStr string, content *string, tags []string) (*NoteResult, error) {
	if content == nil && tags == nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give content, tags or both")
	}
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, NoteLockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	m, col, abs, err := e.noteTarget(ctx, refStr)
	if err != nil {
		return nil, err
	}
	if m.Mime != "text/markdown" && tags != nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not Markdown: it has no front matter for tags", m.RelPath)
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Runtime, err, "read %s", m.RelPath)
	}
	out := raw
	if content != nil {
		out = note.ReplaceBody(out, *content)
	}
	if tags != nil {
		norm := make([]string, 0, len(tags))
		for _, t := range tags {
			if t = ingest.NormalizeTag(t); t != "" {
				norm = append(norm, t)
			}
		}
		out = note.SetTags(out, norm)
	}
	if max := e.Config().Index.MaxFileBytes; max > 0 && int64(len(out)) > max {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the note would be %d bytes; the index takes files up to %d", len(out), max)
	}
	if err := note.Write(abs, out); err != nil {
		return nil, err
	}
	res := &NoteResult{URI: ref.URI(col.Name, m.RelPath), AbsPath: abs}
	res.DocID, res.Indexed = e.resyncNote(ctx, col.Name, m.RelPath)
	return res, nil
}

// DeleteNote deletes a note's file and drops it from the index; links to
// it become unresolved. A REF naming no document gives Deleted false.
func (e *Engine) DeleteNote(ctx context.Context, refStr string) (*NoteResult, error) {
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, NoteLockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	m, col, abs, err := e.noteTarget(ctx, refStr)
	if gnoerr.Is(err, gnoerr.NotFound) {
		return &NoteResult{URI: refStr, Deleted: new(bool)}, nil
	}
	if err != nil {
		return nil, err
	}
	st, _ := e.store(ctx)
	in, err := st.LinksTo(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	broken := 0
	for _, r := range in {
		if r.Other != nil && r.Other.ID != m.ID {
			broken++
		}
	}
	yes := true
	if err := note.Remove(abs); err != nil {
		return nil, err
	}
	res := &NoteResult{URI: ref.URI(col.Name, m.RelPath), AbsPath: abs, Deleted: &yes, BrokenLinks: broken}
	_, err = e.Update(ctx, UpdateOptions{Collection: col.Name, Locked: true})
	res.Indexed = err == nil
	return res, nil
}

// RenameNote moves a note to newPath in its collection. Links in other
// notes that would no longer find it are rewritten when updateLinks is
// set; otherwise the rename is refused with LINK_INTEGRITY. Links that
// still resolve (a [[Name]] link to a note moved to another folder) are
// left alone.
func (e *Engine) RenameNote(ctx context.Context, refStr, newPath string, updateLinks bool) (*NoteResult, error) {
	lock, err := store.LockWriter(ctx, e.Paths.IndexDir, NoteLockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	m, col, abs, err := e.noteTarget(ctx, refStr)
	if err != nil {
		return nil, err
	}
	newRel, err := ref.CleanRel(strings.TrimSpace(strings.TrimPrefix(newPath, "./")))
	if err != nil || filepath.IsAbs(newPath) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "new path %q must be relative to the collection root", newPath)
	}
	if path.Ext(newRel) == "" {
		newRel += path.Ext(m.RelPath)
	}
	if !links.IsNoteExt(path.Ext(newRel)) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "new path %q must keep a note extension (.md, .txt ...)", newPath)
	}
	if newRel == m.RelPath {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is already at %s", refStr, newRel)
	}
	if !indexable(*col, newRel) {
		return nil, gnoerr.New(gnoerr.InvalidPath, "new path %q does not match collection %s's patterns, so the note would drop out of the index", newPath, col.Name)
	}
	newAbs, err := note.Path(col.Path, newRel, false)
	if err != nil {
		return nil, err
	}
	// Which links would stop finding the note? Re-resolve each incoming
	// link as if the note already had its new path.
	st, _ := e.store(ctx)
	in, err := st.LinksTo(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	aliasKeys := map[string]bool{}
	names, err := st.DocNames(ctx, []string{col.Name})
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if n.DocID == m.ID && n.Alias {
			aliasKeys[strings.ToLower(strings.TrimSpace(n.Name))] = true
		}
	}
	breaks := func(kind links.Kind, target, srcRel string, srcCol string) (bool, error) {
		key := links.Key(target)
		cands, err := st.Candidates(ctx, []string{key, links.Key(newRel)})
		if err != nil {
			return false, err
		}
		var after []links.Candidate
		for _, c := range cands[key] {
			if c.ID != m.ID {
				after = append(after, c)
			}
		}
		if links.Key(newRel) == key {
			after = append(after, links.Candidate{ID: m.ID, Collection: col.Name, RelPath: newRel})
		}
		if aliasKeys[key] {
			after = append(after, links.Candidate{ID: m.ID, Collection: col.Name, RelPath: newRel, Alias: true})
		}
		if kind == links.Markdown {
			// Other Markdown tools follow the path only: it must still
			// name the note exactly.
			p := path.Join(path.Dir(srcRel), target)
			if strings.HasPrefix(target, "/") {
				p = strings.TrimPrefix(path.Clean(target), "/")
			}
			return p != newRel && p+".md" != newRel, nil
		}
		return links.Resolve(kind, target, srcCol, srcRel, after) != m.ID, nil
	}
	var broken int
	srcs := map[int64]*store.DocMeta{}
	for _, r := range in {
		if r.Target == "" || r.Other == nil {
			continue // a link to a heading of the same note moves with it
		}
		b, err := breaks(r.Kind, r.Target, r.Other.RelPath, r.Other.Collection)
		if err != nil {
			return nil, err
		}
		if b {
			broken++
			srcs[r.Other.ID] = r.Other
		}
	}
	// The note's own relative Markdown links must still find their
	// targets from its new folder.
	moveFix := func(l links.Link) (string, bool, error) {
		if l.Kind != links.Markdown || l.Target == "" || strings.HasPrefix(l.Target, "/") {
			return "", false, nil
		}
		key := links.Key(l.Target)
		cands, err := st.Candidates(ctx, []string{key})
		if err != nil {
			return "", false, err
		}
		oldP := path.Join(path.Dir(m.RelPath), l.Target)
		newP := path.Join(path.Dir(newRel), l.Target)
		for _, c := range cands[key] {
			if c.Alias || c.ID == m.ID || c.Collection != col.Name || (c.RelPath != oldP && c.RelPath != oldP+".md") {
				continue
			}
			if c.RelPath == newP || c.RelPath == newP+".md" {
				return "", false, nil
			}
			return (&url.URL{Path: note.RelPath(path.Dir(newRel), c.RelPath)}).EscapedPath(), true, nil
		}
		return "", false, nil
	}
	own := 0
	if raw, err := os.ReadFile(abs); err == nil && m.Mime == "text/markdown" {
		for _, l := range links.Extract(string(raw)) {
			_, fix, err := moveFix(l)
			if err != nil {
				return nil, err
			}
			if fix {
				own++
			}
		}
	}
	if own > 0 {
		srcs[m.ID] = m
	}
	if broken+own > 0 && !updateLinks {
		return nil, gnoerr.New(gnoerr.LinkIntegrity, "renaming %s to %s would break %d incoming link(s) in %d note(s) and %d relative link(s) of its own; pass updateLinks to rewrite them",
			m.RelPath, newRel, broken, len(srcs), own)
	}
	res := &NoteResult{From: ref.URI(col.Name, m.RelPath), URI: ref.URI(col.Name, newRel), AbsPath: newAbs}
	// Rewrite the links first: a failure leaves the note where it was.
	for id, src := range srcs {
		scol, ok := e.Config().Collection(src.Collection)
		if !ok {
			continue
		}
		srcRel := src.RelPath
		if id == m.ID {
			srcRel = newRel
		}
		sabs, err := note.Path(scol.Path, src.RelPath, true)
		if err != nil {
			return nil, fmt.Errorf("update links in %s: %w", src.RelPath, err)
		}
		raw, err := os.ReadFile(sabs)
		if err != nil {
			return nil, fmt.Errorf("update links in %s: %w", src.RelPath, err)
		}
		var ferr error
		out, n := note.RewriteLinks(raw, func(l links.Link) (string, bool) {
			if l.Target == "" || ferr != nil {
				return "", false
			}
			if id == m.ID {
				t, fix, err := moveFix(l)
				if err != nil || fix {
					ferr = err
					return t, fix
				}
			}
			cands, err := st.Candidates(ctx, []string{links.Key(l.Target)})
			if err != nil {
				ferr = err
				return "", false
			}
			if links.Resolve(l.Kind, l.Target, src.Collection, src.RelPath, cands[links.Key(l.Target)]) != m.ID {
				return "", false
			}
			b, err := breaks(l.Kind, l.Target, src.RelPath, src.Collection)
			if err != nil || !b {
				ferr = err
				return "", false
			}
			return note.NewTarget(l, srcRel, col.Name, newRel), true
		})
		if ferr != nil {
			return nil, ferr
		}
		if n == 0 {
			continue
		}
		if err := note.Write(sabs, out); err != nil {
			return nil, err
		}
		res.LinksUpdated += n
		res.FilesUpdated = append(res.FilesUpdated, ref.URI(src.Collection, src.RelPath))
	}
	if err := note.Move(abs, newAbs); err != nil {
		return nil, err
	}
	res.DocID, res.Indexed = e.resyncNote(ctx, col.Name, newRel)
	for _, f := range res.FilesUpdated {
		if r, err := ref.Parse(f); err == nil && r.Collection != col.Name {
			e.Update(ctx, UpdateOptions{Collection: r.Collection, Locked: true})
		}
	}
	return res, nil
}

// indexable reports whether a sync of col would pick up rel.
func indexable(col config.Collection, rel string) bool {
	in := false
	for _, g := range col.Patterns() {
		if globMatch(g, rel) {
			in = true
			break
		}
	}
	for _, g := range col.Exclude {
		if globMatch(g, rel) || globMatch(g, path.Dir(rel)+"/") {
			return false
		}
	}
	return in
}
