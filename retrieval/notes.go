package retrieval

import (
	"context"
	"os"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// Notes edits the user's note files and their tags, and reads the change
// feed. Every path it writes passes note.Path (the one rule for "is this
// path safe inside this root") and every new path ingest.Indexes (the one
// rule for "does this collection index this path"); each edit writes the
// file atomically and re-indexes what it touched, so search and the graph
// see it at once.
//
// Reached from Engine.Notes, each write takes the writer lock for itself
// (waiting up to NoteLockWait); reached from Writer.Notes, it runs under
// the lock the Writer holds.
type Notes struct {
	e *Engine
	w *Writer // nil: each write takes its own
}

// NoteLockWait is how long a note edit waits for another writer.
const NoteLockWait = 5 * time.Second

// writer returns the Writer a write runs under and the function that
// gives it back.
func (n *Notes) writer(ctx context.Context) (*Writer, func(), error) {
	if n.w != nil {
		return n.w, func() {}, nil
	}
	w, err := n.e.Writer(ctx, NoteLockWait)
	if err != nil {
		return nil, nil, err
	}
	return w, func() { w.Close() }, nil
}

// NoteResult is the outcome of a note edit.
type NoteResult struct {
	URI   string `json:"uri"`
	DocID string `json:"docid,omitempty"`
	// AbsPath is the file written, moved or deleted.
	AbsPath string `json:"absPath"`
	// Deleted is set by Delete: false when no document had the REF.
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

// noteTarget resolves a REF to its document, collection and file.
func (n *Notes) noteTarget(ctx context.Context, refStr string) (*store.DocMeta, *config.Collection, string, error) {
	m, err := n.e.resolve(ctx, refStr)
	if err != nil {
		return nil, nil, "", err
	}
	col, ok := n.e.Config().Collection(m.Collection)
	if !ok {
		return nil, nil, "", gnoerr.New(gnoerr.NotFound, "collection %q not found", m.Collection)
	}
	abs, err := note.Path(col.Path, m.RelPath, note.Existing)
	if err != nil {
		return nil, nil, "", err
	}
	return m, col, abs, nil
}

// resync re-indexes the files an edit touched (rel and any others of
// col), so search and the graph see the change at once; it reports the
// document's new docid.
func (n *Notes) resync(ctx context.Context, w *Writer, col, rel string, others ...string) (string, bool) {
	if _, err := w.Update(ctx, UpdateOptions{Collection: col, Only: append([]string{rel}, others...)}); err != nil {
		return "", false
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return "", false
	}
	m, err := st.DocByPath(ctx, col, rel)
	if err != nil {
		return "", false
	}
	return docID(m.Hash), true
}

// UpdateNoteRequest changes a note's body, its front-matter tags or both.
type UpdateNoteRequest struct {
	Ref string
	// Content, when not nil, replaces the body; the front matter is kept
	// unless the content brings its own.
	Content *string
	// Tags, when not nil, replace the front-matter tags.
	Tags []string
}

// Update replaces a note's body and/or its front-matter tags, writing
// the file atomically and re-indexing it.
func (n *Notes) Update(ctx context.Context, req UpdateNoteRequest) (*NoteResult, error) {
	if req.Content == nil && req.Tags == nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "give content, tags or both")
	}
	w, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, col, abs, err := n.noteTarget(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	if m.Mime != "text/markdown" && req.Tags != nil {
		return nil, gnoerr.New(gnoerr.InvalidInput, "%s is not Markdown: it has no front matter for tags", m.RelPath)
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Runtime, err, "read %s", m.RelPath)
	}
	out := raw
	if req.Content != nil {
		out = note.ReplaceBody(out, *req.Content)
	}
	if req.Tags != nil {
		norm := make([]string, 0, len(req.Tags))
		for _, t := range req.Tags {
			if t = ingest.NormalizeTag(t); t != "" {
				norm = append(norm, t)
			}
		}
		out = note.SetTags(out, norm)
	}
	if max := n.e.Config().Index.MaxFileBytes; max > 0 && int64(len(out)) > max {
		return nil, gnoerr.New(gnoerr.InvalidInput, "the note would be %d bytes; the index takes files up to %d", len(out), max)
	}
	if err := note.Write(abs, out); err != nil {
		return nil, err
	}
	res := &NoteResult{URI: ref.URI(col.Name, m.RelPath), AbsPath: abs}
	res.DocID, res.Indexed = n.resync(ctx, w, col.Name, m.RelPath)
	return res, nil
}

// DeleteNoteRequest names the note to delete.
type DeleteNoteRequest struct {
	Ref string
}

// Delete deletes a note's file and drops it from the index; links to it
// become unresolved. A REF naming no document gives Deleted false.
func (n *Notes) Delete(ctx context.Context, req DeleteNoteRequest) (*NoteResult, error) {
	w, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, col, abs, err := n.noteTarget(ctx, req.Ref)
	if gnoerr.Is(err, gnoerr.NotFound) {
		return &NoteResult{URI: req.Ref, Deleted: new(bool)}, nil
	}
	if err != nil {
		return nil, err
	}
	st, _ := n.e.store(ctx)
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
	_, err = w.Update(ctx, UpdateOptions{Collection: col.Name, Only: []string{m.RelPath}})
	res.Indexed = err == nil
	return res, nil
}
