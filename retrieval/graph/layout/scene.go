package layout

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/gnosearch/gno/retrieval/graph"
)

// Doc is one document of the graph, with what the view shows of it.
type Doc struct {
	// ID is what the browser opens the document by (a docid such as
	// "#a1b2c3", or a gno:// URI).
	ID         string
	Title      string
	Collection string
	// Path is the collection-relative path; its folder can colour the
	// node.
	Path string
	Tags []string
}

// Link is a resolved link from Docs[Src] to Docs[Dst].
type Link struct{ Src, Dst int32 }

// Unresolved is a link from Docs[Src] to a note that does not exist,
// named Target (as written, without heading or alias).
type Unresolved struct {
	Src    int32
	Target string
}

// Input is a whole link graph.
type Input struct {
	Docs       []Doc
	Links      []Link
	Unresolved []Unresolved
	// Rank is each document's PageRank when the caller has it cached;
	// nil computes it.
	Rank []float64
}

// Flag marks a node.
type Flag uint8

// Node flags.
const (
	// Orphan: a document with no resolved link in or out (what `gno
	// orphans` lists).
	Orphan Flag = 1 << iota
	// Ghost: the target of unresolved links; no document. Links to the
	// same missing name (compared case-insensitively, within a
	// collection) share one ghost.
	Ghost
)

const knownFlags = Orphan | Ghost

// Scene is what the browser draws: the documents (first, in Input order)
// and the ghosts after them, their positions and metadata, and the
// distinct undirected edges. Strings are stored once in tables
// (Collections, Folders, Tags) and nodes refer to them by index.
type Scene struct {
	// Pos holds x, y of node i at Pos[2i], Pos[2i+1].
	Pos []float32
	// Rank is the PageRank of each document (0 for ghosts).
	Rank []float32
	// Degree counts each node's distinct neighbours.
	Degree []uint32
	Flags  []Flag
	// Collection and Folder index Collections and Folders; a folder is
	// collection-relative ("" for the collection's root).
	Collection []uint16
	Folder     []uint32
	Title      []string
	// ID is the document's ID ("" for a ghost).
	ID []string
	// The tags of node i are Tags[TagRefs[TagStart[i]:TagStart[i+1]]].
	TagStart []uint32
	TagRefs  []uint32
	// Edges holds pairs a, b (a < b) of linked nodes.
	Edges       []uint32
	Collections []string
	Folders     []string
	Tags        []string
}

// Len is the number of nodes.
func (s *Scene) Len() int { return len(s.Title) }

// Build lays out the graph of in and returns its scene. The layout
// (Result) is returned too, for its statistics.
func Build(ctx context.Context, in *Input, o Options) (*Scene, *Result, error) {
	nd := len(in.Docs)
	s := &Scene{}
	strs := func(tab *[]string, idx map[string]uint32) func(string) uint32 {
		return func(v string) uint32 {
			if i, ok := idx[v]; ok {
				return i
			}
			i := uint32(len(*tab))
			idx[v] = i
			*tab = append(*tab, v)
			return i
		}
	}
	colOf := strs(&s.Collections, map[string]uint32{})
	folderOf := strs(&s.Folders, map[string]uint32{})
	tagOf := strs(&s.Tags, map[string]uint32{})
	s.TagStart = append(s.TagStart, 0)
	addNode := func(id, title, col, folder string, tags []string, flags Flag) {
		s.ID = append(s.ID, clean(id))
		s.Title = append(s.Title, clean(title))
		s.Collection = append(s.Collection, uint16(min(colOf(clean(col)), 0xffff)))
		s.Folder = append(s.Folder, folderOf(clean(folder)))
		for _, t := range tags {
			s.TagRefs = append(s.TagRefs, tagOf(clean(t)))
		}
		s.TagStart = append(s.TagStart, uint32(len(s.TagRefs)))
		s.Flags = append(s.Flags, flags)
	}
	for _, d := range in.Docs {
		dir := path.Dir(d.Path)
		if dir == "." || dir == "/" {
			dir = ""
		}
		addNode(d.ID, d.Title, d.Collection, dir, d.Tags, 0)
	}
	// Edges: resolved links, then a ghost per missing name.
	var edges [][2]int32
	linked := make([]bool, nd)
	for _, l := range in.Links {
		if l.Src < 0 || l.Dst < 0 || int(l.Src) >= nd || int(l.Dst) >= nd || l.Src == l.Dst {
			continue
		}
		linked[l.Src], linked[l.Dst] = true, true
		edges = append(edges, [2]int32{l.Src, l.Dst})
	}
	ghosts := map[string]int32{}
	for _, u := range in.Unresolved {
		if u.Src < 0 || int(u.Src) >= nd {
			continue
		}
		name := strings.TrimSpace(u.Target)
		if name == "" {
			continue
		}
		col := in.Docs[u.Src].Collection
		key := col + "\x00" + strings.ToLower(name)
		g, ok := ghosts[key]
		if !ok {
			g = int32(len(s.Title))
			ghosts[key] = g
			addNode("", name, col, "", nil, Ghost)
		}
		edges = append(edges, [2]int32{u.Src, g})
	}
	for i := 0; i < nd; i++ {
		if !linked[i] {
			s.Flags[i] |= Orphan
		}
	}
	n := len(s.Title)
	// Distinct undirected edges, sorted.
	for i, e := range edges {
		if e[0] > e[1] {
			edges[i] = [2]int32{e[1], e[0]}
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i][0] != edges[j][0] {
			return edges[i][0] < edges[j][0]
		}
		return edges[i][1] < edges[j][1]
	})
	s.Degree = make([]uint32, n)
	w := 0
	for i, e := range edges {
		if i > 0 && e == edges[i-1] {
			continue
		}
		edges[w] = e
		w++
		s.Degree[e[0]]++
		s.Degree[e[1]]++
		s.Edges = append(s.Edges, uint32(e[0]), uint32(e[1]))
	}
	edges = edges[:w]
	rank := in.Rank
	if len(rank) != nd {
		rank = pageRank(in.Links, nd)
	}
	s.Rank = make([]float32, n)
	for i := 0; i < nd; i++ {
		s.Rank[i] = float32(rank[i])
	}
	res, err := Layout(ctx, Graph{N: n, Edges: edges}, o)
	if err != nil {
		return nil, nil, err
	}
	s.Pos = res.Pos
	return s, res, nil
}

// pageRank is the PageRank of retrieval/graph over the resolved links.
func pageRank(links []Link, n int) []float64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	es := make([]graph.Edge, 0, len(links))
	for _, l := range links {
		es = append(es, graph.Edge{Src: int64(l.Src), Dst: int64(l.Dst)})
	}
	pr := graph.New(ids, es).PageRank(0.85)
	out := make([]float64, n)
	for i := range out {
		out[i] = pr[int64(i)]
	}
	return out
}

// clean makes a string safe for the scene's string table: valid UTF-8, no
// line breaks (they separate the table's strings), at most 300 bytes.
func clean(s string) string {
	s = oneLine(strings.ReplaceAll(s, "\r", " "))
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// oneLine makes s valid UTF-8 without '\n' (which separates the
// encoded strings).
func oneLine(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\n", " ")
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
