package store

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/gnosearch/gno/retrieval/links"
)

// Size: the link index's delta (one type and its reads and its build) is
// one unit; its reads mirror the flat index's one for one.

// A link index after a sync is its predecessor's flat arrays (the base,
// shared, never written again) plus an overlay of what the sync changed:
// the documents put (records, names, links), the base documents they
// hide (changed or removed), and the base links whose target changed
// because a name appeared or went. A link resolves by the documents
// answering to its target's links.Key, so only the links whose key is a
// changed document's name (old or new) can move: the links into the
// base documents of that name (their in-lists) and the unresolved links
// of that key (LinkIndex.unresH). Each overlay is built from the last,
// into new maps: a reader holding the old index keeps answering from it
// (one snapshot per read). When an overlay outgrows overlayBound the
// next change rebuilds the index flat, from the rows.

// overlayMin is the least overlay size that makes a rebuild (tests lower
// it).
var overlayMin = 4096

// overlayBound is the size (documents changed or hidden, links moved)
// past which an overlay of base is rebuilt flat: a sixteenth of its
// documents, so the overlay's reads stay near the flat ones' cost and
// the rebuilds cost a constant share of the syncs.
func overlayBound(base *LinkIndex) int { return max(overlayMin, len(base.docs)/16) }

type linkOverlay struct {
	base *LinkIndex
	// goneDoc marks base.docs' records and goneOrd base.order's places
	// hidden (changed or removed since the base); gone counts them.
	goneDoc, goneOrd bitset
	gone             int
	// top holds the documents put since the base, byID and byPath in
	// id and in (collection, path) order; linked are those with links,
	// by path, linkedAt[i] the number of base.order's documents before
	// linked[i].
	top      map[int64]*topDoc
	byID     []int64
	byPath   []*topDoc
	linked   []*topDoc
	linkedAt []int
	// names are the top documents' names, by key, in path order.
	names map[string][]topName
	// reres holds, for a base document some of whose links point
	// elsewhere now, where each of its links points.
	reres map[int64][]int64
	// extraIn holds the links into a document that its base in-list
	// lacks (the top's, and base links moved to it), by source path.
	extraIn map[int64][]linkAt
	// attached holds the top's attachment links by key, by source path.
	attached map[string][]linkAt
}

// topDoc is a document put since the base.
type topDoc struct {
	id int64
	linkDoc
	aliases []string
	outs    []resolvedLink
}

type topName struct {
	doc   *topDoc
	alias bool
}

type bitset []uint64

