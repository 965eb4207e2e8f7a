package retrieval

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/graph"
	"github.com/gnosearch/gno/retrieval/graph/layout"
	"github.com/gnosearch/gno/retrieval/store"
)

// WholeGraph is the whole link graph of the index as a graph view draws
// it: every document (ID, title, collection, path, tags), its resolved
// links, its unresolved ones, and the cached PageRank.
type WholeGraph struct {
	// Version is a digest of Input without Rank (which follows from the
	// links): it changes exactly when what a drawing shows changes, so
	// a layout keyed by it is redone when links, titles, tags or the
	// document set change, and not after a write that changed only text.
	Version string
	// Input's document IDs are collection/path references, which every
	// REF parameter accepts (unlike a docid, unique per document).
	Input *layout.Input
	// Total is the number of documents in the index; above
	// maxWholeDocs, Input holds only the maxWholeDocs of highest
	// PageRank and the links among them.
	Total int
}

// maxWholeDocs bounds the documents of the whole graph: a drawing of a
// million notes shows nothing a person can read, and laying it out held
// gigabytes in the daemon (which keeps the scene warm) for every sync.
// Above it the graph view draws the most central notes, by PageRank over
// the whole graph; a note's own neighbourhood (?focus=) is never sampled.
// (A variable so that a test can lower it.)
var maxWholeDocs = 25000

// wholeCache is the latest WholeGraph and the committed state it was
// read at.
type wholeCache struct {
	mu    sync.Mutex
	state string
	g     *WholeGraph
}

// State names the committed state of the index: every write batch
// changes it, and reading it costs one small query, so a caller can poll
// it to learn that Whole may have changed without rebuilding anything.
func (gr *Graph) State(ctx context.Context) (string, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return "", err
	}
	return st.LinkVersion(ctx)
}

// Whole returns the whole link graph, read once per committed state of
// the index (from the store's cached link index, one query for the tags,
// and the part's cached PageRank) and shared by every caller until the
// next write; callers must not change it.
func (gr *Graph) Whole(ctx context.Context) (*WholeGraph, error) {
	return readAs(ctx, gr.e, func(ctx context.Context) (*WholeGraph, error) { return gr.readWhole(ctx) })
}

func (gr *Graph) readWhole(ctx context.Context) (*WholeGraph, error) {
	st, err := gr.e.store(ctx)
	if err != nil {
		return nil, err
	}
	state, err := st.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	c := &gr.whole
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.g != nil && c.state == state {
		return c.g, nil
	}
	c.g = nil // not kept alive beside the one built next
	g, _, err := gr.linkGraph(ctx)
	if err != nil {
		return nil, err
	}
	pr := gr.pageRank(g)
	// The graph's nodes are every document, in id order: NoteNames'.
	nodes := g.Nodes()
	total := len(nodes)
	var names []store.NoteName
	var unresolved []store.LinkRow
	var tags map[int64][]string
	var pairs [][2]int64
	if total > maxWholeDocs {
		// The most central notes, in their original (id) order so the
		// layout sees them as it would unsampled; only their names and
		// broken links are read (the whole lists were ~0.5 GB and most
		// of the CPU of the daemon's re-warm after a sync at 1M).
		// pr is in the order of the nodes (Graph.Ranks).
		idx := topRanked(pr, maxWholeDocs)
		ids := make([]int64, len(idx))
		for i, j := range idx {
			ids[i] = nodes[j]
		}
		if names, err = st.NoteNamesOf(ctx, ids); err != nil {
			return nil, err
		}
		if unresolved, err = st.UnresolvedFrom(ctx, ids); err != nil {
			return nil, err
		}
		// Likewise their tags and the links among them (every document's
		// tags and every link were most of what was left of a re-warm
		// after a one-file sync at 1M: bench/RESULTS.md).
		if tags, err = st.DocTagsOf(ctx, ids); err != nil {
			return nil, err
		}
		if pairs, err = st.LinkGraphAmong(ctx, ids); err != nil {
			return nil, err
		}
	} else {
		if names, err = st.NoteNames(ctx, nil); err != nil {
			return nil, err
		}
		if unresolved, err = st.Unresolved(ctx, "", 0); err != nil {
			return nil, err
		}
		total = len(names)
		if tags, err = st.DocTags(ctx); err != nil {
			return nil, err
		}
		if _, pairs, err = st.LinkGraph(ctx, nil); err != nil {
			return nil, err
		}
	}
	in := &layout.Input{Docs: make([]layout.Doc, len(names)), Rank: make([]float64, len(names))}
	at := make(map[int64]int32, len(names))
	for i, n := range names {
		title := n.Title
		if title == "" {
			title = n.Stem
		}
		in.Docs[i] = layout.Doc{ID: n.Collection + "/" + n.RelPath, Title: title, Collection: n.Collection, Path: n.RelPath, Tags: tags[n.ID]}
		in.Rank[i] = g.Rank(pr, n.ID)
		at[n.ID] = int32(i)
	}
	// The three reads above each take the link index of their own
	// moment: a document that came or went between them is left out.
	for _, p := range pairs {
		a, okA := at[p[0]]
		b, okB := at[p[1]]
		if okA && okB {
			in.Links = append(in.Links, layout.Link{Src: a, Dst: b})
		}
	}
	for _, u := range unresolved {
		target := strings.TrimSpace(u.Target)
		if a, ok := at[u.Src]; ok && target != "" {
			in.Unresolved = append(in.Unresolved, layout.Unresolved{Src: a, Target: unresolvedName(target)})
		}
	}
	c.g, c.state = &WholeGraph{Version: digest(in), Input: in, Total: total}, state
	return c.g, nil
}

