package retrieval

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/chunk"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/links"
	"github.com/gnosearch/gno/retrieval/note"
	"github.com/gnosearch/gno/retrieval/ref"
	"github.com/gnosearch/gno/retrieval/store"
)

// CompleteRequest asks which notes, or which headings of a note, a name
// being typed could mean: the text after "[[" in an editor, or a title
// typed into a quick switcher.
type CompleteRequest struct {
	// Text is a name, or part of one ("proj" finds "My project"); with a
	// '#' it is "Name#heading part" and completes the headings of the
	// note Name means ("#part" alone: the headings of From).
	Text string
	// From is the REF of the note the link is written in: names resolve
	// from it as the link will, and its collection is searched.
	From string
	// Collection limits the notes to one collection (default: From's, or
	// all).
	Collection string
	// Limit caps the answers (default 10, at most 50).
	Limit int
}

// Completion is one way to finish a name.
type Completion struct {
	// Kind is "note" (by title or file name), "alias" or "heading".
	Kind string `json:"kind"`
	// Label is what a list shows: a title, an alias or a heading.
	Label string `json:"label"`
	// Insert is the link target to write between "[[" and "]]": the
	// file name (a path when several notes share it), "name|alias", or
	// "name#Heading".
	Insert string `json:"insert"`
	Title  string `json:"title,omitempty"`
	URI    string `json:"uri"`
	DocID  string `json:"docid"`
	// Detail is where the note lives, or a heading's level.
	Detail string `json:"detail,omitempty"`
}

// Complete finds the notes whose title, file name or alias matches text
// (whole name first, then a prefix, a word start, anywhere; several words
// must each appear), or the headings of one note. It reads the cached link
// index and no file, so it answers within a keystroke.
func (gr *Graph) Complete(ctx context.Context, req CompleteRequest) ([]Completion, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) ([]Completion, error) { return gr.complete(ctx, req) })
}

func (gr *Graph) complete(ctx context.Context, req CompleteRequest) ([]Completion, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	if len(req.Text) > 1024 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "text to complete is too long")
	}
	e := gr.e
	st, err := e.store(ctx)
	if err != nil {
		return nil, err
	}
	fromCol, fromRel := "", ""
	var fromID int64
	if req.From != "" {
		m, err := e.resolve(ctx, req.From)
		if err != nil {
			return nil, err
		}
		fromCol, fromRel, fromID = m.Collection, m.RelPath, m.ID
	}
	col := strings.ToLower(req.Collection)
	if col == "" {
		col = fromCol
	}
	var cols []string
	if col != "" {
		if _, ok := e.Config().Collection(col); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", col)
		}
		cols = []string{col}
	}
	if name, head, ok := strings.Cut(req.Text, "#"); ok {
		return gr.completeHeadings(ctx, name, head, fromCol, fromRel, fromID, limit)
	}
	q := strings.ToLower(strings.TrimSpace(req.Text))
	if q == "" {
		return []Completion{}, nil
	}
	names, err := st.NoteNames(ctx, cols)
	if err != nil {
		return nil, err
	}
	type hit struct {
		c    Completion
		n    *store.NoteName
		rank int
		size int
	}
	var hits []hit
	words := strings.Fields(q)
	for i := range names {
		n := &names[i]
		title, titleLower := n.Title, n.TitleLower
		if title == "" {
			title, titleLower = n.Stem, n.StemLower
		}
		best := hit{rank: -1}
		try := func(lower string, name string, alias bool) {
			r := matchRank(lower, q, words)
			if r < 0 || best.rank >= 0 && (r > best.rank || r == best.rank && len(name) >= best.size) {
				return
			}
			best = hit{c: Completion{Kind: "note", Label: name}, rank: r, size: len(name)}
			if alias {
				best.c.Kind = "alias"
			}
		}
		try(titleLower, title, false)
		if n.StemLower != titleLower {
			try(n.StemLower, n.Stem, false)
		}
		for j, a := range n.AliasesLower {
			try(a, n.Aliases[j], true)
		}
		if best.rank < 0 {
			continue
		}
		best.n = n
		best.c.Title = title
		hits = append(hits, best)
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.size != b.size {
			return a.size < b.size
		}
		if a.n.Collection != b.n.Collection {
			return a.n.Collection < b.n.Collection
		}
		return a.n.RelPath < b.n.RelPath
	})
	out := make([]Completion, 0, min(limit, len(hits)))
	for i := 0; i < len(hits) && i < limit; i++ {
		c, n := hits[i].c, hits[i].n
		// A file name shared by several notes is written as a path.
		target := n.Stem
		if n.Shared {
			target = strings.TrimSuffix(n.RelPath, path.Ext(n.RelPath))
		}
		c.Insert = target
		if c.Kind == "alias" {
			c.Insert = target + "|" + c.Label
		}
		c.URI, c.DocID, c.Detail = ref.URI(n.Collection, n.RelPath), docID(n.Hash), n.Collection+"/"+n.RelPath
		out = append(out, c)
	}
	return out, nil
}

