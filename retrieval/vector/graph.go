package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Graph is a saved index opened for search: the file is mapped, not
// decoded, so opening it reads its header and upper table and a search
// reads the pages of the nodes it visits. Vectors added or deleted since
// the file was saved live beside it in memory (scanned exactly) until
// Thaw folds them into a new graph to save. Safe for concurrent use.
type Graph struct {
	mu     sync.RWMutex
	model  string
	dims   int
	params Params
	file   *mapped // nil: nothing saved
	// delta holds vectors added since the file was saved, flat (scanned,
	// not linked: a one-shot process should not pay for inserts).
	delta *Index
	// gone are keys of the file deleted or replaced since; goneLive
	// counts those live in the file.
	gone     map[int64]bool
	goneLive int
	visited  sync.Pool // *visitSet
}

// mapped is an opened format-2 file.
type mapped struct {
	mapped                                    bool // all is a file mapping, not read into memory
	l                                         *layout
	upper                                     []upperNode
	keys, scales, codes, level0, upLinks, all []byte
}

// EmptyGraph is a graph with nothing saved: what is added is held in
// memory.
func EmptyGraph(dims int, modelID string, p Params) *Graph {
	p.defaults()
	d := New(dims, modelID, p)
	d.flat = true
	return &Graph{model: modelID, dims: dims, params: p, delta: d, gone: map[int64]bool{}}
}

// GraphOf wraps an index built in memory (one that could not be saved).
func GraphOf(ix *Index) *Graph {
	g := EmptyGraph(ix.dims, ix.model, ix.params)
	g.delta = ix
	return g
}

// Open maps the graph saved at path. A file of another model or dimension
// is ErrStale; a damaged one ErrDamaged (both wrapped). A file in the
// first format (whole float32 vectors, decoded on load) is converted in
// place, once, and then opened.
func Open(path string, dims int, modelID string, p Params) (*Graph, error) {
	b, unmap, mapped, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open vector graph %s: %w", path, err)
	}
	if bytes.HasPrefix(b, []byte(magic)) {
		ix, err := read(b, dims, modelID, p)
		unmap()
		if err != nil {
			if !errors.Is(err, ErrStale) {
				err = fmt.Errorf("%w: %w", err, ErrDamaged)
			}
			return nil, fmt.Errorf("open vector graph %s: %w", path, err)
		}
		if err := ix.Save(path); err != nil {
			// A read-only index directory: convert in memory.
			var buf bytes.Buffer
			if err := ix.writeV2(&buf); err != nil {
				return nil, fmt.Errorf("convert vector graph %s: %w", path, err)
			}
			return openBytes(buf.Bytes(), nil, dims, modelID, p, path)
		}
		return Open(path, dims, modelID, p)
	}
	return mappedIf(mapped)(openBytes(b, unmap, dims, modelID, p, path))
}

func openBytes(b []byte, unmap func() error, dims int, modelID string, p Params, path string) (*Graph, error) {
	l, upper, err := parseV2(b)
	if err == nil && (l.dims != dims || l.model != modelID) {
		err = fmt.Errorf("made for %s (%d dims), want %s (%d dims): %w", l.model, l.dims, modelID, dims, ErrStale)
	}
	if err != nil {
		if unmap != nil {
			unmap()
		}
		return nil, fmt.Errorf("open vector graph %s: %w", path, err)
	}
	p.M, p.EfConstruction = l.m, l.efc // the graph was built with these
	g := EmptyGraph(dims, modelID, p)
	g.file = &mapped{l: l, upper: upper, all: b,
		keys: b[l.keys:l.scales], scales: b[l.scales:l.codes], codes: b[l.codes:l.level0],
		level0: b[l.level0:l.upper], upLinks: b[l.links:l.end]}
	if unmap != nil {
		// The mapping goes when the graph is unreachable: a search in
		// flight holds the graph, so it never reads an unmapped page.
		runtime.AddCleanup(g, func(f func() error) { f() }, unmap)
	}
	return g, nil
}

