package web

import (
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// browseView is the folder browser's data.
type browseView struct {
	Tree    []*treeNode
	Crumbs  []crumb
	Heading string
	Here    *retrieval.Folder
	Docs    []fileEntry
	// More is how many documents the folder holds when Docs is cut.
	More int
}

// treeNode is a folder of the sidebar tree: the roots, and the folders
// along the path to the current one (opened), with their siblings.
type treeNode struct {
	*retrieval.Folder
	HasKids, Open, Current bool
	Kids                   []*treeNode
}

type crumb struct{ Name, Href string }

type fileEntry struct {
	Title, URI, Name string
}

// maxListed is how many documents a folder page lists.
const maxListed = 500

func browseHref(col, dir string) string {
	v := url.Values{"c": {col}}
	if dir != "" {
		v.Set("dir", dir)
	}
	return "/browse?" + v.Encode()
}

func (a *App) browsePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	col, dir := strings.ToLower(q.Get("c")), strings.Trim(q.Get("dir"), "/")
	view := &browseView{Heading: "All collections"}
	p := page{Title: "Browse", Data: view}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		a.fail(w, r, "browse", p, err)
		return
	}
	roots, err := e.Notes().Tree(r.Context(), retrieval.TreeRequest{})
	if err != nil {
		a.fail(w, r, "browse", p, err)
		return
	}
	view.Here = findFolder(roots, col, dir)
	if col != "" && view.Here == nil {
		a.fail(w, r, "browse", p, gnoerr.New(gnoerr.NotFound, "no folder %q in collection %q", dir, col))
		return
	}
	for _, f := range roots {
		view.Tree = append(view.Tree, pathTree(f, col, dir))
	}
	if view.Here == nil {
		// All collections: the roots are the folders.
		view.Here = &retrieval.Folder{Folders: roots}
		for _, f := range roots {
			view.Here.Count += f.Count
		}
		a.render(w, r, "browse", http.StatusOK, p)
		return
	}
	view.Heading = view.Here.Name
	p.Title = col + "/" + dir
	view.Crumbs = []crumb{{"All", "/browse"}, {col, browseHref(col, "")}}
	if dir != "" {
		parts := strings.Split(dir, "/")
		for i := range parts {
			view.Crumbs = append(view.Crumbs, crumb{parts[i], browseHref(col, strings.Join(parts[:i+1], "/"))})
		}
	}
	view.Crumbs[len(view.Crumbs)-1].Href = ""
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	entries, err := e.List(r.Context(), col+"/"+prefix, 0, 0)
	if err != nil {
		a.fail(w, r, "browse", p, err)
		return
	}
	for _, d := range entries {
		rest := strings.TrimPrefix(d.RelPath, prefix)
		if strings.Contains(rest, "/") {
			continue
		}
		if len(view.Docs) == maxListed {
			view.More = view.Here.Docs
			break
		}
		title := d.Title
		if title == "" {
			title = rest
		}
		view.Docs = append(view.Docs, fileEntry{Title: title, URI: d.URI, Name: rest})
	}
	sort.SliceStable(view.Docs, func(i, j int) bool { return strings.ToLower(view.Docs[i].Title) < strings.ToLower(view.Docs[j].Title) })
	a.render(w, r, "browse", http.StatusOK, p)
}

// findFolder finds a folder in the trees; nil when col is "" or unknown.
func findFolder(roots []*retrieval.Folder, col, dir string) *retrieval.Folder {
	for _, f := range roots {
		if f.Collection != col {
			continue
		}
		if dir == "" {
			return f
		}
		for _, part := range strings.Split(dir, "/") {
			var next *retrieval.Folder
			for _, c := range f.Folders {
				if c.Name == part {
					next = c
				}
			}
			if next == nil {
				return nil
			}
			f = next
		}
		return f
	}
	return nil
}

// pathTree is f with only the folders along col/dir opened: what the
// sidebar shows before its script loads more.
func pathTree(f *retrieval.Folder, col, dir string) *treeNode {
	n := &treeNode{Folder: f, HasKids: len(f.Folders) > 0}
	if f.Collection != col {
		return n
	}
	inPath := f.Path == "" || dir == f.Path || strings.HasPrefix(dir, f.Path+"/")
	if !inPath {
		return n
	}
	n.Current = f.Path == dir
	n.Open = n.HasKids
	for _, c := range f.Folders {
		n.Kids = append(n.Kids, pathTree(c, col, dir))
	}
	return n
}

