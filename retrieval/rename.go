package retrieval

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/ingest"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// RenameNoteRequest moves a note inside its collection.
type RenameNoteRequest struct {
	Ref string
	// NewPath is the new path relative to the collection root; without
	// an extension the note keeps its own.
	NewPath string
	// UpdateLinks rewrites the links the move would break; without it
	// such a move is refused with LINK_INTEGRITY.
	UpdateLinks bool
}

// Rename moves a note to a new path in its collection. Links in other
// notes that would no longer find it are rewritten when UpdateLinks is
// set, and so are the note's own relative Markdown links; otherwise the
// rename is refused with LINK_INTEGRITY. Links that still resolve (a
// [[Name]] link to a note moved to another folder) are left alone.
func (n *Notes) Rename(ctx context.Context, req RenameNoteRequest) (*NoteResult, error) {
	w, release, err := n.writer(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	e := n.e
	p, err := n.planMove(ctx, req)
	if err != nil {
		return nil, err
	}
	m, col, abs, newRel, newAbs, mv, srcs, broken, own := p.m, p.col, p.abs, p.newRel, p.newAbs, p.mv, p.srcs, p.broken, p.own
	if broken+own > 0 && !req.UpdateLinks {
		return nil, gnoerr.New(gnoerr.LinkIntegrity, "renaming %s to %s would break %d incoming link(s) in %d note(s) and %d relative link(s) of its own; pass updateLinks to rewrite them",
			m.RelPath, newRel, broken, len(srcs), own)
	}
	res := &NoteResult{From: ref.URI(col.Name, m.RelPath), URI: ref.URI(col.Name, newRel), AbsPath: newAbs}
	// Rewrite the links first: a failure leaves the note where it was.
	for _, src := range srcs {
		scol, ok := e.Config().Collection(src.Collection)
		if !ok {
			continue
		}
		count, err := mv.rewrite(scol, src)
		if err != nil {
			return nil, err
		}
		if count > 0 {
			res.LinksUpdated += count
			res.FilesUpdated = append(res.FilesUpdated, ref.URI(src.Collection, src.RelPath))
		}
	}
	if err := note.Move(abs, newAbs); err != nil {
		return nil, err
	}
	touched := map[string][]string{}
	for _, f := range res.FilesUpdated {
		if r, err := ref.Parse(f); err == nil {
			touched[r.Collection] = append(touched[r.Collection], r.Path)
		}
	}
	res.DocID, res.Indexed = n.resync(ctx, w, col.Name, newRel, append(touched[col.Name], m.RelPath)...)
	for c, rels := range touched {
		if c != col.Name {
			w.Update(ctx, UpdateOptions{Collection: c, Only: rels})
		}
	}
	return res, nil
}

// renameTarget validates a rename's new path and returns it cleaned, with
// the note's extension when it has none.
func renameTarget(m *store.DocMeta, col *config.Collection, newPath string) (string, error) {
	newRel, err := ref.CleanRel(strings.TrimSpace(strings.TrimPrefix(newPath, "./")))
	if err != nil || filepath.IsAbs(newPath) {
		return "", gnoerr.New(gnoerr.InvalidPath, "new path %q must be relative to the collection root", newPath)
	}
	if path.Ext(newRel) == "" {
		newRel += path.Ext(m.RelPath)
	}
	switch {
	case !links.IsNoteExt(path.Ext(newRel)):
		return "", gnoerr.New(gnoerr.InvalidPath, "new path %q must keep a note extension (.md, .txt ...)", newPath)
	case newRel == m.RelPath:
		return "", gnoerr.New(gnoerr.InvalidInput, "%s is already at %s", m.RelPath, newRel)
	case !ingest.Indexes(*col, newRel):
		return "", gnoerr.New(gnoerr.InvalidPath, "new path %q does not match collection %s's patterns, so the note would drop out of the index", newPath, col.Name)
	}
	return newRel, nil
}

// move is a planned rename: which links it breaks and how to fix them.
type move struct {
	ctx       context.Context
	st        store.Backend
	m         *store.DocMeta
	col       *config.Collection
	newRel    string
	aliasKeys map[string]bool
}

func newMove(ctx context.Context, st store.Backend, m *store.DocMeta, col *config.Collection, newRel string) (*move, error) {
	mv := &move{ctx: ctx, st: st, m: m, col: col, newRel: newRel, aliasKeys: map[string]bool{}}
	names, err := st.DocNames(ctx, []string{col.Name})
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if n.DocID == m.ID && n.Alias {
			mv.aliasKeys[strings.ToLower(strings.TrimSpace(n.Name))] = true
		}
	}
	return mv, nil
}

// damage lists the notes holding links the move would break, the number
// of such incoming links, and the note's own relative links it breaks.
func (mv *move) damage(abs string) (map[int64]*store.DocMeta, int, int, error) {
	in, err := mv.st.LinksTo(mv.ctx, mv.m.ID)
	if err != nil {
		return nil, 0, 0, err
	}
	srcs := map[int64]*store.DocMeta{}
	broken := 0
	for _, r := range in {
		if r.Target == "" || r.Other == nil {
			continue // a link to a heading of the same note moves with it
		}
		b, err := mv.breaks(r.Kind, r.Target, r.Other.RelPath, r.Other.Collection)
		if err != nil {
			return nil, 0, 0, err
		}
		if b {
			broken++
			srcs[r.Other.ID] = r.Other
		}
	}
	own := 0
	if raw, err := os.ReadFile(abs); err == nil && mv.m.Mime == "text/markdown" {
		for _, l := range links.Extract(string(raw)) {
			_, fix, err := mv.ownFix(l)
			if err != nil {
				return nil, 0, 0, err
			}
			if fix {
				own++
			}
		}
	}
	if own > 0 {
		srcs[mv.m.ID] = mv.m
	}
	return srcs, broken, own, nil
}