// Dims is the vector length the graph holds.
func (g *Graph) Dims() int { return g.dims }

// ModelID names the model whose vectors the graph holds.
func (g *Graph) ModelID() string { return g.model }

// Len counts the live vectors.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.fileLive() - g.goneLive + g.delta.Len()
}

func (g *Graph) fileLive() int {
	if g.file == nil {
		return 0
	}
	return g.file.l.live
}

// Pending counts the changes held beside the saved file: vectors added
// and saved vectors deleted. The caller saves a new graph (Thaw) when
// they grow.
func (g *Graph) Pending() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.delta.Len() + g.goneLive
}

// find is the file's live node holding key, or -1.
func (m *mapped) find(key int64) int32 {
	if m == nil {
		return -1
	}
	lo, hi := 0, m.l.live
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.key(int32(mid)) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < m.l.live && m.key(int32(lo)) == key {
		return int32(lo)
	}
	return -1
}

func (m *mapped) key(i int32) int64 { return int64(binary.LittleEndian.Uint64(m.keys[8*int64(i):])) }

// hide marks key of the file gone; it reports whether it was live there.
func (g *Graph) hide(key int64) bool {
	if g.gone[key] || g.file.find(key) < 0 {
		return false
	}
	g.gone[key] = true
	g.goneLive++
	return true
}

// Add inserts the vector stored under key, replacing any earlier one.
func (g *Graph) Add(key int64, vec []float32) error {
	if len(vec) != g.dims {
		return fmt.Errorf("vector index: vector has %d dimensions, index holds %d", len(vec), g.dims)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hide(key)
	return g.delta.Add(key, vec)
}

// Delete removes key; it reports whether key was present.
func (g *Graph) Delete(key int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	inDelta := g.delta.Delete(key)
	return g.hide(key) || inDelta
}

// Has reports whether key is in the graph.
func (g *Graph) Has(key int64) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.delta.Has(key) || (!g.gone[key] && g.file.find(key) >= 0)
}

// Keys returns the live keys, in no particular order. It reads every key
// of the file: for reconciling with the store, not for a search.
func (g *Graph) Keys() []int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := g.delta.Keys()
	if g.file != nil {
		for i := range g.file.l.live {
			if k := g.file.key(int32(i)); !g.gone[k] {
				out = append(out, k)
			}
		}
	}
	return out
}

// Thaw returns the graph as an index to change and save (a q8 one,
// NewQuantized): the file's nodes with their links and their codes, the
// changes held beside it applied. It holds every code (a quarter of the
// float32 vectors) and every link: the cost of saving a new graph, paid
// by the process that saves it (gno embed).
func (g *Graph) Thaw() (*Index, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	m := g.file
	ix := NewQuantized(g.dims, g.model, g.params)
	buf := make([]float32, g.dims) // a delta of GraphOf(NewQuantized) holds codes
	if m == nil {
		for i, k := range g.delta.keys {
			if !g.delta.dead[i] {
				ix.insert(k, g.delta.vecOf(int32(i), buf))
			}
		}
		return ix, nil
	}
	l := m.l
	grow := g.delta.Len()
	ix.keys = make([]int64, l.n, l.n+grow)
	ix.dead = make([]bool, l.n, l.n+grow)
	ix.codes = slices.Grow(slices.Clone(m.codes[:int64(l.n)*int64(l.dims)]), grow*l.dims)
	ix.scales = make([]float32, l.n, l.n+grow)
	ix.links = make([][][]int32, l.n, l.n+grow)
	ix.byKey = make(map[int64]int32, l.live+grow)
	w := &fileWalk{g: g}
	for i := range int32(l.n) {
		ix.keys[i] = m.key(i)
		ix.dead[i] = int(i) >= l.live
		if !ix.dead[i] {
			if _, dup := ix.byKey[ix.keys[i]]; dup {
				return nil, fmt.Errorf("key %d on two live nodes: %w", ix.keys[i], ErrDamaged)
			}
			ix.byKey[ix.keys[i]] = i
		}
		ix.scales[i] = m.scale(i)
		ix.links[i] = make([][]int32, levelsOf(m.upper, i))
		for lv := range ix.links[i] {
			ix.links[i][lv] = slices.Clone(w.neighbors(i, lv))
		}
	}
	if w.bad != nil {
		return nil, w.bad
	}
	ix.entry, ix.top, ix.ndead = l.entry, l.top, l.n-l.live
	if l.n == 0 {
		ix.entry = -1
	}
	for k := range g.gone {
		if i, ok := ix.byKey[k]; ok {
			ix.kill(i)
		}
	}
	for i, k := range g.delta.keys {
		if !g.delta.dead[i] {
			if old, ok := ix.byKey[k]; ok {
				ix.kill(old)
			}
			ix.insert(k, g.delta.vecOf(int32(i), buf))
		}
	}
	ix.maybeCompact()
	return ix, nil
}

