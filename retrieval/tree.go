package retrieval

import (
	"context"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Folder is a folder of indexed documents, or (Path "") a collection's
// root.
type Folder struct {
	Collection string `json:"collection"`
	// Name is the folder's own name (the collection's at the root) and
	// Path its path from the collection root ("" at the root).
	Name string `json:"name"`
	Path string `json:"path"`
	// Count is the documents in the folder and below it; Docs those in
	// the folder itself.
	Count   int       `json:"count"`
	Docs    int       `json:"docs"`
	Folders []*Folder `json:"folders,omitempty"`
}

// TreeRequest asks for the folders of one collection ("": all).
type TreeRequest struct {
	Collection string
}

// Tree returns the folders of the indexed documents, one root per
// collection, with document counts; subfolders are sorted by name. The
// documents themselves come from Engine.List.
func (n *Notes) Tree(ctx context.Context, req TreeRequest) ([]*Folder, error) {
	cfg := n.e.Config()
	cols := cfg.CollectionNames()
	if c := strings.ToLower(req.Collection); c != "" {
		if _, ok := cfg.Collection(c); !ok {
			return nil, gnoerr.New(gnoerr.NotFound, "collection %q not found", c)
		}
		cols = []string{c}
	}
	st, err := n.e.store(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := st.List(ctx, cols, "", 0, 0)
	if err != nil {
		return nil, err
	}
	roots := make([]*Folder, 0, len(cols))
	byPath := map[string]*Folder{}
	for _, c := range cols {
		f := &Folder{Collection: c, Name: c}
		roots = append(roots, f)
		byPath[c+"/"] = f
	}
	var folder func(col, dir string) *Folder
	folder = func(col, dir string) *Folder {
		if f := byPath[col+"/"+dir]; f != nil {
			return f
		}
		parent, name := "", dir
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			parent, name = dir[:i], dir[i+1:]
		}
		p := folder(col, parent)
		f := &Folder{Collection: col, Name: name, Path: dir}
		p.Folders = append(p.Folders, f)
		byPath[col+"/"+dir] = f
		return f
	}
	for _, d := range docs {
		dir := ""
		if i := strings.LastIndexByte(d.RelPath, '/'); i >= 0 {
			dir = d.RelPath[:i]
		}
		f := folder(d.Collection, dir)
		f.Docs++
		for p := dir; ; {
			byPath[d.Collection+"/"+p].Count++
			if p == "" {
				break
			}
			i := strings.LastIndexByte(p, '/')
			p = p[:max(i, 0)]
		}
	}
	var sortTree func(f *Folder)
	sortTree = func(f *Folder) {
		sort.Slice(f.Folders, func(i, j int) bool { return strings.ToLower(f.Folders[i].Name) < strings.ToLower(f.Folders[j].Name) })
		for _, c := range f.Folders {
			sortTree(c)
		}
	}
	for _, r := range roots {
		sortTree(r)
	}
	return roots, nil
}