// treeAPI serves GET /api/tree?collection=&dir=&depth=: the folder tree
// with counts, from dir (default: the roots) down depth levels (default
// all).
func (a *App) treeAPI(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	col := q.Get("collection")
	roots, err := e.Notes().Tree(r.Context(), retrieval.TreeRequest{Collection: col})
	if err != nil {
		writeError(w, err)
		return
	}
	depth := -1
	if d := q.Get("depth"); d != "" {
		if depth, err = strconv.Atoi(d); err != nil || depth < 0 {
			writeError(w, gnoerr.New(gnoerr.InvalidInput, "depth must be a number 0 or more"))
			return
		}
	}
	if dir := strings.Trim(q.Get("dir"), "/"); dir != "" {
		f := findFolder(roots, strings.ToLower(col), dir)
		if col == "" || f == nil {
			writeError(w, gnoerr.New(gnoerr.NotFound, "no folder %q in collection %q", dir, col))
			return
		}
		roots = []*retrieval.Folder{f}
	}
	out := make([]*retrieval.Folder, len(roots))
	for i, f := range roots {
		out[i] = prune(f, depth)
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": out})
}

// prune copies f down depth levels of subfolders (-1: all). A folder cut
// off keeps its count; "more" says it has subfolders.
func prune(f *retrieval.Folder, depth int) *retrieval.Folder {
	c := *f
	if depth == 0 {
		c.Folders = nil
		if len(f.Folders) > 0 {
			c.Folders = []*retrieval.Folder{}
		}
		return &c
	}
	c.Folders = make([]*retrieval.Folder, len(f.Folders))
	for i, s := range f.Folders {
		c.Folders[i] = prune(s, depth-1)
	}
	return &c
}

// tagNode is a tag of the nested tag tree: a/b/c sits under a/b.
type tagNode struct {
	Name, Full string
	// Own counts the notes tagged exactly Full; Total adds the nested
	// tags' notes (a note under two nested tags counts twice).
	Own, Total int
	Kids       []*tagNode
}

// tagsView is the tag browser's data.
type tagsView struct {
	Tags  []*tagNode
	Total int
}

func (a *App) tagsPage(w http.ResponseWriter, r *http.Request) {
	view := &tagsView{}
	col := r.URL.Query().Get("collection")
	p := page{Title: "Tags", Data: view, Form: form{Collection: col}}
	e, err := a.srv.Engine(r.Context())
	if err != nil {
		a.fail(w, r, "tags", p, err)
		return
	}
	tags, err := e.Notes().Tags(r.Context(), retrieval.TagsRequest{Collection: col})
	if err != nil {
		a.fail(w, r, "tags", p, err)
		return
	}
	view.Total = len(tags)
	view.Tags = tagTree(tags)
	a.render(w, r, "tags", http.StatusOK, p)
}

// tagTree nests tags on "/", sorted by name at each level.
func tagTree(tags []retrieval.TagCount) []*tagNode {
	byFull := map[string]*tagNode{}
	var roots []*tagNode
	var node func(full string) *tagNode
	node = func(full string) *tagNode {
		if n := byFull[full]; n != nil {
			return n
		}
		n := &tagNode{Name: path.Base(full), Full: full}
		byFull[full] = n
		if i := strings.LastIndexByte(full, '/'); i > 0 {
			p := node(full[:i])
			p.Kids = append(p.Kids, n)
		} else {
			roots = append(roots, n)
		}
		return n
	}
	for _, t := range tags {
		n := node(t.Tag)
		n.Own = t.Count
		for full := t.Tag; ; {
			byFull[full].Total += t.Count
			i := strings.LastIndexByte(full, '/')
			if i <= 0 {
				break
			}
			full = full[:i]
		}
	}
	var sortTags func(ns []*tagNode)
	sortTags = func(ns []*tagNode) {
		sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
		for _, n := range ns {
			sortTags(n.Kids)
		}
	}
	sortTags(roots)
	return roots
}

// humanBytes writes a size for people: 812 B, 14.2 KB, 5.0 MB.
func humanBytes(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}
