package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// Tile writes copies of the saved graph at src side by side as one file
// at dst: the copies are not linked to each other, keys of copy c are
// offset by c·(1+the largest key), and searches start in the first copy.
// It is for measuring what a file of a size whose build is out of reach
// costs to open and to hold (bench/cmd/gnovecbench), not a graph to ask:
// a search sees one copy.
func Tile(src, dst string, copies int) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	l, upper, err := parseV2(b)
	if err != nil {
		return fmt.Errorf("tile %s: %w", src, err)
	}
	if copies < 1 || l.n == 0 {
		return fmt.Errorf("tile %s: nothing to tile", src)
	}
	le := binary.LittleEndian
	m := &mapped{l: l, upper: upper, all: b,
		keys: b[l.keys:l.scales], scales: b[l.scales:l.codes], codes: b[l.codes:l.level0],
		level0: b[l.level0:l.upper], upLinks: b[l.links:l.end]}
	var span int64
	for i := range int32(l.n) {
		span = max(span, m.key(i)+1)
	}
	n, live, dead := l.n*copies, l.live*copies, l.n-l.live
	newID := func(c int, i int32) uint32 {
		if int(i) < l.live {
			return uint32(c*l.live + int(i))
		}
		return uint32(live + c*dead + int(i) - l.live)
	}
	// Nodes in their new order: (copy, old id).
	order := make([][2]int32, 0, n)
	for c := range copies {
		for i := range int32(l.live) {
			order = append(order, [2]int32{int32(c), i})
		}
	}
	for c := range copies {
		for i := int32(l.live); i < int32(l.n); i++ {
			order = append(order, [2]int32{int32(c), i})
		}
	}
	out := *l
	out.n, out.live, out.nUpper, out.entry = n, live, l.nUpper*copies, int32(newID(0, l.entry))
	out.place(len(l.model))
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	head := make([]byte, out.keys)
	copy(head, b[:headerSize+len(l.model)])
	le.PutUint32(head[32:], uint32(out.entry))
	le.PutUint32(head[36:], uint32(out.nUpper))
	le.PutUint64(head[40:], uint64(n))
	le.PutUint64(head[48:], uint64(live))
	le.PutUint32(head[60:], headerCRC(head[:60], []byte(l.model)))
	w.Write(head)
	var buf [8]byte
	for _, o := range order {
		le.PutUint64(buf[:], uint64(m.key(o[1])+int64(o[0])*span))
		w.Write(buf[:])
	}
	for _, o := range order {
		w.Write(m.scales[4*o[1] : 4*o[1]+4])
	}
	w.Write(make([]byte, pad8(4*int64(n))-4*int64(n)))
	for _, o := range order {
		w.Write(m.code(o[1]))
	}
	w.Write(make([]byte, pad8(int64(n)*int64(l.dims))-int64(n)*int64(l.dims)))
	remap := func(c int32, rec []byte) {
		cnt := le.Uint32(rec)
		le.PutUint32(buf[:4], cnt)
		w.Write(buf[:4])
		for k := 1; k < len(rec)/4; k++ {
			v := uint32(0)
			if uint32(k) <= cnt {
				v = newID(int(c), int32(le.Uint32(rec[4*k:])))
			}
			le.PutUint32(buf[:4], v)
			w.Write(buf[:4])
		}
	}
	slot0 := 4 * l.level0Slot()
	for _, o := range order {
		remap(o[0], m.level0[int64(o[1])*slot0:int64(o[1]+1)*slot0])
	}
	type up struct {
		id   uint32
		c    int32
		from upperNode
	}
	ups := make([]up, 0, out.nUpper)
	for c := range copies {
		for _, u := range upper {
			ups = append(ups, up{newID(c, u.node), int32(c), u})
		}
	}
	slices.SortFunc(ups, func(a, b up) int { return int(a.id) - int(b.id) })
	var off uint32
	for _, u := range ups {
		for _, v := range []uint32{u.id, uint32(u.from.levels), off} {
			le.PutUint32(buf[:4], v)
			w.Write(buf[:4])
		}
		off += uint32(int64(u.from.levels-1) * l.upperSlot())
	}
	w.Write(make([]byte, pad8(12*int64(out.nUpper))-12*int64(out.nUpper)))
	slot := 4 * l.upperSlot()
	for _, u := range ups {
		for lv := range int64(u.from.levels - 1) {
			start := 4*int64(u.from.off) + lv*slot
			remap(u.c, m.upLinks[start:start+slot])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
