// Package vector is gno's approximate nearest-neighbour index over chunk
// vectors: an HNSW graph with cosine similarity, filtered search,
// deletions, and a saved file that a process searches in place.
//
// Vectors must be L2-normalised (as inference.Embedder returns them), so
// cosine similarity is a dot product.
//
// Two forms. Index is the graph being built: vectors and links in memory,
// held only by the process that builds or saves it (gno embed, or a
// search that finds no usable file); the builder the engine uses
// (NewQuantized, and Graph.Thaw) holds each vector as the int8 codes and
// scale the file will hold, so building or saving a million 384-dimension
// vectors holds ~0.4 GB of codes, not 1.5 GB of float32 (the new node's
// own vector stays exact while it is inserted). Graph is a saved file opened for
// search (format.go): the file is memory-mapped, not decoded, and holds
// each vector as int8 codes with a scale (quant.go), a quarter of float32;
// a search walks the codes and re-scores its best candidates with the
// exact vectors the caller gives (Query.Exact: the engine reads them from
// SQLite, the one full-precision copy), so codes order the walk and exact
// vectors the answer. Vectors added or deleted since the save live beside
// the file in memory, scanned exactly, until the next save (Graph.Thaw);
// the keys deleted since the save can be kept beside the file
// (Graph.SaveGone, gone.go), so the next process need not find them again.
// Why: at a million 384-dimension vectors float32 alone is 1.5 GB in
// every process that searched; the file is ~0.55 GB of which a one-shot
// search reads a few thousand nodes' pages, and a daemon's resident share
// of it is page cache the kernel can drop. Measured in bench/RESULTS.md
// ("Vectors at a million"; `go run ./bench/cmd/gnovecbench`).
//
// The file is a parser's input: its header and upper table are checked
// when it opens, each link as a walk reads it; anything wrong is
// ErrDamaged (the engine rebuilds the file from the store), never a crash
// or an allocation the file's size does not justify (FuzzGraphFile). A
// file of the first format (float32 vectors, decoded whole) is converted
// in place when opened.
//
// The graph is implemented here rather than with github.com/coder/hnsw:
// that library's greedy search stops at the first step that does not
// improve the best distance, which measured recall@10 of 0.32 against
// exact search on 5,000 clustered vectors (ef 160), and its Import leaves
// nil neighbour pointers after a Delete, so a saved index that had
// deletions crashes on load. This is the algorithm of Malkov & Yashunin
// (2018) with the neighbour-selection heuristic and tombstone deletes.
//
// It owns the graph and its file; it must not import anything of gno
// (the engine loads it from the store).
package vector

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Hit is one search result: a chunk key and its cosine similarity to the
// query, in [-1, 1].
type Hit struct {
	Key   int64
	Score float32
}

// Params tune the graph; the zero value gives the defaults, chosen with
// the recall@10 benchmark (see MODELS.md).
type Params struct {
	M              int // links per node above layer 0; 2M on layer 0 (default 16)
	EfConstruction int // candidate list size while inserting (default 128)
	EfSearch       int // candidate list size while searching (default 96)
	// ExactBelow makes a filtered search scan exactly when the caller says
	// fewer vectors than this pass the filter (default 2000).
	ExactBelow int
	// Rescore is how many candidates a saved graph's walk re-scores with
	// exact vectors (default max(2K, 40) for K hits).
	Rescore int
}

func (p *Params) defaults() {
	if p.M < 2 { // one link per node makes no hierarchy (level factor 1/ln 1)
		p.M = 16
	}
	if p.EfConstruction <= 0 {
		p.EfConstruction = 128
	}
	if p.EfSearch <= 0 {
		p.EfSearch = 96
	}
	if p.ExactBelow <= 0 {
		p.ExactBelow = 2000
	}
}

// Index is an HNSW graph of chunk vectors of one model. It is safe for
// concurrent use: searches run in parallel, writes are exclusive.
type Index struct {
	mu     sync.RWMutex
	dims   int
	model  string
	params Params
	ml     float64
	rng    *rand.Rand

	vecs []float32 // node i's vector at [i*dims : (i+1)*dims]; nil when q8
	// q8 indexes hold node i's vector as int8 codes at
	// [i*dims : (i+1)*dims] and a scale (quant.go), as the saved file.
	q8      bool
	codes   []byte
	scales  []float32
	tmp     [2][]float32 // decoded vectors, used under mu (write)
	keys    []int64      // node i's key
	dead    []bool       // node i was deleted (a tombstone, still walked through)
	links   [][][]int32  // links[i][level] are node i's neighbours on that level
	byKey   map[int64]int32
	entry   int32 // -1 when empty
	top     int   // entry's level
	ndead   int
	visited sync.Pool // *visitSet
	// flat indexes keep no links and search by scanning: the few vectors
	// a Graph holds beside its saved file.
	flat bool
}

