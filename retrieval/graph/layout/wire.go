package layout

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// The binary scene (MediaType), read by server/web/assets/graph/decode.js.
// Little-endian; a 40-byte header of uint32s, then sections each starting
// on a 4-byte boundary so the browser can view them as typed arrays
// without copying:
//
//	"GNOG" version N E nCollections nFolders nTags nTagRefs stringBytes 0
//	pos      float32[2N]
//	rank     float32[N]
//	degree   uint32[N]
//	folder   uint32[N]
//	tagStart uint32[N+1]
//	tagRefs  uint32[nTagRefs]
//	edges    uint32[2E]
//	col      uint16[N]  (padded to 4 bytes)
//	flags    uint8[N]   (padded to 4 bytes)
//	strings  UTF-8, '\n' between strings: N titles, N ids, the
//	         collections, the folders, the tags
//
// About 40 bytes a node plus its strings and 8 a link: 2 MB for 20,000
// notes and 100,000 links, against 3 to 4 MB as JSON, and no parse of
// numbers in the browser.
const (
	// MediaType is the Content-Type of an encoded scene.
	MediaType   = "application/vnd.gno.graph"
	wireMagic   = "GNOG"
	wireVersion = 1
	headerBytes = 40
)

// ErrCorrupt is returned for bytes that are not a valid scene.
var ErrCorrupt = errors.New("layout: corrupt scene")

