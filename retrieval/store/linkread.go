package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
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

// linkIndex is every link of the index resolved against its documents, as
// of one value of the meta "writes" counter. Resolution needs the whole
// document set (a new note named like a link's target takes it over), so it
// happens here, once per committed change, not at write time.
type linkIndex struct {
	writes string
	// docs holds what links need of every document (a daemon keeps the
	// index for its life: a full DocMeta a document, with its collection
	// name allocated anew for each, was a third of the index's heap).
	docs map[int64]linkDoc
	// names maps links.Key of a file name or alias to its documents.
	names map[string][]links.Candidate
	// aliases are each document's front-matter aliases.
	aliases map[int64][]string
	out     map[int64][]resolvedLink
	// in lists, per target, the links naming it by source path and order.
	in map[int64][]linkAt
	// attached lists, per links.Key of the target, the attachment links
	// (no graph edge), by source path and order, for AttachmentsTo.
	attached map[string][]linkAt
	// order is every document with links, by collection and path.
	order []int64
	// noteNames is the lowercased name list NoteNames builds once per
	// index (names.go).
	noteNames nameList
}

// linkDoc is a document as the link index keeps it: Collection interned
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

// resolvedLink is a link as written plus where it points now (0: nowhere).
type resolvedLink struct {
	links.Link
	attach bool
	dst    int64
}

type linkAt struct {
	src int64
	seq int
}