// New returns an empty index for vectors of dims dimensions made by
// modelID (kept with the export, so vectors of another model are never
// mixed in).
func New(dims int, modelID string, p Params) *Index {
	p.defaults()
	return &Index{
		dims: dims, model: modelID, params: p,
		ml:    1 / math.Log(float64(p.M)),
		rng:   rand.New(rand.NewPCG(1, 2)), // reproducible graphs for a given insert order
		byKey: map[int64]int32{},
		entry: -1,
	}
}

// NewQuantized returns an empty index that holds each vector as int8
// codes and a scale, as a saved graph does: a quarter of the memory of
// New, for building a graph to save. Its own searches score by codes
// unless the query gives exact vectors (Query.Exact), which re-score the
// best candidates, as a saved graph's search does.
func NewQuantized(dims int, modelID string, p Params) *Index {
	ix := New(dims, modelID, p)
	ix.q8 = true
	return ix
}

// Reserve makes room for n more nodes, so a build of known size does not
// grow (and briefly double) its arrays as it goes.
func (ix *Index) Reserve(n int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.keys = slices.Grow(ix.keys, n)
	ix.dead = slices.Grow(ix.dead, n)
	ix.links = slices.Grow(ix.links, n)
	if ix.q8 {
		ix.codes = slices.Grow(ix.codes, n*ix.dims)
		ix.scales = slices.Grow(ix.scales, n)
	} else {
		ix.vecs = slices.Grow(ix.vecs, n*ix.dims)
	}
	if len(ix.byKey) == 0 {
		ix.byKey = make(map[int64]int32, n)
	}
}

// Dims is the vector length the index holds.
func (ix *Index) Dims() int { return ix.dims }

// ModelID names the model whose vectors the index holds.
func (ix *Index) ModelID() string { return ix.model }

// Len counts the live vectors in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byKey)
}

// Has reports whether key is in the index.
func (ix *Index) Has(key int64) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.byKey[key]
	return ok
}

func (ix *Index) check(vec []float32) error {
	if len(vec) != ix.dims {
		return fmt.Errorf("vector index: vector has %d dimensions, index holds %d", len(vec), ix.dims)
	}
	return nil
}

// vec is node i's float32 vector; only for an index that is not q8.
func (ix *Index) vec(i int32) []float32 {
	return ix.vecs[int(i)*ix.dims : int(i+1)*ix.dims]
}

func (ix *Index) code(i int32) []byte {
	return ix.codes[int(i)*ix.dims : int(i+1)*ix.dims]
}

// vecOf is node i's vector: the stored one, or a q8 index's codes
// decoded into buf (then valid until buf is used again).
func (ix *Index) vecOf(i int32, buf []float32) []float32 {
	if !ix.q8 {
		return ix.vec(i)
	}
	dequantize(ix.code(i), ix.scales[i], buf)
	return buf
}

// scratch is the index's k-th decoding buffer (the write lock held).
func (ix *Index) scratch(k int) []float32 {
	if len(ix.tmp[k]) != ix.dims {
		ix.tmp[k] = make([]float32, ix.dims)
	}
	return ix.tmp[k]
}

func (ix *Index) push(vec []float32) {
	if !ix.q8 {
		ix.vecs = append(ix.vecs, vec...)
		return
	}
	at := len(ix.codes)
	ix.codes = slices.Grow(ix.codes, ix.dims)[:at+ix.dims]
	ix.scales = append(ix.scales, quantize(vec, ix.codes[at:]))
}

func (ix *Index) dist(q []float32, i int32) float32 {
	if ix.q8 {
		return 1 - ix.scales[i]*dot8(q, ix.code(i))
	}
	return 1 - vek32.Dot(q, ix.vec(i))
}

// Add inserts the vector stored under key, replacing any earlier one. The
// index keeps its own copy.
func (ix *Index) Add(key int64, vec []float32) error {
	if err := ix.check(vec); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old, ok := ix.byKey[key]; ok {
		ix.kill(old)
	}
	ix.insert(key, vec)
	ix.maybeCompact()
	return nil
}

// Delete removes key; it reports whether key was present. The node stays in
// the graph as a tombstone that searches walk through but never return,
// until tombstones outnumber live nodes and the graph is rebuilt.
func (ix *Index) Delete(key int64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i, ok := ix.byKey[key]
	if !ok {
		return false
	}
	ix.kill(i)
	ix.maybeCompact()
	return true
}

