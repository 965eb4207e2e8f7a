package store

import (
	"context"
	"fmt"
	"hash/maphash"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gnosearch/gno/retrieval/links"
)

// LinkRow is a stored link with the document at its other end (zero
// Other when the link is unresolved).
type LinkRow struct {
	Src, Seq int64
	Kind     links.Kind
	Target   string
	Fragment string
	Alias    string
	Line     int
	Attach   bool
	// Other is the document at the other end: the target of an outgoing
	// link, the source of an incoming one. Nil when unresolved.
	Other *DocMeta
}

// LinkIndex is every link of an index resolved against its documents, as
// of one value of the meta "writes" counter. Resolution needs the whole
// document set (a new note named like a link's target takes it over), so it
// happens here, once per committed change, not at write time. Every
// backend builds it from its rows (NewLinkIndex, Add, Resolve) and answers
// the link reads from it, so the link graph means the same on each.
type LinkIndex struct {
	writes string
	// gen numbers a flat index (flatGens; 0 for an overlay, which
	// answers its base's: LinkGraphSince).
	gen uint64
	// docs holds what links need of every document, by id, as fixed
	// records over text (every path and title in one string) and cols: a
	// daemon keeps the index for its life, and at a million documents a
	// map of strings was ~0.4 GB of its heap. hashText holds the hashes
	// that have no compact form (linkDoc.setHash).
	docs     []docRec
	text     string
	cols     []string
	hashText map[int64]string
	// textB collects the paths and titles as added, until Resolve;
	// colIdx interns the collection names.
	textB  strings.Builder
	colIdx map[string]uint32
	// names are the keys (links.Key) of every file name and alias with
	// their documents, sorted by key (nameRec).
	names []nameRec
	// aliases are each document's front-matter aliases.
	aliases map[int64][]string
	// outs holds every document's links, the documents in order:
	// order[p]'s are outs[outAt[p]:outAt[p+1]] (docRec.ord finds p).
	// ins holds, per target, the links naming it by source path and
	// order: docs[i]'s are ins[inAt[i]:inAt[i+1]]. Flat arrays, not maps
	// of slices: a daemon keeps them for its life (bench/RESULTS.md).
	outs  []resolvedLink
	outAt []int32
	ins   []linkAt
	inAt  []int32
	// attached lists, per links.Key of the target, the attachment links
	// (no graph edge), by source path and order, for AttachmentsTo.
	attached map[string][]linkAt
	// order is every document with links, by collection and path.
	order []int64
	// unresH and unresP are the unresolved links (not attachments, not
	// to a heading of their own note) by the hash of their target's
	// links.Key, and their places in outs: a document added under that
	// name may take them (linkoverlay.go).
	unresH []uint64
	unresP []uint32
	// ov, when set, makes this index its base's plus the documents
	// changed since (linkoverlay.go); the fields above are then unused.
	ov *linkOverlay
}

// resolvedLink is a link as written plus where it points now (0: nowhere).
// It keeps only what a stored link has (links.Link's byte ranges are
// not stored), in 64 bytes instead of 112: a daemon keeps one per link.
type resolvedLink struct {
	Target, Fragment, Alias string
	dst                     int64
	Line                    int32
	Kind                    links.Kind
	attach                  bool
}

type linkAt struct {
	src int64
	seq int
}

// LinkCache holds a store's latest LinkIndex. Its zero value is empty.
type LinkCache struct {
	mu  sync.Mutex
	idx *LinkIndex
}

// writesSQL reads the meta "writes" counter (” before the first write).
const writesSQL = "coalesce((SELECT value FROM meta WHERE key = 'writes'), '')"

// LinkVersion names the committed state of the document set: it changes
// with every write batch, so a cache of link answers keyed by it is never
// stale.
func (s *Store) LinkVersion(ctx context.Context) (string, error) {
	var writes string
	if err := s.db.QueryRowContext(ctx, "SELECT "+writesSQL).Scan(&writes); err != nil {
		return "", fmt.Errorf("read links: %w", err)
	}
	return writes, nil
}

// linkIndex returns the resolved links of the committed index, rebuilt
// when a write has committed since the last call.
func (s *Store) linkIndex(ctx context.Context) (*LinkIndex, error) {
	return readIn(ctx, s, s.cachedLinks)
}

