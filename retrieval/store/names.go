package store

import (
	"path"
	"slices"
	"strings"

	"github.com/gnosearch/gno/retrieval/links"
)

// NoteName is a document with every name a link or a search box may call
// it by, lowercased once for matching as you type.
type NoteName struct {
	ID         int64
	Collection string
	RelPath    string
	Hash       string
	Title      string
	Aliases    []string
	// Stem is the file name without its extension; Shared is set when
	// another document has the same one (a link must then name a path).
	Stem   string
	Shared bool
	// TitleLower, StemLower and AliasesLower are the names lowercased.
	TitleLower, StemLower string
	AliasesLower          []string
}

// NoteNames lists the documents of the given collections (all when none)
// with their names, in id order. It is derived from the cached link index
// on each call, not kept: at a million documents a kept list was a
// quarter of a daemon's heap (its own hash text and lowercased names)
// for the few calls that need it (completion, the whole-graph view, a
// store copy); a call costs no query.
func (idx *LinkIndex) NoteNames(collections []string) []NoteName {
	var want map[string]bool
	if len(collections) > 0 {
		want = map[string]bool{}
		for _, c := range collections {
			want[c] = true
		}
	}
	return buildNames(idx, want)
}

// NoteNamesOf is NoteNames of the documents ids (in id order, those
// that exist): a graph view that draws a sample of a million documents
// reads the names of the sample only (at 1M the whole list was ~0.3 GB
// and 6 s of CPU after every sync).
func (idx *LinkIndex) NoteNamesOf(ids []int64) []NoteName {
	ids = slices.Sorted(slices.Values(ids))
	out := make([]NoteName, 0, len(ids))
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			continue
		}
		if m, ok := idx.doc(id); ok {
			out = append(out, idx.noteName(id, m))
		}
	}
	return out
}

// buildNames lists the documents of the collections in want (all when
// nil). Shared counts other documents of every collection, as links
// resolve names across them.
func buildNames(idx *LinkIndex, want map[string]bool) []NoteName {
	out := make([]NoteName, 0, idx.numDocs())
	idx.eachDoc(func(id int64, m linkDoc) {
		if want != nil && !want[m.Collection] {
			return
		}
		out = append(out, idx.noteName(id, m))
	})
	return out
}

// noteName is document id's NoteName (m: the document).
func (idx *LinkIndex) noteName(id int64, m linkDoc) NoteName {
	base := path.Base(m.RelPath)
	stem := strings.TrimSuffix(base, path.Ext(base))
	n := NoteName{ID: id, Collection: m.Collection, RelPath: m.RelPath, Hash: m.Hash(), Title: m.Title, Aliases: idx.aliasesOf(id),
		Stem: stem, Shared: idx.fileNamed(links.Key(m.RelPath)) > 1, TitleLower: strings.ToLower(m.Title), StemLower: strings.ToLower(stem)}
	for _, a := range n.Aliases {
		n.AliasesLower = append(n.AliasesLower, strings.ToLower(a))
	}
	return n
}

// fileNamed counts the documents whose file name (not an alias) has key k.
func (idx *LinkIndex) fileNamed(k string) int {
	n := 0
	if idx.ov != nil {
		for _, c := range idx.candidates(nil, k) {
			if !c.Alias {
				n++
			}
		}
		return n
	}
	idx.named(k, func(r *nameRec) {
		if !r.alias {
			n++
		}
	})
	return n
}