// breaks reports whether a link from srcRel that now names the note would
// stop naming it once moved: re-resolved as if the note already had its
// new path. A Markdown link must still name it by exact path, since other
// Markdown tools follow the path only.
func (mv *move) breaks(kind links.Kind, target, srcRel, srcCol string) (bool, error) {
	if kind == links.Markdown {
		p := path.Join(path.Dir(srcRel), target)
		if strings.HasPrefix(target, "/") {
			p = strings.TrimPrefix(path.Clean(target), "/")
		}
		return p != mv.newRel && p+".md" != mv.newRel, nil
	}
	key := links.Key(target)
	cands, err := mv.st.Candidates(mv.ctx, []string{key})
	if err != nil {
		return false, err
	}
	var after []links.Candidate
	for _, c := range cands[key] {
		if c.ID != mv.m.ID {
			after = append(after, c)
		}
	}
	if links.Key(mv.newRel) == key {
		after = append(after, links.Candidate{ID: mv.m.ID, Collection: mv.col.Name, RelPath: mv.newRel})
	}
	if mv.aliasKeys[key] {
		after = append(after, links.Candidate{ID: mv.m.ID, Collection: mv.col.Name, RelPath: mv.newRel, Alias: true})
	}
	return links.Resolve(kind, target, srcCol, srcRel, after) != mv.m.ID, nil
}

// ownFix returns the new target of one of the note's own relative
// Markdown links when the move would break it.
func (mv *move) ownFix(l links.Link) (string, bool, error) {
	if l.Kind != links.Markdown || l.Target == "" || strings.HasPrefix(l.Target, "/") {
		return "", false, nil
	}
	key := links.Key(l.Target)
	cands, err := mv.st.Candidates(mv.ctx, []string{key})
	if err != nil {
		return "", false, err
	}
	oldP := path.Join(path.Dir(mv.m.RelPath), l.Target)
	newP := path.Join(path.Dir(mv.newRel), l.Target)
	for _, c := range cands[key] {
		if c.Alias || c.ID == mv.m.ID || c.Collection != mv.col.Name || (c.RelPath != oldP && c.RelPath != oldP+".md") {
			continue
		}
		if c.RelPath == newP || c.RelPath == newP+".md" {
			return "", false, nil
		}
		return (&url.URL{Path: note.RelPath(path.Dir(mv.newRel), c.RelPath)}).EscapedPath(), true, nil
	}
	return "", false, nil
}

// rewrite fixes, in the file of src, every link the move would break, and
// returns how many it rewrote.
func (mv *move) rewrite(scol *config.Collection, src *store.DocMeta) (int, error) {
	out, n, sabs, err := mv.rewritten(scol, src, nil)
	if err != nil || n == 0 {
		return 0, err
	}
	if err := note.Write(sabs, out); err != nil {
		return 0, err
	}
	return n, nil
}

// rewritten returns the file of src with every link the move would break
// fixed, how many it fixed, and the file's path; seen, when not nil, is
// told each fixed link's line and text before and after (a rename's dry
// run).
func (mv *move) rewritten(scol *config.Collection, src *store.DocMeta, seen func(line int, before, after string)) ([]byte, int, string, error) {
	self := src.ID == mv.m.ID
	srcRel := src.RelPath
	if self {
		srcRel = mv.newRel // where its relative links will start from
	}
	sabs, err := note.Path(scol.Path, src.RelPath, note.Existing)
	if err != nil {
		return nil, 0, "", fmt.Errorf("update links in %s: %w", src.RelPath, err)
	}
	raw, err := os.ReadFile(sabs)
	if err != nil {
		return nil, 0, "", fmt.Errorf("update links in %s: %w", src.RelPath, err)
	}
	var ferr error
	text := bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")) // link offsets are past a BOM
	out, n := note.RewriteLinks(raw, func(l links.Link) (string, bool) {
		t, ok := mv.fix(l, src, srcRel, self, &ferr)
		if ok && seen != nil {
			seen(l.Line, string(text[l.Start:l.End]), string(text[l.Start:l.TargetStart])+t+string(text[l.TargetEnd:l.End]))
		}
		return t, ok
	})
	if ferr != nil {
		return nil, 0, "", ferr
	}
	return out, n, sabs, nil
}

// fix returns the new target of a link of src when the move breaks it;
// an error stops the rewrite through ferr.
func (mv *move) fix(l links.Link, src *store.DocMeta, srcRel string, self bool, ferr *error) (string, bool) {
	if l.Target == "" || *ferr != nil {
		return "", false
	}
	if self {
		t, fix, err := mv.ownFix(l)
		if err != nil || fix {
			*ferr = err
			return t, fix
		}
	}
	key := links.Key(l.Target)
	cands, err := mv.st.Candidates(mv.ctx, []string{key})
	if err != nil {
		*ferr = err
		return "", false
	}
	if links.Resolve(l.Kind, l.Target, src.Collection, src.RelPath, cands[key]) != mv.m.ID {
		return "", false
	}
	b, err := mv.breaks(l.Kind, l.Target, src.RelPath, src.Collection)
	if err != nil || !b {
		*ferr = err
		return "", false
	}
	return note.NewTarget(l, srcRel, mv.col.Name, mv.newRel), true
}