func (s *Store) cachedLinks(ctx context.Context) (*LinkIndex, error) {
	writes, err := s.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	idx, err := s.links.get(writes, func(old *LinkIndex) (*LinkIndex, error) { return s.updateLinks(ctx, old, writes) },
		func() (*LinkIndex, error) { return s.loadLinks(ctx) })
	if err == nil {
		if w, err := strconv.ParseInt(idx.writes, 10, 64); err == nil {
			s.linkLog.trim(w)
		}
	}
	return idx, err
}

// loadLinks reads documents and links in one statement (one snapshot) and
// resolves every link.
func (s *Store) loadLinks(ctx context.Context) (*LinkIndex, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+writesSQL+`,
		d.id, d.collection, d.rel_path, d.hash, d.title, l.aliases, l.links
		FROM documents d LEFT JOIN doc_links l ON l.doc_id = d.id ORDER BY d.collection, d.rel_path`)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	idx := NewLinkIndex("")
	for rows.Next() {
		m := &DocMeta{}
		var aliases *string
		var data []byte
		if err := rows.Scan(&idx.writes, &m.ID, &m.Collection, &m.RelPath, &m.Hash, &m.Title, &aliases, &data); err != nil {
			return nil, fmt.Errorf("read links: %w", err)
		}
		if err := idx.Add(m, aliases, data); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	if idx.writes == "" {
		// No document row carried the counter: read it, so the cache
		// keeps an empty index instead of building it for every read.
		w, err := s.LinkVersion(ctx)
		if err != nil {
			return nil, err
		}
		idx.writes = w
	}
	idx.Resolve()
	return idx, nil
}

// NewLinkIndex starts an empty index of the document set as of the
// writes counter's value writes (LinkVersion).
func NewLinkIndex(writes string) *LinkIndex {
	return &LinkIndex{writes: writes, gen: flatGens.Add(1), colIdx: map[string]uint32{},
		aliases: map[int64][]string{}, attached: map[string][]linkAt{},
		outAt: []int32{0}}
}

// SetWrites sets the writes counter's value the index is of, for a
// backend that reads it with the rows.
func (idx *LinkIndex) SetWrites(writes string) { idx.writes = writes }

// Add adds document m with its stored aliases (nil: no links row) and
// links as EncodeLinks wrote them. Documents are added by collection,
// then path, in byte order: that order is the order of every answer.
func (idx *LinkIndex) Add(m *DocMeta, aliases *string, data []byte) error {
	c, ok := idx.colIdx[m.Collection]
	if !ok {
		c = uint32(len(idx.cols))
		idx.colIdx[m.Collection] = c
		idx.cols = append(idx.cols, m.Collection)
	}
	// Straight into the kept form: the record, the path and title onto
	// the one string, the links onto the one array (a document's
	// strings, row and blob are garbage once added). Holding them as
	// added until Resolve made a rebuild's peak three times what it
	// keeps at a million documents (bench/RESULTS.md).
	var d linkDoc
	d.setHash(m.Hash)
	if d.hashText != "" {
		if idx.hashText == nil {
			idx.hashText = map[int64]string{}
		}
		idx.hashText[m.ID] = d.hashText
	}
	idx.docs = append(idx.docs, docRec{id: m.ID, off: uint64(idx.textB.Len()), pathLen: uint32(len(m.RelPath)), titleLen: uint32(len(m.Title)), col: c, hash: d.hash})
	idx.textB.WriteString(m.RelPath)
	idx.textB.WriteString(m.Title)
	if aliases == nil {
		return nil
	}
	if as := splitAliases(*aliases); len(as) > 0 {
		// Only documents that have aliases: an entry per document with
		// a links row was ~40 MB of a daemon's heap at 1M.
		idx.aliases[m.ID] = as
	}
	ls, err := decodeLinks(data)
	if err != nil {
		return fmt.Errorf("read links of %s/%s: %w (run `gno update --rebuild`)", m.Collection, m.RelPath, err)
	}
	if len(ls) > 0 {
		for _, l := range ls {
			idx.outs = append(idx.outs, resolvedLink{Kind: l.Kind, Target: l.Target, Fragment: l.Fragment, Alias: l.Alias, Line: int32(l.Line)})
		}
		idx.outAt = append(idx.outAt, int32(len(idx.outs)))
		idx.order = append(idx.order, m.ID)
	}
	return nil
}

