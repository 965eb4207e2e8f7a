package vector

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
)

// The saved graph, format 2, little-endian. It is laid out to be read in
// place from a memory mapping: fixed-size records at offsets computed
// from the header, so a search touches only the pages of the nodes it
// visits.
//
//	0   magic "gno-hnsw-v2\n", 4 zero bytes
//	16  dims, M, EfConstruction, top level (uint32 each), entry (int32),
//	    upper (uint32: nodes with links above level 0)
//	40  nodes, live nodes (uint64 each)
//	56  len(model) (uint32), CRC-32C of bytes 0–59 and the model (uint32)
//	64  model, zero-padded to 8 bytes
//	then, each padded to 8 bytes:
//	keys    nodes × int64: the live nodes first, by ascending key, then
//	        the deleted ones (tombstones that still route): a key is
//	        found by binary search and a node is live when it is < live
//	scales  nodes × float32
//	codes   nodes × dims int8 (quant.go)
//	level0  nodes × (1 + 2M) uint32: count, then the links
//	upper   upper × (node, levels, offset) uint32, by ascending node;
//	        offset counts uint32 into the next section
//	links   per upper node and level above 0: count, then M links
//
// Every count, offset and link is checked before it is used (at open for
// the header and the upper table, during a walk for the links, which are
// most of the file), so a damaged or hostile file is an error, never a
// crash or an allocation the file's size does not justify.
const (
	magicV2    = "gno-hnsw-v2\n\x00\x00\x00\x00"
	headerSize = 64
)

// ErrDamaged means a saved graph is not one gno wrote: truncated,
// damaged, or of an unknown version. Rebuild it from the stored vectors.
var ErrDamaged = errors.New("vector graph file is damaged")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func pad8(n int64) int64 { return (n + 7) &^ 7 }

// layout is where a format-2 file's sections lie.
type layout struct {
	dims, m, efc, top                         int
	entry                                     int32
	nUpper                                    int
	n, live                                   int
	model                                     string
	keys, scales, codes, level0, upper, links int64 // offsets
	end                                       int64 // the exact file size
}

// level0Slot is the uint32 count of one node's level-0 record.
func (l *layout) level0Slot() int64 { return 1 + 2*int64(l.m) }

// upperSlot is the uint32 count of one upper level's record.
func (l *layout) upperSlot() int64 { return 1 + int64(l.m) }

func (l *layout) place(modelLen int) {
	l.keys = pad8(headerSize + int64(modelLen))
	l.scales = l.keys + pad8(8*int64(l.n))
	l.codes = l.scales + pad8(4*int64(l.n))
	l.level0 = l.codes + pad8(int64(l.n)*int64(l.dims))
	l.upper = l.level0 + 4*l.level0Slot()*int64(l.n)
	l.links = l.upper + pad8(12*int64(l.nUpper))
}

