package retrieval

import (
	"context"
	"sort"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// plannedMove is a checked rename: the note, its new path, and the links
// the move breaks. Rename carries it out; RenamePlan shows it.
type plannedMove struct {
	m           *store.DocMeta
	col         *config.Collection
	abs, newAbs string
	newRel      string
	mv          *move
	srcs        map[int64]*store.DocMeta
	broken, own int
}

// planMove checks a rename with the same rules Rename applies (note.Path,
// the collection's patterns, a note extension, a free target) and lists
// the links it would break.
func (n *Notes) planMove(ctx context.Context, req RenameNoteRequest) (*plannedMove, error) {
	m, col, abs, err := n.noteTarget(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	newRel, err := renameTarget(m, col, req.NewPath)
	if err != nil {
		return nil, err
	}
	newAbs, err := note.Path(col.Path, newRel, note.Absent)
	if err != nil {
		return nil, err
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	mv, err := newMove(ctx, st, m, col, newRel)
	if err != nil {
		return nil, err
	}
	srcs, broken, own, err := mv.damage(abs)
	if err != nil {
		return nil, err
	}
	return &plannedMove{m: m, col: col, abs: abs, newAbs: newAbs, newRel: newRel, mv: mv, srcs: srcs, broken: broken, own: own}, nil
}

// RenamePlan is what a rename would do: where the note goes and which
// links in which notes it would rewrite.
type RenamePlan struct {
	From    string `json:"from"`
	To      string `json:"to"`
	NewPath string `json:"newPath"`
	// Files are the notes whose links would be rewritten (the renamed
	// note itself when its own relative links move with it).
	Files []PlannedFile `json:"files"`
	// LinksUpdated counts the links in Files.
	LinksUpdated int `json:"linksUpdated"`
}

// PlannedFile is a note whose links a rename would rewrite.
type PlannedFile struct {
	URI   string        `json:"uri"`
	Title string        `json:"title,omitempty"`
	Links []PlannedLink `json:"links"`
}

// PlannedLink is one link as written now and after the rename.
type PlannedLink struct {
	Line   int    `json:"line"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// RenamePlan is Rename's dry run: it checks the new path the way Rename
// does and lists every link Rename with UpdateLinks would rewrite,
// changing nothing.
func (n *Notes) RenamePlan(ctx context.Context, req RenameNoteRequest) (*RenamePlan, error) {
	return readAs(ctx, n.e, func(ctx context.Context) (*RenamePlan, error) { return n.renamePlan(ctx, req) })
}

func (n *Notes) renamePlan(ctx context.Context, req RenameNoteRequest) (*RenamePlan, error) {
	p, err := n.planMove(ctx, req)
	if err != nil {
		return nil, err
	}
	plan := &RenamePlan{From: ref.URI(p.col.Name, p.m.RelPath), To: ref.URI(p.col.Name, p.newRel), NewPath: p.newRel, Files: []PlannedFile{}}
	for _, src := range p.srcs {
		scol, ok := n.e.Config().Collection(src.Collection)
		if !ok {
			continue
		}
		f := PlannedFile{URI: ref.URI(src.Collection, src.RelPath), Title: src.Title}
		_, count, _, err := p.mv.rewritten(scol, src, func(line int, before, after string) {
			f.Links = append(f.Links, PlannedLink{Line: line, Before: before, After: after})
		})
		if err != nil {
			return nil, err
		}
		if count > 0 {
			plan.LinksUpdated += count
			plan.Files = append(plan.Files, f)
		}
	}
	sort.Slice(plan.Files, func(i, j int) bool { return plan.Files[i].URI < plan.Files[j].URI })
	return plan, nil
}