// Resolve points every link added at its document, once all are added.
func (idx *LinkIndex) Resolve() {
	idx.keepDocs()
	idx.outs, idx.outAt, idx.order = fitted(idx.outs), fitted(idx.outAt), fitted(idx.order)
	var cands []links.Candidate // reused: Resolve keeps none
	inCount := make([]int32, len(idx.docs)+1)
	for p, src := range idx.order {
		var m linkDoc
		if i := idx.docIndex(src); i >= 0 {
			idx.docs[i].ord = uint32(p + 1)
			m = idx.docAt(&idx.docs[i])
		}
		at := int(idx.outAt[p])
		for i := range idx.outsAt(p) {
			r := &idx.outs[at+i]
			switch {
			case r.Target == "":
				r.dst = src // a heading of the same note
			case links.IsAttachment(r.Target):
				r.attach = true
				k := links.Key(r.Target)
				if _, ok := idx.attached[k]; !ok {
					// The key may share the link blob's bytes, which the
					// packing below means to free: keep a copy of its own.
					k = strings.Clone(k)
				}
				idx.attached[k] = append(idx.attached[k], linkAt{src, i})
			default:
				k := links.Key(r.Target)
				cands = idx.candidates(cands[:0], k)
				r.dst = links.Resolve(r.Kind, r.Target, m.Collection, m.RelPath, cands)
				if r.dst == 0 {
					idx.unresH = append(idx.unresH, maphash.String(nameSeed, k))
					idx.unresP = append(idx.unresP, uint32(at+i))
				}
			}
			if r.dst != 0 {
				if d := idx.docIndex(r.dst); d >= 0 {
					inCount[d+1]++
				}
			}
		}
	}
	// The links in: counted above, placed in the same order (by source
	// path, then order), so each target's are as the map kept them.
	for i := range len(idx.docs) {
		inCount[i+1] += inCount[i]
	}
	idx.inAt = inCount
	idx.ins = make([]linkAt, inCount[len(idx.docs)])
	fill := slices.Clone(inCount[:len(idx.docs)])
	for p, src := range idx.order {
		for i, r := range idx.outsAt(p) {
			if r.dst == 0 {
				continue
			}
			if d := idx.docIndex(r.dst); d >= 0 {
				idx.ins[fill[d]] = linkAt{src, i}
				fill[d]++
			}
		}
	}
	idx.packStrings()
	idx.sortUnresolved()
}

// docIDs returns the ids of the documents of the given collections (all
// when none), in id order.
func (idx *LinkIndex) docIDs(collections []string) []int64 {
	want := map[string]bool{}
	for _, c := range collections {
		want[c] = true
	}
	ids := make([]int64, 0, idx.numDocs())
	idx.eachDoc(func(id int64, d linkDoc) {
		if len(want) == 0 || want[d.Collection] {
			ids = append(ids, id)
		}
	})
	return ids
}

func (idx *LinkIndex) row(src int64, seq int, other int64) LinkRow {
	l := idx.outOf(src)[seq]
	r := LinkRow{Src: src, Seq: int64(seq), Kind: l.Kind, Target: l.Target, Fragment: l.Fragment, Alias: l.Alias, Line: int(l.Line), Attach: l.attach}
	if m, ok := idx.doc(other); ok {
		r.Other = m.meta(other)
	}
	return r
}

// LinksFrom returns the links document id makes, in order.
func (idx *LinkIndex) LinksFrom(id int64) []LinkRow {
	ls := idx.outOf(id)
	out := make([]LinkRow, 0, len(ls))
	for i, l := range ls {
		out = append(out, idx.row(id, i, l.dst))
	}
	return out
}

// LinksTo returns the links pointing at document id, by source path.
func (idx *LinkIndex) LinksTo(id int64) []LinkRow {
	in := idx.inOf(id)
	out := make([]LinkRow, 0, len(in))
	for _, a := range in {
		out = append(out, idx.row(a.src, a.seq, a.src))
	}
	return out
}