// writeV2 writes the index in format 2. It holds ix.mu (read).
func (ix *Index) writeV2(f io.Writer) error {
	w := bufio.NewWriterSize(f, 1<<20)
	le := binary.LittleEndian
	n := len(ix.keys)
	// New order: live nodes by key, then the dead.
	order := make([]int32, 0, n)
	for i := range n {
		if !ix.dead[i] {
			order = append(order, int32(i))
		}
	}
	live := len(order)
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ix.keys[a], ix.keys[b]) })
	for i := range n {
		if ix.dead[i] {
			order = append(order, int32(i))
		}
	}
	newID := make([]int32, n)
	for to, from := range order {
		newID[from] = int32(to)
	}
	var l layout
	l.dims, l.m, l.efc, l.top, l.n, l.live = ix.dims, ix.params.M, ix.params.EfConstruction, ix.top, n, live
	l.entry = -1
	if ix.entry >= 0 {
		l.entry = newID[ix.entry]
	}
	for _, from := range order {
		if len(ix.links[from]) > 1 {
			l.nUpper++
		}
	}
	l.place(len(ix.model))
	head := make([]byte, l.keys)
	copy(head, magicV2)
	for i, v := range []uint32{uint32(l.dims), uint32(l.m), uint32(l.efc), uint32(l.top), uint32(l.entry), uint32(l.nUpper)} {
		le.PutUint32(head[16+4*i:], v)
	}
	le.PutUint64(head[40:], uint64(n))
	le.PutUint64(head[48:], uint64(live))
	le.PutUint32(head[56:], uint32(len(ix.model)))
	copy(head[headerSize:], ix.model)
	le.PutUint32(head[60:], headerCRC(head[:60], []byte(ix.model)))
	if _, err := w.Write(head); err != nil {
		return err
	}
	var buf [8]byte
	put32 := func(v uint32) error {
		le.PutUint32(buf[:4], v)
		_, err := w.Write(buf[:4])
		return err
	}
	padTo := func(size int64) error {
		_, err := w.Write(make([]byte, pad8(size)-size))
		return err
	}
	for _, from := range order {
		le.PutUint64(buf[:], uint64(ix.keys[from]))
		if _, err := w.Write(buf[:]); err != nil {
			return err
		}
	}
	// A q8 index's codes are written as they are; a float32 index's are
	// made here, one node at a time.
	d := int64(ix.dims)
	code := make([]byte, d)
	for _, from := range order {
		s := float32(0)
		if ix.q8 {
			s = ix.scales[from]
		} else {
			s = quantize(ix.vec(from), code)
		}
		if err := put32(math.Float32bits(s)); err != nil {
			return err
		}
	}
	if err := padTo(4 * int64(n)); err != nil {
		return err
	}
	for _, from := range order {
		c := code
		if ix.q8 {
			c = ix.code(from)
		} else {
			quantize(ix.vec(from), code)
		}
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	if err := padTo(int64(n) * d); err != nil {
		return err
	}
	writeLinks := func(ids []int32, slots int) error {
		if len(ids) > slots {
			return fmt.Errorf("a node has %d links, the format holds %d", len(ids), slots)
		}
		if err := put32(uint32(len(ids))); err != nil {
			return err
		}
		for k := range slots {
			var v uint32
			if k < len(ids) {
				v = uint32(newID[ids[k]])
			}
			if err := put32(v); err != nil {
				return err
			}
		}
		return nil
	}
	for _, from := range order {
		if err := writeLinks(ix.links[from][0], 2*l.m); err != nil {
			return err
		}
	}
	var off uint32
	for to, from := range order {
		if lv := len(ix.links[from]); lv > 1 {
			for _, v := range []uint32{uint32(to), uint32(lv), off} {
				if err := put32(v); err != nil {
					return err
				}
			}
			off += uint32(int64(lv-1) * l.upperSlot())
		}
	}
	if err := padTo(12 * int64(l.nUpper)); err != nil {
		return err
	}
	for _, from := range order {
		for _, ids := range ix.links[from][1:] {
			if err := writeLinks(ids, l.m); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

func headerCRC(head, model []byte) uint32 {
	return crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, model)
}

// maxM2 and maxEf2 bound a format-2 file's graph parameters, far above
// any gno uses (16 and 128) and low enough that a hostile value cannot
// make an insert walk and compare for minutes.
const (
	maxM2  = 256
	maxEf2 = 4096
)

// maxLevels bounds a node's levels: the level of a node is drawn with
// probability M^-level, so 64 is never reached by a graph gno built.
const maxLevels = 64

// parseV2 checks a format-2 file's header and upper table against its
// size and returns its layout and upper table. It reads the header, the
// model and the upper table (about one node in M): nothing else.
func parseV2(b []byte) (*layout, []upperNode, error) {
	le := binary.LittleEndian
	if len(b) < headerSize || string(b[:len(magicV2)]) != magicV2 {
		return nil, nil, fmt.Errorf("not a format-2 graph: %w", ErrDamaged)
	}
	var l layout
	l.dims, l.m, l.efc, l.top = int(le.Uint32(b[16:])), int(le.Uint32(b[20:])), int(le.Uint32(b[24:])), int(le.Uint32(b[28:]))
	l.entry, l.nUpper = int32(le.Uint32(b[32:])), int(le.Uint32(b[36:]))
	n, live, mlen := le.Uint64(b[40:]), le.Uint64(b[48:]), int(le.Uint32(b[56:]))
	if mlen > 4096 || int64(len(b)) < headerSize+int64(mlen) {
		return nil, nil, fmt.Errorf("header: %w", ErrDamaged)
	}
	model := b[headerSize : headerSize+mlen]
	if headerCRC(b[:60], model) != le.Uint32(b[60:]) {
		return nil, nil, fmt.Errorf("header checksum: %w", ErrDamaged)
	}
	// Every node takes more than dims bytes, so n is bounded by the
	// size before any product is formed.
	if l.dims < 1 || l.dims > 1<<16 || l.m < 2 || l.m > maxM2 || l.efc < 1 || l.efc > maxEf2 ||
		l.top >= maxLevels || n > uint64(len(b)) || live > n || uint64(l.nUpper) > n {
		return nil, nil, fmt.Errorf("header values: %w", ErrDamaged)
	}
	l.n, l.live, l.model = int(n), int(live), string(model)
	l.place(mlen)
	if l.links > int64(len(b)) {
		return nil, nil, fmt.Errorf("truncated (%d bytes, the nodes need %d): %w", len(b), l.links, ErrDamaged)
	}
	upper := make([]upperNode, l.nUpper)
	var off int64
	for i := range upper {
		r := b[l.upper+12*int64(i):]
		u := upperNode{node: int32(le.Uint32(r)), levels: int32(le.Uint32(r[4:])), off: le.Uint32(r[8:])}
		if u.node < 0 || int(u.node) >= l.n || (i > 0 && u.node <= upper[i-1].node) ||
			u.levels < 2 || int(u.levels) > l.top+1 || int64(u.off) != off {
			return nil, nil, fmt.Errorf("upper table entry %d: %w", i, ErrDamaged)
		}
		off += int64(u.levels-1) * l.upperSlot()
		upper[i] = u
	}
	l.end = l.links + 4*off
	if l.end != int64(len(b)) {
		return nil, nil, fmt.Errorf("size %d, the layout says %d: %w", len(b), l.end, ErrDamaged)
	}
	switch {
	case l.n == 0 && l.entry != -1, l.n > 0 && (l.entry < 0 || int(l.entry) >= l.n):
		return nil, nil, fmt.Errorf("entry point: %w", ErrDamaged)
	case l.n > 0 && levelsOf(upper, l.entry) != l.top+1:
		return nil, nil, fmt.Errorf("entry point level: %w", ErrDamaged)
	}
	return &l, upper, nil
}

// upperNode is a node with links above level 0.
type upperNode struct {
	node, levels int32
	off          uint32
}

// levelsOf is node i's level count.
func levelsOf(upper []upperNode, i int32) int {
	at, ok := slices.BinarySearchFunc(upper, i, func(u upperNode, i int32) int { return int(u.node) - int(i) })
	if !ok {
		return 1
	}
	return int(upper[at].levels)
}