// linkCache holds the Store's latest linkIndex.
type linkCache struct {
	mu  sync.Mutex
	idx *linkIndex
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
func (s *Store) linkIndex(ctx context.Context) (*linkIndex, error) {
	return readIn(ctx, s, s.cachedLinks)
}

func (s *Store) cachedLinks(ctx context.Context) (*linkIndex, error) {
	writes, err := s.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.links.mu.Lock()
	defer s.links.mu.Unlock()
	if idx := s.links.idx; idx != nil && idx.writes == writes {
		return idx, nil
	}
	idx, err := s.loadLinks(ctx)
	if err != nil {
		return nil, err
	}
	// A reader whose snapshot began before a sync committed builds the
	// older index; it keeps it for itself rather than replace the newer
	// one every later reader would then build again.
	if cur := s.links.idx; cur == nil || !olderWrites(idx.writes, cur.writes) {
		s.links.idx = idx
	}
	return idx, nil
}

// olderWrites reports whether writes value a comes before b. The counter
// is a decimal integer that every write batch increments (empty before the
// first); a value that is not one is never called older.
func olderWrites(a, b string) bool {
	if a == "" {
		return b != ""
	}
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	return errA == nil && errB == nil && x < y
}

// loadLinks reads documents and links in one statement (one snapshot) and
// resolves every link.
func (s *Store) loadLinks(ctx context.Context) (*linkIndex, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+writesSQL+`,
		d.id, d.collection, d.rel_path, d.hash, d.title, l.aliases, l.links
		FROM documents d LEFT JOIN doc_links l ON l.doc_id = d.id ORDER BY d.collection, d.rel_path`)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	idx := &linkIndex{docs: map[int64]linkDoc{}, names: map[string][]links.Candidate{},
		aliases: map[int64][]string{}, out: map[int64][]resolvedLink{}, in: map[int64][]linkAt{}, attached: map[string][]linkAt{}}
	written := map[int64][]links.Link{}
	cols := map[string]string{}
	for rows.Next() {
		var m linkDoc
		var id int64
		var aliases *string
		var hash sql.RawBytes
		var data []byte
		if err := rows.Scan(&idx.writes, &id, &m.Collection, &m.RelPath, &hash, &m.Title, &aliases, &data); err != nil {
			return nil, fmt.Errorf("read links: %w", err)
		}
		m.setHash(string(hash))
		if c, ok := cols[m.Collection]; ok {
			m.Collection = c
		} else {
			cols[m.Collection] = m.Collection
		}
		idx.docs[id] = m
		k := links.Key(m.RelPath)
		idx.names[k] = append(idx.names[k], links.Candidate{ID: id, Collection: m.Collection, RelPath: m.RelPath})
		if aliases == nil {
			continue
		}
		as := splitAliases(*aliases)
		idx.aliases[id] = as
		for _, a := range as {
			if k := strings.ToLower(a); k != "" {
				idx.names[k] = append(idx.names[k], links.Candidate{ID: id, Collection: m.Collection, RelPath: m.RelPath, Alias: true})
			}
		}
		ls, err := decodeLinks(data)
		if err != nil {
			return nil, fmt.Errorf("read links of %s/%s: %w (run `gno update --rebuild`)", m.Collection, m.RelPath, err)
		}
		if len(ls) > 0 {
			written[id] = ls
			idx.order = append(idx.order, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	for _, src := range idx.order {
		m := idx.docs[src]
		ls := written[src]
		rs := make([]resolvedLink, len(ls))
		for i, l := range ls {
			r := resolvedLink{Link: l}
			switch {
			case l.Target == "":
				r.dst = src // a heading of the same note
			case links.IsAttachment(l.Target):
				r.attach = true
				k := links.Key(l.Target)
				idx.attached[k] = append(idx.attached[k], linkAt{src, i})
			default:
				r.dst = links.Resolve(l.Kind, l.Target, m.Collection, m.RelPath, idx.names[links.Key(l.Target)])
			}
			if r.dst != 0 {
				idx.in[r.dst] = append(idx.in[r.dst], linkAt{src, i})
			}
			rs[i] = r
		}
		idx.out[src] = rs
	}
	return idx, nil
}

// docIDs returns the ids of the documents of the given collections (all
// when none), in id order.
func (idx *linkIndex) docIDs(collections []string) []int64 {
	want := map[string]bool{}
	for _, c := range collections {
		want[c] = true
	}
	ids := make([]int64, 0, len(idx.docs))
	for id, m := range idx.docs {
		if len(want) == 0 || want[m.Collection] {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (idx *linkIndex) row(src int64, seq int, other int64) LinkRow {
	l := idx.out[src][seq]
	r := LinkRow{Src: src, Seq: int64(seq), Kind: l.Kind, Target: l.Target, Fragment: l.Fragment, Alias: l.Alias, Line: l.Line, Attach: l.attach}
	if m, ok := idx.docs[other]; ok {
		r.Other = m.meta(other)
	}
	return r
}

// LinksFrom returns the links document id makes, in order.
func (s *Store) LinksFrom(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	ls := idx.out[id]
	out := make([]LinkRow, 0, len(ls))
	for i, l := range ls {
		out = append(out, idx.row(id, i, l.dst))
	}
	return out, nil
}

// LinksTo returns the links pointing at document id, by source path.
func (s *Store) LinksTo(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	in := idx.in[id]
	out := make([]LinkRow, 0, len(in))
	for _, a := range in {
		out = append(out, idx.row(a.src, a.seq, a.src))
	}
	return out, nil
}

// AttachmentsTo returns the links written as attachments (to a file not
// read as a note, links.IsAttachment: a .go or .pdf file) that name
// document id by the rules of links.Resolve, each with its source as
// Other, by source path. The graph keeps no edge for them; the reconcile
// loop asks, since a note that links to a code file is affected when the
// file changes.
func (s *Store) AttachmentsTo(ctx context.Context, id int64) ([]LinkRow, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	m, ok := idx.docs[id]
	if !ok {
		return nil, nil
	}
	cand := []links.Candidate{{ID: id, Collection: m.Collection, RelPath: m.RelPath}}
	var out []LinkRow
	for _, a := range idx.attached[links.Key(m.RelPath)] {
		sm, l := idx.docs[a.src], idx.out[a.src][a.seq]
		if a.src == id || sm.Collection != m.Collection {
			continue // Resolve reads wiki and Markdown links within their collection
		}
		if links.Resolve(l.Kind, l.Target, sm.Collection, sm.RelPath, cand) == id {
			out = append(out, idx.row(a.src, a.seq, a.src))
		}
	}
	return out, nil
}

// Unresolved returns links that name no indexed document (attachments
// excepted), with their source as Other, by source path; limit 0 means
// all.
func (s *Store) Unresolved(ctx context.Context, collection string, limit int) ([]LinkRow, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	var out []LinkRow
	for _, src := range idx.order {
		if collection != "" && idx.docs[src].Collection != collection {
			continue
		}
		for i, l := range idx.out[src] {
			if l.dst == 0 && !l.attach {
				if limit > 0 && len(out) == limit {
					return out, nil
				}
				out = append(out, idx.row(src, i, src))
			}
		}
	}
	return out, nil
}

// LinkStats counts links per collection of their source.
type LinkStats struct {
	Links, Unresolved, Attachments int
}

// LinkGraph returns every document id of the given collections (all when
// none) and every resolved link between two of them, as (src, dst) pairs;
// links of a note to itself are left out.
func (s *Store) LinkGraph(ctx context.Context, collections []string) ([]int64, [][2]int64, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, nil, err
	}
	nodes := idx.docIDs(collections)
	var edges [][2]int64
	for _, src := range idx.order {
		for _, l := range idx.out[src] {
			if l.dst != 0 && l.dst != src {
				edges = append(edges, [2]int64{src, l.dst})
			}
		}
	}
	return nodes, edges, nil
}

// Candidates returns, for each key, the documents answering to it by file
// name or alias.
func (s *Store) Candidates(ctx context.Context, keys []string) (map[string][]links.Candidate, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]links.Candidate{}
	for _, k := range keys {
		if cs := idx.names[k]; len(cs) > 0 {
			out[k] = append([]links.Candidate(nil), cs...)
		}
	}
	return out, nil
}

// DocName is one name a document answers to.
type DocName struct {
	DocID int64
	Name  string
	Alias bool
}

// DocNames returns every file name and alias of the given collections.
func (s *Store) DocNames(ctx context.Context, collections []string) ([]DocName, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	ids := idx.docIDs(collections)
	out := make([]DocName, 0, len(ids))
	for _, id := range ids {
		base := path.Base(idx.docs[id].RelPath)
		out = append(out, DocName{DocID: id, Name: strings.TrimSuffix(base, path.Ext(base))})
		for _, a := range idx.aliases[id] {
			out = append(out, DocName{DocID: id, Name: a, Alias: true})
		}
	}
	return out, nil
}