// AttachmentsTo returns the links written as attachments (to a file not
// read as a note, links.IsAttachment: a .go or .pdf file) that name
// document id by the rules of links.Resolve, each with its source as
// Other, by source path. The graph keeps no edge for them; the reconcile
// loop asks, since a note that links to a code file is affected when the
// file changes.
func (idx *LinkIndex) AttachmentsTo(id int64) []LinkRow {
	m, ok := idx.doc(id)
	if !ok {
		return nil
	}
	cand := []links.Candidate{{ID: id, Collection: m.Collection, RelPath: m.RelPath}}
	var out []LinkRow
	for _, a := range idx.attachedTo(links.Key(m.RelPath)) {
		sm, _ := idx.doc(a.src)
		l := idx.outOf(a.src)[a.seq]
		if a.src == id || sm.Collection != m.Collection {
			continue // Resolve reads wiki and Markdown links within their collection
		}
		if links.Resolve(l.Kind, l.Target, sm.Collection, sm.RelPath, cand) == id {
			out = append(out, idx.row(a.src, a.seq, a.src))
		}
	}
	return out
}

// Unresolved returns links that name no indexed document (attachments
// excepted), with their source as Other, by source path; limit 0 means
// all.
func (idx *LinkIndex) Unresolved(collection string, limit int) []LinkRow {
	var out []LinkRow
	idx.eachLinked(func(src int64, ls []resolvedLink) bool {
		if collection != "" && idx.collection(src) != collection {
			return true
		}
		for i, l := range ls {
			if l.dst == 0 && !l.attach {
				if limit > 0 && len(out) == limit {
					return false
				}
				out = append(out, idx.row(src, i, src))
			}
		}
		return true
	})
	return out
}

// UnresolvedFrom is Unresolved of the documents ids only, in the same
// order (by source path).
func (idx *LinkIndex) UnresolvedFrom(ids []int64) []LinkRow {
	type src struct {
		id  int64
		doc linkDoc
	}
	srcs := make([]src, 0, len(ids))
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if d, ok := idx.doc(id); ok && !seen[id] {
			seen[id] = true
			srcs = append(srcs, src{id, d})
		}
	}
	slices.SortFunc(srcs, func(a, b src) int { return cmpPath(a.doc.Collection, a.doc.RelPath, b.doc.Collection, b.doc.RelPath) })
	var out []LinkRow
	for _, s := range srcs {
		for i, l := range idx.outOf(s.id) {
			if l.dst == 0 && !l.attach {
				out = append(out, idx.row(s.id, i, s.id))
			}
		}
	}
	return out
}

// LinkStats counts links per collection of their source.
type LinkStats struct {
	Links, Unresolved, Attachments int
}

// LinkStats counts the links of each collection.
func (idx *LinkIndex) LinkStats() map[string]*LinkStats {
	return idx.stats()
}

// LinkGraph returns every document id of the given collections (all when
// none) and every resolved link between two of them, as (src, dst) pairs;
// links of a note to itself are left out.
func (idx *LinkIndex) LinkGraph(collections []string) ([]int64, [][2]int64) {
	nodes := idx.docIDs(collections)
	var edges [][2]int64
	idx.eachLinked(func(src int64, ls []resolvedLink) bool {
		for _, l := range ls {
			if l.dst != 0 && l.dst != src {
				edges = append(edges, [2]int64{src, l.dst})
			}
		}
		return true
	})
	return nodes, edges
}

// Candidates returns, for each key, the documents answering to it by file
// name or alias.
func (idx *LinkIndex) Candidates(keys []string) map[string][]links.Candidate {
	out := map[string][]links.Candidate{}
	for _, k := range keys {
		if cs := idx.candidates(nil, k); len(cs) > 0 {
			out[k] = cs
		}
	}
	return out
}

// DocName is one name a document answers to.
type DocName struct {
	DocID int64
	Name  string
	Alias bool
}

// DocNames returns every file name and alias of the given collections.
func (idx *LinkIndex) DocNames(collections []string) []DocName {
	ids := idx.docIDs(collections)
	out := make([]DocName, 0, len(ids))
	for _, id := range ids {
		d, _ := idx.doc(id)
		base := path.Base(d.RelPath)
		out = append(out, DocName{DocID: id, Name: strings.TrimSuffix(base, path.Ext(base))})
		for _, a := range idx.aliasesOf(id) {
			out = append(out, DocName{DocID: id, Name: a, Alias: true})
		}
	}
	return out
}