// topRanked returns the indexes of the k highest ranks, ascending; of
// ranks equal on graph.RankKey the lower indexes (so the pick does not
// depend on where the ranks started): the first k of a stable sort by
// key, descending. A heap of the k best so far, not a sort of every
// node (a sort of a million was a third of a re-warm after a small
// sync).
func topRanked(rank []float64, k int) []int {
	k = min(k, len(rank))
	if k <= 0 {
		return []int{}
	}
	h := &rankHeap{rank: rank, idx: make([]int, 0, k)}
	for i := range rank {
		if h.Len() < k {
			heap.Push(h, i)
		} else if h.worse(h.idx[0], i) {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	sort.Ints(h.idx)
	return h.idx
}

// rankHeap is a min-heap of node indexes by rank: idx[0] is the worst
// kept, the one a better node replaces.
type rankHeap struct {
	rank []float64
	idx  []int
}

// worse reports whether index a ranks below index b: a lower RankKey,
// or an equal one and a higher index.
func (h *rankHeap) worse(a, b int) bool {
	ka, kb := graph.RankKey(h.rank[a]), graph.RankKey(h.rank[b])
	return ka < kb || ka == kb && a > b
}

func (h *rankHeap) Len() int           { return len(h.idx) }
func (h *rankHeap) Less(i, j int) bool { return h.worse(h.idx[i], h.idx[j]) }
func (h *rankHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *rankHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *rankHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// unresolvedName is how a missing note is labelled: the target as
// written, without a folder or a Markdown extension ("notes/Idea.md"
// and "Idea" name the same missing note).
func unresolvedName(target string) string {
	base := path.Base(strings.TrimSuffix(target, "/"))
	if ext := path.Ext(base); strings.EqualFold(ext, ".md") {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." || base == "/" {
		return target
	}
	return base
}

// digest is a version of in: SHA-256 over its documents, links and
// unresolved links (not Rank, which the links determine).
func digest(in *layout.Input) string {
	h := sha256.New()
	str := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	num := func(v int32) { writeUint(h, uint32(v)) }
	for _, d := range in.Docs {
		str(d.ID)
		str(d.Title)
		str(d.Collection)
		str(d.Path)
		num(int32(len(d.Tags)))
		for _, t := range d.Tags {
			str(t)
		}
	}
	num(-1)
	for _, l := range in.Links {
		num(l.Src)
		num(l.Dst)
	}
	num(-1)
	for _, u := range in.Unresolved {
		num(u.Src)
		str(u.Target)
	}
	return "g" + hex.EncodeToString(h.Sum(nil)[:12])
}

func writeUint(h hash.Hash, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	h.Write(b[:])
}
