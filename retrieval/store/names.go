package store

import (
	"path"
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

// buildNames lists the documents of the collections in want (all when
// nil). Shared counts other documents of every collection, as links
// resolve names across them.
func buildNames(idx *LinkIndex, want map[string]bool) []NoteName {
	out := make([]NoteName, 0, idx.numDocs())
	idx.eachDoc(func(id int64, m linkDoc) {
		if want != nil && !want[m.Collection] {
			return
		}
		base := path.Base(m.RelPath)
		stem := strings.TrimSuffix(base, path.Ext(base))
		n := NoteName{ID: id, Collection: m.Collection, RelPath: m.RelPath, Hash: m.Hash(), Title: m.Title, Aliases: idx.aliasesOf(id),
			Stem: stem, Shared: idx.fileNamed(links.Key(m.RelPath)) > 1, TitleLower: strings.ToLower(m.Title), StemLower: strings.ToLower(stem)}
		for _, a := range n.Aliases {
			n.AliasesLower = append(n.AliasesLower, strings.ToLower(a))
		}
		out = append(out, n)
	})
	return out
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
