package vector

import (
	"bufio"
	"encoding/binary"
	"io"
)

// write is the first format's writer, kept to make old exports for the
// upgrade and fuzz tests.
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