func (ix *Index) kill(i int32) {
	delete(ix.byKey, ix.keys[i])
	ix.dead[i] = true
	ix.ndead++
}

// maybeCompact rebuilds the graph from live nodes once tombstones
// outnumber them (and are many, or all that is left), so deletions cannot
// degrade search for ever.
func (ix *Index) maybeCompact() {
	if ix.ndead == 0 || ix.ndead <= len(ix.byKey) || (ix.ndead < 1000 && len(ix.byKey) > 0) {
		return
	}
	fresh := New(ix.dims, ix.model, ix.params)
	fresh.flat, fresh.q8 = ix.flat, ix.q8
	for i, key := range ix.keys {
		if !ix.dead[i] {
			// A q8 node's codes decode to a vector that quantises
			// back to the same codes.
			fresh.insert(key, ix.vecOf(int32(i), ix.scratch(0)))
		}
	}
	ix.vecs, ix.codes, ix.scales = fresh.vecs, fresh.codes, fresh.scales
	ix.keys, ix.dead, ix.links = fresh.keys, fresh.dead, fresh.links
	ix.byKey, ix.entry, ix.top, ix.ndead = fresh.byKey, fresh.entry, fresh.top, 0
}

func (ix *Index) insert(key int64, vec []float32) {
	id := int32(len(ix.keys))
	level := int(math.Floor(-math.Log(1-ix.rng.Float64()) * ix.ml))
	ix.push(vec)
	ix.keys = append(ix.keys, key)
	ix.dead = append(ix.dead, false)
	ix.links = append(ix.links, make([][]int32, level+1))
	ix.byKey[key] = id
	if ix.flat {
		ix.links[id] = nil
		return
	}
	q := vec // exact while it is inserted, in a q8 index too
	if ix.entry < 0 {
		ix.entry, ix.top = id, level
		return
	}
	ep := ix.entry
	for l := ix.top; l > level; l-- {
		ep = ix.greedy(q, ep, l)
	}
	vs := ix.getVisited()
	defer ix.visited.Put(vs)
	for l := min(level, ix.top); l >= 0; l-- {
		cands := ix.searchLayer(q, ep, ix.params.EfConstruction, l, vs)
		maxLinks := ix.params.M
		if l == 0 {
			maxLinks = 2 * ix.params.M
		}
		nbrs := ix.selectNeighbors(cands, ix.params.M)
		ix.links[id][l] = nbrs
		for _, n := range nbrs {
			ln := append(ix.links[n][l], id)
			if len(ln) > maxLinks {
				ln = ix.prune(n, ln, maxLinks)
			}
			ix.links[n][l] = ln
		}
		ep = cands[0].id
	}
	if level > ix.top {
		ix.entry, ix.top = id, level
	}
}

type cand struct {
	id   int32
	dist float32
}

// selectNeighbors is the paper's heuristic: take candidates nearest first,
// skipping one that is closer to an already chosen neighbour than to the
// new node, which keeps links spread across clusters.
func (ix *Index) selectNeighbors(cands []cand, m int) []int32 {
	out := make([]int32, 0, m)
	for _, c := range cands {
		if len(out) == m {
			break
		}
		ok := true
		var cv []float32
		for k, o := range out {
			if k == 0 {
				cv = ix.vecOf(c.id, ix.scratch(1))
			}
			if ix.dist(cv, o) < c.dist {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c.id)
		}
	}
	for _, c := range cands { // fill up with the nearest skipped ones
		if len(out) == m {
			break
		}
		if !slices.Contains(out, c.id) {
			out = append(out, c.id)
		}
	}
	return out
}

func (ix *Index) prune(n int32, links []int32, m int) []int32 {
	q := ix.vecOf(n, ix.scratch(0))
	cands := make([]cand, len(links))
	for i, l := range links {
		cands[i] = cand{l, ix.dist(q, l)}
	}
	sortCands(cands)
	return ix.selectNeighbors(cands, m)
}

func sortCands(c []cand) {
	slices.SortFunc(c, func(a, b cand) int {
		if x := cmp.Compare(a.dist, b.dist); x != 0 {
			return x
		}
		return cmp.Compare(a.id, b.id)
	})
}

func (ix *Index) neighbors(i int32, level int) []int32 { return ix.links[i][level] }

func (ix *Index) greedy(q []float32, ep int32, level int) int32 { return greedy(ix, q, ep, level) }

func (ix *Index) searchLayer(q []float32, ep int32, ef, level int, vs *visitSet) []cand {
	return searchLayer(ix, q, ep, ef, level, len(ix.keys), vs)
}
