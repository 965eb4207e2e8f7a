package store

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/gnosearch/gno/retrieval/links"
)

// The link index's documents: kept compact, as a daemon holds them for
// its life (at a million documents every byte a document is a megabyte).

// docRec is a document as the link index keeps it: its path and title
// at text[off:], its collection cols[col], its hash as linkDoc's.
type docRec struct {
	id                int64
	off               uint64
	pathLen, titleLen uint32
	col               uint32
	hash              [32]byte
}

// addedDoc is a document added and not yet resolved.
type addedDoc struct {
	id      int64
	col     uint32
	aliases []string
	linkDoc
}

// linkDoc is a document as the link index answers it: Collection interned
// (one string per collection), a hash that is 64 lowercase hex digits (a
// BLAKE3, as a sync writes it) as its 32 bytes, any other in hashText.
type linkDoc struct {
	Collection, RelPath, Title string
	hash                       [32]byte
	hashText                   string
}

// setHash keeps h in its compact form when it has one.
func (d *linkDoc) setHash(h string) {
	if len(h) == 64 {
		if _, err := hex.Decode(d.hash[:], []byte(h)); err == nil && d.hash != [32]byte{} && hex.EncodeToString(d.hash[:]) == h {
			return
		}
	}
	d.hash, d.hashText = [32]byte{}, h
}

// Hash is the document's hash as stored.
func (d linkDoc) Hash() string {
	if d.hashText != "" || d.hash == [32]byte{} {
		return d.hashText
	}
	return hex.EncodeToString(d.hash[:])
}

// meta is the document as a DocMeta (the columns the index reads).
func (d linkDoc) meta(id int64) *DocMeta {
	return &DocMeta{ID: id, Collection: d.Collection, RelPath: d.RelPath, Hash: d.Hash(), Title: d.Title}
}

// keepDocs moves the documents added into their compact form (one
// string for every path and title, records sorted by id) and indexes
// their names, which then share that string.
func (idx *LinkIndex) keepDocs() {
	n := 0
	for _, d := range idx.adding {
		n += len(d.RelPath) + len(d.Title)
	}
	var b strings.Builder
	b.Grow(n)
	for _, d := range idx.adding {
		b.WriteString(d.RelPath)
		b.WriteString(d.Title)
	}
	idx.text = b.String()
	idx.docs = make([]docRec, len(idx.adding))
	off := uint64(0)
	for i, d := range idx.adding {
		r := docRec{id: d.id, off: off, pathLen: uint32(len(d.RelPath)), titleLen: uint32(len(d.Title)), col: d.col, hash: d.hash}
		off += uint64(len(d.RelPath) + len(d.Title))
		if d.hashText != "" {
			if idx.hashText == nil {
				idx.hashText = map[int64]string{}
			}
			idx.hashText[d.id] = d.hashText
		}
		idx.docs[i] = r
		// Names in the order added (collection, path): the order
		// links.Resolve sees candidates in.
		rel, col := idx.text[r.off:r.off+uint64(r.pathLen)], idx.cols[r.col]
		k := links.Key(rel)
		idx.names[k] = append(idx.names[k], links.Candidate{ID: d.id, Collection: col, RelPath: rel})
		for _, a := range d.aliases {
			if k := strings.ToLower(a); k != "" {
				idx.names[k] = append(idx.names[k], links.Candidate{ID: d.id, Collection: col, RelPath: rel, Alias: true})
			}
		}
	}
	slices.SortFunc(idx.docs, func(a, b docRec) int { return cmp.Compare(a.id, b.id) })
	idx.adding, idx.colIdx = nil, nil
}

// doc returns document id as the index keeps it.
func (idx *LinkIndex) doc(id int64) (linkDoc, bool) {
	i, ok := slices.BinarySearchFunc(idx.docs, id, func(r docRec, id int64) int { return cmp.Compare(r.id, id) })
	if !ok {
		return linkDoc{}, false
	}
	r := &idx.docs[i]
	path := idx.text[r.off : r.off+uint64(r.pathLen)]
	title := idx.text[r.off+uint64(r.pathLen) : r.off+uint64(r.pathLen)+uint64(r.titleLen)]
	d := linkDoc{Collection: idx.cols[r.col], RelPath: path, Title: title, hash: r.hash}
	if idx.hashText != nil {
		d.hashText = idx.hashText[id]
	}
	return d, true
}

// collection is document id's collection ("" when it has none).
func (idx *LinkIndex) collection(id int64) string {
	d, _ := idx.doc(id)
	return d.Collection
}