// matchRank says how well name (lowercase) matches q: 0 the whole name,
// 1 its start, 2 a word's start, 3 anywhere, 4 every word of q somewhere;
// -1 not at all.
func matchRank(name, q string, words []string) int {
	if name == q {
		return 0
	}
	i := strings.Index(name, q)
	if i == 0 {
		return 1
	}
	if i > 0 {
		for j := i; ; {
			if strings.ContainsRune(" -_/.([", rune(name[j-1])) {
				return 2
			}
			k := strings.Index(name[j+1:], q)
			if k < 0 {
				return 3
			}
			j += k + 1
		}
	}
	if len(words) < 2 {
		return -1
	}
	for _, w := range words {
		if !strings.Contains(name, w) {
			return -1
		}
	}
	return 4
}

// completeHeadings lists the headings of the note name means (from the
// note at fromCol/fromRel, as the link resolves; "" is that note itself)
// containing head.
func (gr *Graph) completeHeadings(ctx context.Context, name, head, fromCol, fromRel string, fromID int64, limit int) ([]Completion, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return nil, err
	}
	id := fromID
	if strings.TrimSpace(name) != "" {
		key := links.Key(name)
		cands, err := st.Candidates(ctx, []string{key})
		if err != nil {
			return nil, err
		}
		id = links.Resolve(links.Wiki, name, fromCol, fromRel, cands[key])
	}
	if id == 0 {
		return []Completion{}, nil
	}
	docs, err := st.Docs(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	m := docs[id]
	if m == nil {
		return []Completion{}, nil
	}
	content, err := st.Content(ctx, id)
	if err != nil {
		return nil, err
	}
	_, body := note.Split([]byte(content))
	h := strings.ToLower(strings.TrimSpace(head))
	out := []Completion{}
	for _, hd := range chunk.Headings(body) {
		if h != "" && !strings.Contains(strings.ToLower(hd.Text), h) {
			continue
		}
		out = append(out, Completion{Kind: "heading", Label: hd.Text, Insert: name + "#" + hd.Text, Title: m.Title,
			URI: ref.URI(m.Collection, m.RelPath), DocID: docID(m.Hash), Detail: "H" + string(rune('0'+hd.Level))})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// FollowRequest is a link as written in a note.
type FollowRequest struct {
	// From is the REF of the note the link is written in.
	From string
	// Target is the link's target as written ([[Target]]), without
	// #heading or |alias.
	Target string
}

// Follow returns the note a [[link]] written in From names, resolved the
// way the index resolves links (path, then file name from the note's
// folder, then aliases). No note: gnoerr.NotFound.
func (gr *Graph) Follow(ctx context.Context, req FollowRequest) (*NoteRef, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*NoteRef, error) { return gr.follow(ctx, req) })
}

func (gr *Graph) follow(ctx context.Context, req FollowRequest) (*NoteRef, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return nil, err
	}
	from, err := gr.e.resolve(ctx, req.From)
	if err != nil {
		return nil, err
	}
	key := links.Key(req.Target)
	cands, err := st.Candidates(ctx, []string{key})
	if err != nil {
		return nil, err
	}
	id := links.Resolve(links.Wiki, req.Target, from.Collection, from.RelPath, cands[key])
	if id == 0 {
		return nil, gnoerr.New(gnoerr.NotFound, "no note is named %q", req.Target)
	}
	docs, err := st.Docs(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	m := docs[id]
	if m == nil {
		return nil, gnoerr.New(gnoerr.NotFound, "no note is named %q", req.Target)
	}
	r := noteRef(m)
	return &r, nil
}