func newBitset(n int) bitset              { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool           { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int)                { b[i/64] |= 1 << (i % 64) }
func (b bitset) clone() bitset            { return slices.Clone(b) }
func (idx *LinkIndex) numDocs() int       { return idx.count() }
func (ov *linkOverlay) size() int         { return ov.gone + len(ov.top) + len(ov.reres) }
func (ov *linkOverlay) hidden(i int) bool { return i >= 0 && ov.goneDoc.has(i) }

// count is the number of documents in the index.
func (idx *LinkIndex) count() int {
	if ov := idx.ov; ov != nil {
		// A top document is new or replaces a hidden base one.
		return len(ov.base.docs) - ov.gone + len(ov.top)
	}
	return len(idx.docs)
}

// canTake reports whether n more changed documents keep the overlay
// within its bound.
func (idx *LinkIndex) canTake(n int) bool {
	base, size := idx, 0
	if idx.ov != nil {
		base, size = idx.ov.base, idx.ov.size()
	}
	return size+2*n <= overlayBound(base)
}

func (ov *linkOverlay) doc(id int64) (linkDoc, bool) {
	if t := ov.top[id]; t != nil {
		return t.linkDoc, true
	}
	i := ov.base.docIndex(id)
	if i < 0 || ov.goneDoc.has(i) {
		return linkDoc{}, false
	}
	return ov.base.docAt(&ov.base.docs[i]), true
}

// goneSrc reports whether base document id is hidden.
func (ov *linkOverlay) goneSrc(id int64) bool { return ov.hidden(ov.base.docIndex(id)) }

func (ov *linkOverlay) outOf(id int64) []resolvedLink {
	if t := ov.top[id]; t != nil {
		return t.outs
	}
	if ov.goneSrc(id) {
		return nil
	}
	return ov.moved(id, ov.base.outOf(id))
}

// moved returns base document src's links ls with their targets now.
func (ov *linkOverlay) moved(src int64, ls []resolvedLink) []resolvedLink {
	d, ok := ov.reres[src]
	if !ok {
		return ls
	}
	out := slices.Clone(ls)
	for i := range out {
		out[i].dst = d[i]
	}
	return out
}

func (ov *linkOverlay) inOf(id int64) []linkAt {
	if _, ok := ov.doc(id); !ok {
		return nil
	}
	var base []linkAt
	for _, a := range ov.base.inOf(id) {
		if ov.goneSrc(a.src) {
			continue
		}
		if d, ok := ov.reres[a.src]; ok && d[a.seq] != id {
			continue
		}
		base = append(base, a)
	}
	return ov.merge(base, ov.extraIn[id])
}

// srcCmp orders two links by their source's collection and path, then
// their place in it: the order of in-lists.
func (ov *linkOverlay) srcCmp(a, b linkAt) int {
	if a.src != b.src {
		x, _ := ov.doc(a.src)
		y, _ := ov.doc(b.src)
		if c := cmp.Compare(x.Collection, y.Collection); c != 0 {
			return c
		}
		if c := cmp.Compare(x.RelPath, y.RelPath); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.seq, b.seq)
}

// merge merges two lists in source order.
func (ov *linkOverlay) merge(a, b []linkAt) []linkAt {
	if len(b) == 0 {
		return a
	}
	out := make([]linkAt, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if ov.srcCmp(a[i], b[j]) <= 0 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (ov *linkOverlay) candidates(buf []links.Candidate, k string) []links.Candidate {
	start := len(buf)
	buf = ov.base.candidates(buf, k)
	kept := buf[:start]
	for _, c := range buf[start:] {
		if !ov.goneSrc(c.ID) {
			kept = append(kept, c)
		}
	}
	tops := ov.names[k]
	if len(tops) == 0 {
		return kept
	}
	base := slices.Clone(kept[start:])
	out, i := kept[:start], 0
	for _, t := range tops {
		for i < len(base) && cmpPath(base[i].Collection, base[i].RelPath, t.doc.Collection, t.doc.RelPath) < 0 {
			out = append(out, base[i])
			i++
		}
		out = append(out, links.Candidate{ID: t.doc.id, Collection: t.doc.Collection, RelPath: t.doc.RelPath, Alias: t.alias})
	}
	return append(out, base[i:]...)
}

func cmpPath(c1, p1, c2, p2 string) int {
	if c := cmp.Compare(c1, c2); c != 0 {
		return c
	}
	return cmp.Compare(p1, p2)
}

// eachLinked calls fn with every document that has links and its links,
// by collection and path, until fn returns false.
func (idx *LinkIndex) eachLinked(fn func(src int64, ls []resolvedLink) bool) {
	ov := idx.ov
	if ov == nil {
		for p, src := range idx.order {
			if !fn(src, idx.outsAt(p)) {
				return
			}
		}
		return
	}
	j := 0
	for p, src := range ov.base.order {
		for ; j < len(ov.linked) && ov.linkedAt[j] <= p; j++ {
			if !fn(ov.linked[j].id, ov.linked[j].outs) {
				return
			}
		}
		if ov.goneOrd.has(p) {
			continue
		}
		if !fn(src, ov.moved(src, ov.base.outsAt(p))) {
			return
		}
	}
	for ; j < len(ov.linked); j++ {
		if !fn(ov.linked[j].id, ov.linked[j].outs) {
			return
		}
	}
}

// eachDoc calls fn with every document, in id order.
func (idx *LinkIndex) eachDoc(fn func(id int64, d linkDoc)) {
	ov := idx.ov
	if ov == nil {
		for i := range idx.docs {
			fn(idx.docs[i].id, idx.docAt(&idx.docs[i]))
		}
		return
	}
	j := 0
	for i := range ov.base.docs {
		r := &ov.base.docs[i]
		for ; j < len(ov.byID) && ov.byID[j] < r.id; j++ {
			fn(ov.byID[j], ov.top[ov.byID[j]].linkDoc)
		}
		if !ov.goneDoc.has(i) {
			fn(r.id, ov.base.docAt(r))
		}
	}
	for ; j < len(ov.byID); j++ {
		fn(ov.byID[j], ov.top[ov.byID[j]].linkDoc)
	}
}

// aliasesOf returns document id's front-matter aliases.
func (idx *LinkIndex) aliasesOf(id int64) []string {
	if ov := idx.ov; ov != nil {
		if t := ov.top[id]; t != nil {
			return t.aliases
		}
		if ov.goneSrc(id) {
			return nil
		}
		return ov.base.aliases[id]
	}
	return idx.aliases[id]
}

// attachedTo returns the attachment links whose target has key k, by
// source path.
func (idx *LinkIndex) attachedTo(k string) []linkAt {
	ov := idx.ov
	if ov == nil {
		return idx.attached[k]
	}
	var base []linkAt
	for _, a := range ov.base.attached[k] {
		if !ov.goneSrc(a.src) {
			base = append(base, a)
		}
	}
	return ov.merge(base, ov.attached[k])
}

// sortUnresolved orders the unresolved links by their key's hash.
func (idx *LinkIndex) sortUnresolved() {
	sort.Sort(unresSort{idx})
	idx.unresH, idx.unresP = slices.Clip(idx.unresH), slices.Clip(idx.unresP)
}

type unresSort struct{ idx *LinkIndex }

func (u unresSort) Len() int           { return len(u.idx.unresH) }
func (u unresSort) Less(i, j int) bool { return u.idx.unresH[i] < u.idx.unresH[j] }
func (u unresSort) Swap(i, j int) {
	u.idx.unresH[i], u.idx.unresH[j] = u.idx.unresH[j], u.idx.unresH[i]
	u.idx.unresP[i], u.idx.unresP[j] = u.idx.unresP[j], u.idx.unresP[i]
}

// unresolvedNamed calls fn with the source of each unresolved link of
// the flat index whose target's key is k.
func (idx *LinkIndex) unresolvedNamed(k string, fn func(src int64)) {
	h := maphash.String(nameSeed, k)
	i, _ := slices.BinarySearch(idx.unresH, h)
	for ; i < len(idx.unresH) && idx.unresH[i] == h; i++ {
		p := int32(idx.unresP[i])
		// outAt is increasing: the source is the last place at or below p.
		o := sort.Search(len(idx.outAt), func(x int) bool { return idx.outAt[x] > p }) - 1
		fn(idx.order[o])
	}
}

// resolveLink points link l of document src (whose collection and path
// are in m) at its document in idx.
func (idx *LinkIndex) resolveLink(l *resolvedLink, src int64, m linkDoc, cands []links.Candidate) []links.Candidate {
	l.dst, l.attach = 0, false
	switch {
	case l.Target == "":
		l.dst = src
	case links.IsAttachment(l.Target):
		l.attach = true
	default:
		cands = idx.candidates(cands[:0], links.Key(l.Target))
		l.dst = links.Resolve(l.Kind, l.Target, m.Collection, m.RelPath, cands)
	}
	return cands
}

// withChanges returns idx brought to writes: the documents ids were put
// (rows, read in the snapshot of writes) or removed (ids without a row).
func (idx *LinkIndex) withChanges(writes string, ids []int64, rows []changedDoc) *LinkIndex {
	prev := idx.ov
	base := idx
	ov := &linkOverlay{top: map[int64]*topDoc{}, names: map[string][]topName{}, reres: map[int64][]int64{},
		extraIn: map[int64][]linkAt{}, attached: map[string][]linkAt{}}
	if prev != nil {
		base = prev.base
		ov.goneDoc, ov.goneOrd, ov.gone = prev.goneDoc.clone(), prev.goneOrd.clone(), prev.gone
	} else {
		ov.goneDoc, ov.goneOrd = newBitset(len(base.docs)), newBitset(len(base.order))
	}
	ov.base = base
	next := &LinkIndex{writes: writes, ov: ov}

	// The names that may have moved: every changed document's, before
	// and after.
	keys := map[string]bool{}
	nameKeys := func(rel string, aliases []string) {
		keys[links.Key(rel)] = true
		for _, a := range aliases {
			if k := aliasKey(a); k != "" {
				keys[k] = true
			}
		}
	}
	changed := make(map[int64]bool, len(ids))
	for _, id := range ids {
		changed[id] = true
		if d, ok := idx.doc(id); ok {
			nameKeys(d.RelPath, idx.aliasesOf(id))
		}
		if i := base.docIndex(id); i >= 0 && !ov.goneDoc.has(i) {
			ov.goneDoc.set(i)
			ov.gone++
			if o := base.docs[i].ord; o > 0 {
				ov.goneOrd.set(int(o - 1))
			}
		}
	}
	if prev != nil {
		for id, t := range prev.top {
			if !changed[id] {
				c := *t
				c.outs = slices.Clone(t.outs)
				ov.top[id] = &c
			}
		}
	}
	for i := range rows {
		r := &rows[i]
		t := &topDoc{id: r.meta.ID, linkDoc: linkDoc{Collection: r.meta.Collection, RelPath: r.meta.RelPath, Title: r.meta.Title}}
		t.setHash(r.meta.Hash)
		if r.aliases != nil {
			t.aliases = splitAliases(*r.aliases)
		}
		for _, l := range r.links {
			t.outs = append(t.outs, resolvedLink{Kind: l.Kind, Target: l.Target, Fragment: l.Fragment, Alias: l.Alias, Line: int32(l.Line)})
		}
		ov.top[t.id] = t
		nameKeys(t.RelPath, t.aliases)
	}
	for id, t := range ov.top {
		ov.byID = append(ov.byID, id)
		ov.byPath = append(ov.byPath, t)
	}
	slices.Sort(ov.byID)
	slices.SortFunc(ov.byPath, func(a, b *topDoc) int { return cmpPath(a.Collection, a.RelPath, b.Collection, b.RelPath) })
	for _, t := range ov.byPath {
		// As keepDocs adds them: the file name, then the aliases.
		k := links.Key(t.RelPath)
		ov.names[k] = append(ov.names[k], topName{doc: t})
		for _, a := range t.aliases {
			if k := aliasKey(a); k != "" {
				ov.names[k] = append(ov.names[k], topName{doc: t, alias: true})
			}
		}
		if len(t.outs) > 0 {
			ov.linked = append(ov.linked, t)
			ov.linkedAt = append(ov.linkedAt, sort.Search(len(base.order), func(p int) bool {
				d, _ := base.doc(base.order[p])
				return cmpPath(d.Collection, d.RelPath, t.Collection, t.RelPath) >= 0
			}))
		}
	}

	// Resolve the top's links, then the base links that may have moved.
	var cands []links.Candidate
	for _, t := range ov.byPath {
		for i := range t.outs {
			cands = next.resolveLink(&t.outs[i], t.id, t.linkDoc, cands)
		}
	}
	srcs := map[int64]bool{}
	if prev != nil {
		for src := range prev.reres {
			srcs[src] = true
		}
	}
	for k := range keys {
		base.named(k, func(r *nameRec) {
			for _, a := range base.inOf(r.id) {
				srcs[a.src] = true
			}
		})
		base.unresolvedNamed(k, func(src int64) { srcs[src] = true })
	}
	for src := range srcs {
		if ov.goneSrc(src) {
			continue
		}
		m, _ := base.doc(src)
		ls := base.outOf(src)
		var d []int64
		for i := range ls {
			l := ls[i]
			cands = next.resolveLink(&l, src, m, cands)
			if l.dst != ls[i].dst && d == nil {
				d = make([]int64, len(ls))
				for j := range ls {
					d[j] = ls[j].dst
				}
			}
			if d != nil {
				d[i] = l.dst
			}
		}
		if d != nil {
			ov.reres[src] = d
		}
	}

	// The links into each document that its base in-list lacks, and the
	// top's attachments.
	for src, d := range ov.reres {
		ls := base.outOf(src)
		for i, dst := range d {
			if dst != 0 && dst != ls[i].dst {
				ov.extraIn[dst] = append(ov.extraIn[dst], linkAt{src, i})
			}
		}
	}
	for _, t := range ov.byPath {
		for i, l := range t.outs {
			switch {
			case l.attach:
				k := links.Key(l.Target)
				ov.attached[k] = append(ov.attached[k], linkAt{t.id, i})
			case l.dst != 0:
				ov.extraIn[l.dst] = append(ov.extraIn[l.dst], linkAt{t.id, i})
			}
		}
	}
	for _, in := range ov.extraIn {
		slices.SortFunc(in, ov.srcCmp)
	}
	return next
}