// MarshalBinary encodes s. Strings are made valid UTF-8 without line
// breaks on the way.
func (s *Scene) MarshalBinary() ([]byte, error) {
	n := len(s.Title)
	if len(s.Pos) != 2*n || len(s.Rank) != n || len(s.Degree) != n || len(s.Flags) != n ||
		len(s.Collection) != n || len(s.Folder) != n || len(s.ID) != n || len(s.TagStart) != n+1 ||
		len(s.Edges)%2 != 0 {
		return nil, errors.New("layout: scene arrays of different lengths")
	}
	var sb strings.Builder
	k := 0
	for _, tab := range [][]string{s.Title, s.ID, s.Collections, s.Folders, s.Tags} {
		for _, v := range tab {
			if k > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(oneLine(v))
			k++
		}
	}
	str := sb.String()
	size := headerBytes + 4*(2*n+n+n+n+(n+1)+len(s.TagRefs)+len(s.Edges)) + pad4(2*n) + pad4(n) + len(str)
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, wireMagic...)
	for _, v := range []int{wireVersion, n, len(s.Edges) / 2, len(s.Collections), len(s.Folders), len(s.Tags), len(s.TagRefs), len(str), 0} {
		b = le.AppendUint32(b, uint32(v))
	}
	for _, v := range s.Pos {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	for _, v := range s.Rank {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	for _, tab := range [][]uint32{s.Degree, s.Folder, s.TagStart, s.TagRefs, s.Edges} {
		for _, v := range tab {
			b = le.AppendUint32(b, v)
		}
	}
	for _, v := range s.Collection {
		b = le.AppendUint16(b, v)
	}
	b = append(b, make([]byte, pad4(2*n)-2*n)...)
	for _, f := range s.Flags {
		b = append(b, byte(f))
	}
	b = append(b, make([]byte, pad4(n)-n)...)
	b = append(b, str...)
	return b, nil
}

func pad4(n int) int { return (n + 3) &^ 3 }

// UnmarshalBinary decodes and checks a scene: sizes, every index in
// range, finite positions, valid UTF-8.
func (s *Scene) UnmarshalBinary(b []byte) error {
	if len(b) < headerBytes || string(b[:4]) != wireMagic {
		return fmt.Errorf("%w: no GNOG header", ErrCorrupt)
	}
	le := binary.LittleEndian
	var h [9]uint64
	for i := range h {
		h[i] = uint64(le.Uint32(b[4+4*i:]))
	}
	ver, n, e, nc, nf, nt, ntr, nstr := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	if ver != wireVersion {
		return fmt.Errorf("%w: version %d (want %d)", ErrCorrupt, ver, wireVersion)
	}
	if h[8] != 0 {
		return fmt.Errorf("%w: reserved header field set", ErrCorrupt)
	}
	if n > MaxNodes || e > MaxEdges || nc > 0xffff || nf > MaxNodes || nt > MaxNodes || ntr > 64*MaxNodes {
		return fmt.Errorf("%w: counts past the limits", ErrCorrupt)
	}
	want := uint64(headerBytes) + 4*(6*n+1+ntr+2*e) + uint64(pad4(int(2*n))) + uint64(pad4(int(n))) + nstr
	if want != uint64(len(b)) {
		return fmt.Errorf("%w: %d bytes, header says %d", ErrCorrupt, len(b), want)
	}
	off := headerBytes
	f32s := func(k uint64) []float32 {
		out := make([]float32, k)
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32(b[off:]))
			off += 4
		}
		return out
	}
	u32s := func(k uint64) []uint32 {
		out := make([]uint32, k)
		for i := range out {
			out[i] = le.Uint32(b[off:])
			off += 4
		}
		return out
	}
	*s = Scene{}
	s.Pos, s.Rank = f32s(2*n), f32s(n)
	s.Degree, s.Folder, s.TagStart, s.TagRefs, s.Edges = u32s(n), u32s(n), u32s(n+1), u32s(ntr), u32s(2*e)
	s.Collection = make([]uint16, n)
	for i := range s.Collection {
		s.Collection[i] = le.Uint16(b[off:])
		off += 2
	}
	zero := func(p []byte) bool {
		for _, c := range p {
			if c != 0 {
				return false
			}
		}
		return true
	}
	if !zero(b[off : headerBytes+4*int(6*n+1+ntr+2*e)+pad4(int(2*n))]) {
		return fmt.Errorf("%w: padding not zero", ErrCorrupt)
	}
	off = headerBytes + 4*int(6*n+1+ntr+2*e) + pad4(int(2*n))
	s.Flags = make([]Flag, n)
	for i := range s.Flags {
		s.Flags[i] = Flag(b[off+i])
	}
	if !zero(b[off+int(n) : off+pad4(int(n))]) {
		return fmt.Errorf("%w: padding not zero", ErrCorrupt)
	}
	off += pad4(int(n))
	str := string(b[off:])
	count := 2*n + nc + nf + nt
	var parts []string
	if count > 0 {
		parts = strings.Split(str, "\n")
	} else if len(str) > 0 {
		return fmt.Errorf("%w: strings without a table", ErrCorrupt)
	}
	if uint64(len(parts)) != count {
		return fmt.Errorf("%w: %d strings, header says %d", ErrCorrupt, len(parts), count)
	}
	if !utf8.ValidString(str) {
		return fmt.Errorf("%w: strings are not UTF-8", ErrCorrupt)
	}
	s.Title, parts = parts[:n], parts[n:]
	s.ID, parts = parts[:n], parts[n:]
	s.Collections, parts = parts[:nc], parts[nc:]
	s.Folders, s.Tags = parts[:nf], parts[nf:]
	for _, v := range s.Pos {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: position not finite", ErrCorrupt)
		}
	}
	for _, v := range s.Rank {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: rank not a finite non-negative number", ErrCorrupt)
		}
	}
	for i := uint64(0); i < n; i++ {
		if uint64(s.Collection[i]) >= nc || uint64(s.Folder[i]) >= nf {
			return fmt.Errorf("%w: node %d names a collection or folder out of range", ErrCorrupt, i)
		}
		if s.Flags[i]&^knownFlags != 0 {
			return fmt.Errorf("%w: node %d has unknown flags %#x", ErrCorrupt, i, s.Flags[i])
		}
		if s.TagStart[i] > s.TagStart[i+1] {
			return fmt.Errorf("%w: tag ranges not ascending", ErrCorrupt)
		}
	}
	if s.TagStart[0] != 0 || uint64(s.TagStart[n]) != ntr {
		return fmt.Errorf("%w: tag ranges do not cover the tag list", ErrCorrupt)
	}
	for _, t := range s.TagRefs {
		if uint64(t) >= nt {
			return fmt.Errorf("%w: tag out of range", ErrCorrupt)
		}
	}
	for i := 0; i < len(s.Edges); i += 2 {
		if uint64(s.Edges[i]) >= n || uint64(s.Edges[i+1]) >= n || s.Edges[i] == s.Edges[i+1] {
			return fmt.Errorf("%w: edge %d out of range", ErrCorrupt, i/2)
		}
	}
	return nil
}