func (m *mapped) code(i int32) []byte {
	d := int64(m.l.dims)
	return m.codes[int64(i)*d : int64(i+1)*d]
}

func (m *mapped) scale(i int32) float32 {
	s := math.Float32frombits(binary.LittleEndian.Uint32(m.scales[4*int64(i):]))
	if s != s || s < 0 || s > 1 { // NaN or not a normalised vector's
		return 0
	}
	return s
}

// fileWalk is one walk over the file: the view searchLayer needs, with a
// scratch list for decoded links and the first damage it met.
type fileWalk struct {
	g   *Graph
	buf []int32
	bad error
}

func (w *fileWalk) dist(q []float32, i int32) float32 {
	m := w.g.file
	return 1 - m.scale(i)*dot8(q, m.code(i))
}

// neighbors decodes node i's links on level, checking each: a count over
// the record's room, a node out of range, or a link on an upper level to
// a node without that level is damage.
func (w *fileWalk) neighbors(i int32, level int) []int32 {
	m := w.g.file
	le := binary.LittleEndian
	var rec []byte
	var room int
	if level == 0 {
		slot := 4 * m.l.level0Slot()
		rec, room = m.level0[int64(i)*slot:int64(i+1)*slot], 2*m.l.m
	} else {
		at, ok := slices.BinarySearchFunc(m.upper, i, func(u upperNode, i int32) int { return int(u.node) - int(i) })
		if !ok || level >= int(m.upper[at].levels) {
			w.damage("node %d has no level %d", i, level)
			return nil
		}
		slot := 4 * m.l.upperSlot()
		start := 4*int64(m.upper[at].off) + int64(level-1)*slot
		rec, room = m.upLinks[start:start+slot], m.l.m
	}
	c := int(le.Uint32(rec))
	if c > room {
		w.damage("node %d has %d links on level %d", i, c, level)
		return nil
	}
	w.buf = w.buf[:0]
	for k := range c {
		id := int32(le.Uint32(rec[4+4*k:]))
		if id < 0 || int(id) >= m.l.n || (level > 0 && levelsOf(m.upper, id) <= level) {
			w.damage("node %d links to %d on level %d", i, id, level)
			return nil
		}
		w.buf = append(w.buf, id)
	}
	return w.buf
}

func (w *fileWalk) damage(format string, args ...any) {
	if w.bad == nil {
		w.bad = fmt.Errorf(format+": %w", append(args, ErrDamaged)...)
	}
}

