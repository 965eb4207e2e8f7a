package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Export format, little-endian: a magic line, then
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
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save vector index %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := ix.write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("save vector index %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save vector index %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save vector index %s: %w", path, err)
	}
	return nil
}

func (ix *Index) write(f io.Writer) error {
	w := bufio.NewWriterSize(f, 1<<20)
	le := binary.LittleEndian
	if _, err := w.WriteString(magic); err != nil {
		return err
	}
	n := len(ix.keys)
	head := []int32{int32(ix.dims), int32(ix.params.M), int32(ix.params.EfConstruction),
		int32(ix.top), ix.entry, int32(n), int32(ix.ndead), int32(len(ix.model))}
	dead := make([]uint8, n)
	levels := make([]uint8, n)
	for i := range n {
		if ix.dead[i] {
			dead[i] = 1
		}
		levels[i] = uint8(len(ix.links[i]))
	}
	for _, part := range []any{head, []byte(ix.model), ix.keys, dead, ix.vecs, levels} {
		if err := binary.Write(w, le, part); err != nil {
			return err
		}
	}
	for i := range n {
		for _, l := range ix.links[i] {
			if err := binary.Write(w, le, uint16(len(l))); err != nil {
				return err
			}
			if err := binary.Write(w, le, l); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// Load reads an index saved by Save. It returns ErrStale (wrapped) when the
// export was made for another model or dimension, so the caller rebuilds.
func Load(path string, dims int, modelID string, p Params) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, err)
	}
	defer f.Close()
	ix, err := read(bufio.NewReaderSize(f, 1<<20), dims, modelID, p)
	if err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, err)
	}
	return ix, nil
}

func read(r *bufio.Reader, dims int, modelID string, p Params) (*Index, error) {
	le := binary.LittleEndian
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(r, m); err != nil || string(m) != magic {
		return nil, fmt.Errorf("not a gno vector index")
	}
	head := make([]int32, 8)
	if err := binary.Read(r, le, head); err != nil {
		return nil, fmt.Errorf("truncated header: %w", err)
	}
	gotDims, n, ndead, mlen := int(head[0]), int(head[5]), int(head[6]), int(head[7])
	if gotDims <= 0 || n < 0 || ndead < 0 || ndead > n || mlen < 0 || mlen > 4096 || head[1] <= 0 {
		return nil, fmt.Errorf("corrupt header")
	}
	model := make([]byte, mlen)
	if _, err := io.ReadFull(r, model); err != nil {
		return nil, fmt.Errorf("truncated header: %w", err)
	}
	if gotDims != dims || string(model) != modelID {
		return nil, fmt.Errorf("made for %s (%d dims), want %s (%d dims): %w", model, gotDims, modelID, dims, ErrStale)
	}
	p.M, p.EfConstruction = int(head[1]), int(head[2]) // the graph was built with these
	ix := New(dims, modelID, p)
	ix.top, ix.entry, ix.ndead = int(head[3]), head[4], ndead
	ix.keys = make([]int64, n)
	dead := make([]uint8, n)
	ix.vecs = make([]float32, n*dims)
	levels := make([]uint8, n)
	for _, part := range []any{ix.keys, dead, ix.vecs, levels} {
		if err := binary.Read(r, le, part); err != nil {
			return nil, fmt.Errorf("truncated data: %w", err)
		}
	}
	ix.dead = make([]bool, n)
	ix.links = make([][][]int32, n)
	for i := range n {
		ix.dead[i] = dead[i] == 1
		if !ix.dead[i] {
			ix.byKey[ix.keys[i]] = int32(i)
		}
		if levels[i] == 0 {
			return nil, fmt.Errorf("corrupt node %d", i)
		}
		ix.links[i] = make([][]int32, levels[i])
		for l := range ix.links[i] {
			var c uint16
			if err := binary.Read(r, le, &c); err != nil {
				return nil, fmt.Errorf("truncated links: %w", err)
			}
			ids := make([]int32, c)
			if err := binary.Read(r, le, ids); err != nil {
				return nil, fmt.Errorf("truncated links: %w", err)
			}
			for _, id := range ids {
				if id < 0 || int(id) >= n {
					return nil, fmt.Errorf("corrupt link %d at node %d", id, i)
				}
			}
			ix.links[i][l] = ids
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
