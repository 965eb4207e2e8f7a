package retrieval

import (
	"context"
	"os"
	"path"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
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

// resyncNote re-indexes the files an edit touched (rel and any others of
// col), so search and the graph see the change at once; it reports the
// document's new docid.
func (e *Engine) resyncNote(ctx context.Context, col, rel string, others ...string) (string, bool) {
	if _, err := e.Update(ctx, UpdateOptions{Collection: col, Locked: true, Only: append([]string{rel}, others...)}); err != nil {
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
	_, err = e.Update(ctx, UpdateOptions{Collection: col.Name, Locked: true, Only: []string{m.RelPath}})
	res.Indexed = err == nil
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