// Search returns up to q.K hits, best first: the saved graph's walk over
// int8 codes, its best candidates re-scored with q.Exact, and the vectors
// held beside it scanned exactly.
func (g *Graph) Search(q Query) ([]Hit, error) {
	if len(q.Vector) != g.dims {
		return nil, fmt.Errorf("vector index: vector has %d dimensions, index holds %d", len(q.Vector), g.dims)
	}
	if q.K <= 0 {
		return nil, nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	hits, err := g.delta.Search(q)
	if err != nil {
		return nil, err
	}
	if g.file == nil || g.file.l.live-g.goneLive == 0 {
		return hits, nil
	}
	cands, err := g.fileCandidates(q)
	if err != nil {
		return nil, err
	}
	saved, err := rescore(q, cands, g.dims)
	if err != nil {
		return nil, err
	}
	hits = append(hits, saved...)
	slices.SortFunc(hits, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return hits[:min(len(hits), q.K)], nil
}

// rescoreDepth is how many candidates of the walk are re-scored exactly
// for K hits: int8 codes order the walk well but not the last places
// (bench/RESULTS.md, "Vectors at a million").
func rescoreDepth(p Params, k int) int {
	if p.Rescore > 0 {
		return max(k, p.Rescore)
	}
	return max(2*k, 40)
}

// fileCandidates walks the file for the best live, admitted nodes by
// their codes: up to rescoreDepth of them, nearest first.
func (g *Graph) fileCandidates(q Query) ([]Hit, error) {
	m := g.file
	want := rescoreDepth(g.params, q.K)
	admit := func(i int32) bool {
		if int(i) >= m.l.live {
			return false
		}
		k := m.key(i)
		return !g.gone[k] && (q.Filter == nil || q.Filter(k))
	}
	if q.Filter != nil && q.Admitted > 0 && q.Admitted < g.params.ExactBelow {
		return g.fileExact(q, want, admit), nil
	}
	w := &fileWalk{g: g}
	vs := g.getVisited()
	defer g.visited.Put(vs)
	ep := m.l.entry
	for l := m.l.top; l > 0; l-- {
		ep = greedy(w, q.Vector, ep, l)
	}
	ef := max(want, g.params.EfSearch)
	if q.Filter != nil || g.goneLive > 0 {
		ef *= 2 // rejected nodes take places in the candidate list
	}
	for {
		if ef >= m.l.n/2 {
			return g.fileExact(q, want, admit), w.bad
		}
		cands := searchLayer(w, q.Vector, ep, ef, 0, m.l.n, vs)
		if w.bad != nil {
			return nil, w.bad
		}
		out := make([]Hit, 0, want)
		for _, c := range cands {
			if admit(c.id) {
				out = append(out, Hit{Key: m.key(c.id), Score: 1 - c.dist})
				if len(out) == want {
					return out, nil
				}
			}
		}
		if len(cands) < ef { // the whole reachable graph was seen
			return out, nil
		}
		ef *= 4
	}
}

// fileExact scans every live node's code.
func (g *Graph) fileExact(q Query, want int, admit func(int32) bool) []Hit {
	m := g.file
	var top []Hit
	for i := range int32(m.l.live) {
		if !admit(i) {
			continue
		}
		h := Hit{Key: m.key(i), Score: m.scale(i) * dot8(q.Vector, m.code(i))}
		top = pushTop(top, h, want)
	}
	return top
}

// rescore replaces the code scores of cands with exact ones from q.Exact
// (a candidate it has no vector for is gone from the store and dropped),
// and keeps the best q.K. Without q.Exact the code scores stand.
func rescore(q Query, cands []Hit, dims int) ([]Hit, error) {
	if q.Exact == nil || len(cands) == 0 {
		return cands[:min(len(cands), q.K)], nil
	}
	keys := make([]int64, len(cands))
	for i, c := range cands {
		keys[i] = c.Key
	}
	vecs, err := q.Exact(keys)
	if err != nil {
		return nil, err
	}
	var top []Hit
	for i, c := range cands {
		if i >= len(vecs) || len(vecs[i]) != dims {
			continue
		}
		top = pushTop(top, Hit{Key: c.Key, Score: vek32.Dot(q.Vector, vecs[i])}, q.K)
	}
	return top, nil
}

func (g *Graph) getVisited() *visitSet {
	if v, ok := g.visited.Get().(*visitSet); ok {
		return v
	}
	return &visitSet{}
}
