package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

// The tombstone list: the keys of a saved graph deleted (or replaced)
// since it was saved, kept beside it (vectors-MODEL.hnsw.gone) so a
// process that opens the graph learns them without reading every live
// chunk id from the store (what finding a deletion otherwise takes: a
// deleted vector leaves no row behind). Little-endian:
//
//	0   magic "gno-gone-v1\n", 4 zero bytes
//	16  the graph's header CRC (uint32), 4 zero bytes
//	24  the graph file's size (uint64)
//	32  stamp (int64: the caller's version of the graph, the engine's
//	    vectors_version at its save)
//	40  count (uint64)
//	48  keys, count × int64, ascending
//	end CRC-32C of everything before (uint32)
//
// A list written for another graph (another save, another stamp) is
// ErrStale: the graph it named was replaced, and it is ignored. A
// damaged one is ErrDamaged.
const (
	magicGone      = "gno-gone-v1\n\x00\x00\x00\x00"
	goneHeaderSize = 48
)

// stampOf identifies the saved file: its header CRC and size (a graph
// saved again differs in one or the other, or in the caller's stamp).
func (m *mapped) stampOf() (uint32, uint64) {
	return binary.LittleEndian.Uint32(m.all[60:]), uint64(len(m.all))
}

// SaveGone writes the keys of the saved file that were deleted or
// replaced since it was saved to path (atomically: temporary file, then
// rename), stamped with the caller's version of the file. With none, it
// removes path. A graph with nothing saved has nothing to write.
func (g *Graph) SaveGone(path string, stamp int64) error {
	g.mu.RLock()
	if g.file == nil {
		g.mu.RUnlock()
		return nil
	}
	keys := make([]int64, 0, len(g.gone))
	for k := range g.gone {
		keys = append(keys, k)
	}
	crc, size := g.file.stampOf()
	g.mu.RUnlock()
	if len(keys) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove tombstone list %s: %w", path, err)
		}
		return nil
	}
	slices.Sort(keys)
	le := binary.LittleEndian
	b := make([]byte, goneHeaderSize, goneHeaderSize+8*len(keys)+4)
	copy(b, magicGone)
	le.PutUint32(b[16:], crc)
	le.PutUint64(b[24:], size)
	le.PutUint64(b[32:], uint64(stamp))
	le.PutUint64(b[40:], uint64(len(keys)))
	for _, k := range keys {
		b = le.AppendUint64(b, uint64(k))
	}
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if err := writeAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("save tombstone list %s: %w", path, err)
	}
	return nil
}

// LoadGone reads the tombstone list at path and deletes its keys from
// the graph; it returns how many it deleted. Call it on a freshly
// opened graph, before adding the vectors stored since its save (a key
// deleted and then stored again is added back by that). A missing file
// is no error (0 keys); a list of another save or stamp is ErrStale and
// one that is not a list gno wrote ErrDamaged (both wrapped): the caller
// finds the deletions the long way.
func (g *Graph) LoadGone(path string, stamp int64) (int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read tombstone list %s: %w", path, err)
	}
	keys, crc, size, got, err := parseGone(b)
	if err != nil {
		return 0, fmt.Errorf("tombstone list %s: %w", path, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.file == nil {
		return 0, fmt.Errorf("tombstone list %s: no saved graph: %w", path, ErrStale)
	}
	if c, s := g.file.stampOf(); c != crc || s != size || got != stamp {
		return 0, fmt.Errorf("tombstone list %s: written for another save of the graph: %w", path, ErrStale)
	}
	for _, k := range keys {
		if g.file.find(k) < 0 {
			return 0, fmt.Errorf("tombstone list %s: key %d is not in the graph: %w", path, k, ErrDamaged)
		}
	}
	n := 0
	for _, k := range keys {
		if g.hide(k) {
			n++
		}
	}
	return n, nil
}

// parseGone checks a tombstone list and returns its keys and stamps.
// Nothing is allocated beyond what the list's own size holds.
func parseGone(b []byte) (keys []int64, crc uint32, size uint64, stamp int64, err error) {
	le := binary.LittleEndian
	if len(b) < goneHeaderSize+4 || string(b[:len(magicGone)]) != magicGone {
		return nil, 0, 0, 0, fmt.Errorf("not a tombstone list: %w", ErrDamaged)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != le.Uint32(b[len(b)-4:]) {
		return nil, 0, 0, 0, fmt.Errorf("checksum: %w", ErrDamaged)
	}
	n := le.Uint64(b[40:])
	if le.Uint32(b[20:]) != 0 || n != uint64(len(body)-goneHeaderSize)/8 || (len(body)-goneHeaderSize)%8 != 0 {
		return nil, 0, 0, 0, fmt.Errorf("size: %w", ErrDamaged)
	}
	keys = make([]int64, n)
	for i := range keys {
		keys[i] = int64(le.Uint64(body[goneHeaderSize+8*i:]))
		if i > 0 && keys[i] <= keys[i-1] {
			return nil, 0, 0, 0, fmt.Errorf("keys out of order: %w", ErrDamaged)
		}
	}
	return keys, le.Uint32(b[16:]), le.Uint64(b[24:]), int64(le.Uint64(b[32:])), nil
}
