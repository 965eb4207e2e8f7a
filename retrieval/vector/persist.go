package vector

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// The first export format, little-endian (read to upgrade it to format
// 2, format.go): a magic line, then
//
//	dims, M, EfConstruction, top level, entry, nodes, ndead, len(model) (int32 each), model
//	keys []int64, dead []uint8, vecs []float32, levels []uint8,
//	then per node and level: count uint16, ids []int32
const magic = "gno-hnsw-v1\n"

// Save writes the index to path atomically (temporary file, then rename),
// so a crash never leaves a half-written export.
func (ix *Index) Save(path string) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := writeAtomic(path, ix.writeV2); err != nil {
		return fmt.Errorf("save vector index %s: %w", path, err)
	}
	return nil
}

// writeAtomic writes path through a temporary file beside it, renamed
// over it once whole.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads a saved index, of either format, into an index to change
// (decoding every vector: Open is for searching). It returns ErrStale
// (wrapped) when the export was made for another model or dimension.
func Load(path string, dims int, modelID string, p Params) (*Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, err)
	}
	if len(b) >= len(magic) && string(b[:len(magic)]) == magic {
		ix, err := read(b, dims, modelID, p)
		if err != nil {
			return nil, fmt.Errorf("load vector index %s: %w", path, err)
		}
		return ix, nil
	}
	g, err := openBytes(b, nil, dims, modelID, p, path)
	if err != nil {
		return nil, err
	}
	return g.Thaw()
}

// maxM bounds an export's links per node: a level holds up to 2M links and
// a link count is written in 16 bits.
const maxM = 1 << 14

// maxEf bounds an export's construction list: a damaged value would make
// every later insert walk the whole graph.
const maxEf = 1 << 16

// read decodes an export. Every count is checked against the bytes left
// before anything is allocated for it, so a damaged header is an error,
// not a huge allocation.
func read(b []byte, dims int, modelID string, p Params) (*Index, error) {
	le := binary.LittleEndian
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a gno vector index")
	}
	b = b[len(magic):]
	if len(b) < 32 {
		return nil, fmt.Errorf("truncated header")
	}
	var head [8]int32
	for i := range head {
		head[i] = int32(le.Uint32(b[4*i:]))
	}
	b = b[32:]
	gotDims, n, ndead, mlen := int(head[0]), int(head[5]), int(head[6]), int(head[7])
	if gotDims <= 0 || n < 0 || ndead < 0 || ndead > n || mlen < 0 || mlen > 4096 || head[1] < 2 || head[1] > maxM || head[2] < 1 || head[2] > maxEf {
		return nil, fmt.Errorf("corrupt header")
	}
	if len(b) < mlen {
		return nil, fmt.Errorf("truncated header")
	}
	model := string(b[:mlen])
	b = b[mlen:]
	if gotDims != dims || model != modelID {
		return nil, fmt.Errorf("made for %s (%d dims), want %s (%d dims): %w", model, gotDims, modelID, dims, ErrStale)
	}
	// keys, dead flags, vectors and levels: 8 + 1 + 4·dims + 1 bytes a node.
	if int64(len(b)) < int64(n)*(10+4*int64(dims)) {
		return nil, fmt.Errorf("truncated data")
	}
	p.M, p.EfConstruction = int(head[1]), int(head[2]) // the graph was built with these
	ix := New(dims, modelID, p)
	ix.top, ix.entry, ix.ndead = int(head[3]), head[4], ndead
	ix.byKey = make(map[int64]int32, n-ndead)
	ix.keys = make([]int64, n)
	for i := range ix.keys {
		ix.keys[i] = int64(le.Uint64(b[8*i:]))
	}
	b = b[8*n:]
	dead := b[:n]
	b = b[n:]
	ix.vecs = make([]float32, n*dims)
	for i := range ix.vecs {
		ix.vecs[i] = math.Float32frombits(le.Uint32(b[4*i:]))
	}
	b = b[4*n*dims:]
	levels := b[:n]
	b = b[n:]
	ix.dead = make([]bool, n)
	ix.links = make([][][]int32, n)
	for i := range n {
		if dead[i] > 1 {
			return nil, fmt.Errorf("corrupt node %d", i)
		}
		ix.dead[i] = dead[i] == 1
		if !ix.dead[i] {
			// A second live node under one key could never be deleted:
			// byKey reaches only one of them.
			if _, dup := ix.byKey[ix.keys[i]]; dup {
				return nil, fmt.Errorf("corrupt export: key %d on two live nodes", ix.keys[i])
			}
			ix.byKey[ix.keys[i]] = int32(i)
		}
		if levels[i] == 0 {
			return nil, fmt.Errorf("corrupt node %d", i)
		}
		ix.links[i] = make([][]int32, levels[i])
		for l := range ix.links[i] {
			if len(b) < 2 {
				return nil, fmt.Errorf("truncated links")
			}
			c := int(le.Uint16(b))
			b = b[2:]
			if len(b) < 4*c {
				return nil, fmt.Errorf("truncated links")
			}
			ids := make([]int32, c)
			for j := range ids {
				id := int32(le.Uint32(b[4*j:]))
				if id < 0 || int(id) >= n {
					return nil, fmt.Errorf("corrupt link %d at node %d", id, i)
				}
				ids[j] = id
			}
			b = b[4*c:]
			ix.links[i][l] = ids
		}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("corrupt export: %d bytes after the last node", len(b))
	}
	if dn := n - len(ix.byKey); dn != ndead { // every live node is in byKey, once
		return nil, fmt.Errorf("corrupt export: %d deleted nodes, header says %d", dn, ndead)
	}
	// A link on level l leads to a node that has level l: searches and
	// inserts follow it there.
	for i, ls := range ix.links {
		for l, ids := range ls {
			for _, id := range ids {
				if len(ix.links[id]) <= l {
					return nil, fmt.Errorf("corrupt link %d at node %d, level %d", id, i, l)
				}
			}
		}
	}
	if n > 0 && (ix.entry < 0 || int(ix.entry) >= n || len(ix.links[ix.entry]) != ix.top+1) {
		return nil, fmt.Errorf("corrupt entry point")
	}
	if n == 0 {
		ix.entry = -1
	}
	return ix, nil
}
