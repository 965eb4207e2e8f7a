package store

import (
	"cmp"
	"encoding/hex"
	"hash/maphash"
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
	// ord is 1 + the document's place in the index's order (its links
	// are outs[outAt[ord-1]:outAt[ord]]), 0 when it has no links.
	ord  uint32
	hash [32]byte
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

// keepDocs finishes the documents added (Add wrote their records and
// their paths and titles into one string as they came) and indexes their
// names, which then share that string, before sorting the records by id.
func (idx *LinkIndex) keepDocs() {
	idx.text = idx.textB.String()
	idx.textB = strings.Builder{}
	idx.docs = fitted(idx.docs)
	for i := range idx.docs {
		r := &idx.docs[i]
		// Names in the order added (collection, path): the order
		// links.Resolve sees candidates in.
		rel := idx.text[r.off : r.off+uint64(r.pathLen)]
		idx.addName(links.Key(rel), r.id, false)
		for _, a := range idx.aliases[r.id] {
			if k := strings.ToLower(a); k != "" {
				idx.addName(k, r.id, true)
			}
		}
	}
	slices.SortFunc(idx.docs, func(a, b docRec) int { return cmp.Compare(a.id, b.id) })
	// By hash, then in the order added. Integers compare faster than the
	// keys: at a million documents this sort costs less than the map it
	// replaces took to fill.
	slices.SortFunc(idx.names, func(a, b nameRec) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	idx.names = fitted(idx.names)
	idx.colIdx = nil
}

// fitted returns s in an array of its length when growing it by appends
// left more than an eighth unused: the index keeps it for its life.
func fitted[S ~[]E, E any](s S) S {
	if cap(s)-len(s) > len(s)/8 {
		return append(S(nil), s...)
	}
	return s
}

// nameRec is one name a document answers to: links.Key of its file name
// (most often a substring of the index's text, as links.Key returns
// its argument's bytes when there is nothing to lower or trim) or a
// front-matter alias, lowercased. The index keeps them in one slice
// sorted by the key's hash, then in the order added: a map of a key and
// a candidate slice per document was ~0.1 GB of a daemon's heap at a
// million documents (bench/RESULTS.md).
type nameRec struct {
	h     uint64
	id    int64
	key   string
	seq   int32
	alias bool
}

// nameSeed hashes the names' keys (within this process only).
var nameSeed = maphash.MakeSeed()

func (idx *LinkIndex) addName(k string, id int64, alias bool) {
	idx.names = append(idx.names, nameRec{h: maphash.String(nameSeed, k), id: id, key: k, seq: int32(len(idx.names)), alias: alias})
}

// named calls fn with the records of key k, in the order added.
func (idx *LinkIndex) named(k string, fn func(r *nameRec)) {
	h := maphash.String(nameSeed, k)
	i, _ := slices.BinarySearchFunc(idx.names, h, func(r nameRec, h uint64) int { return cmp.Compare(r.h, h) })
	for ; i < len(idx.names) && idx.names[i].h == h; i++ {
		if r := &idx.names[i]; r.key == k {
			fn(r)
		}
	}
}

// candidates appends to buf the documents answering to key k by file
// name or alias, as links.Resolve takes them.
func (idx *LinkIndex) candidates(buf []links.Candidate, k string) []links.Candidate {
	if idx.ov != nil {
		return idx.ov.candidates(buf, k)
	}
	idx.named(k, func(r *nameRec) {
		d, _ := idx.doc(r.id)
		buf = append(buf, links.Candidate{ID: r.id, Collection: d.Collection, RelPath: d.RelPath, Alias: r.alias})
	})
	return buf
}

// docIndex is document id's place in docs, -1 when it has none.
func (idx *LinkIndex) docIndex(id int64) int {
	i, ok := slices.BinarySearchFunc(idx.docs, id, func(r docRec, id int64) int { return cmp.Compare(r.id, id) })
	if !ok {
		return -1
	}
	return i
}

// outOf returns the links document id makes, in order.
func (idx *LinkIndex) outOf(id int64) []resolvedLink {
	if idx.ov != nil {
		return idx.ov.outOf(id)
	}
	i := idx.docIndex(id)
	if i < 0 || idx.docs[i].ord == 0 {
		return nil
	}
	return idx.outsAt(int(idx.docs[i].ord - 1))
}

// outsAt returns the links of order[p].
func (idx *LinkIndex) outsAt(p int) []resolvedLink { return idx.outs[idx.outAt[p]:idx.outAt[p+1]] }

// inOf returns the links naming document id, by source path and order.
func (idx *LinkIndex) inOf(id int64) []linkAt {
	if idx.ov != nil {
		return idx.ov.inOf(id)
	}
	i := idx.docIndex(id)
	if i < 0 || idx.inAt == nil {
		return nil
	}
	return idx.ins[idx.inAt[i]:idx.inAt[i+1]]
}

// doc returns document id as the index keeps it.
func (idx *LinkIndex) doc(id int64) (linkDoc, bool) {
	if idx.ov != nil {
		return idx.ov.doc(id)
	}
	i := idx.docIndex(id)
	if i < 0 {
		return linkDoc{}, false
	}
	return idx.docAt(&idx.docs[i]), true
}

// docAt returns the document of record r, one of idx.docs.
func (idx *LinkIndex) docAt(r *docRec) linkDoc {
	path := idx.text[r.off : r.off+uint64(r.pathLen)]
	title := idx.text[r.off+uint64(r.pathLen) : r.off+uint64(r.pathLen)+uint64(r.titleLen)]
	d := linkDoc{Collection: idx.cols[r.col], RelPath: path, Title: title, hash: r.hash}
	if idx.hashText != nil {
		d.hashText = idx.hashText[r.id]
	}
	return d
}

// collection is document id's collection ("" when it has none).
func (idx *LinkIndex) collection(id int64) string {
	d, _ := idx.doc(id)
	return d.Collection
}

// packStrings moves the links' strings into one: each document's came
// out of a blob of its own (decodeLinks), allocated among the garbage of
// reading its row, so a million of them kept most spans of their size
// classes in use with a few live objects each (at 1M the heap's spans
// in use were ~0.3 GB above its live bytes: bench/RESULTS.md).
func (idx *LinkIndex) packStrings() {
	n := 0
	for i := range idx.outs {
		r := &idx.outs[i]
		n += len(r.Target) + len(r.Fragment) + len(r.Alias)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range idx.outs {
		r := &idx.outs[i]
		b.WriteString(r.Target)
		b.WriteString(r.Fragment)
		b.WriteString(r.Alias)
	}
	all, at := b.String(), 0
	take := func(s string) string {
		if s == "" {
			return ""
		}
		at += len(s)
		return all[at-len(s) : at]
	}
	for i := range idx.outs {
		r := &idx.outs[i]
		r.Target, r.Fragment, r.Alias = take(r.Target), take(r.Fragment), take(r.Alias)
	}
}
