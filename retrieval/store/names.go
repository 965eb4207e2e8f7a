package store

import (
	"path"
	"sort"
	"strings"
	"sync"

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

// nameList is a LinkIndex's documents as NoteNames, built on first use.
type nameList struct {
	once  sync.Once
	names []NoteName
}

// NoteNames lists the documents of the given collections (all when none)
// with their names, in id order. It is derived from the cached link index
// once per write, so a call costs no query and no lowercasing; callers
// must not change the slice.
func (idx *LinkIndex) NoteNames(collections []string) []NoteName {
	idx.noteNames.once.Do(func() { idx.noteNames.names = buildNames(idx) })
	all := idx.noteNames.names
	if len(collections) == 0 {
		return all
	}
	want := map[string]bool{}
	for _, c := range collections {
		want[c] = true
	}
	out := make([]NoteName, 0, len(all))
	for _, n := range all {
		if want[n.Collection] {
			out = append(out, n)
		}
	}
	return out
}

func buildNames(idx *LinkIndex) []NoteName {
	ids := make([]int64, 0, len(idx.docs))
	keys := map[string]int{}
	for id, m := range idx.docs {
		ids = append(ids, id)
		keys[links.Key(m.RelPath)]++
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]NoteName, 0, len(ids))
	for _, id := range ids {
		m := idx.docs[id]
		base := path.Base(m.RelPath)
		stem := strings.TrimSuffix(base, path.Ext(base))
		n := NoteName{ID: id, Collection: m.Collection, RelPath: m.RelPath, Hash: m.Hash(), Title: m.Title, Aliases: idx.aliases[id],
			Stem: stem, Shared: keys[links.Key(m.RelPath)] > 1, TitleLower: strings.ToLower(m.Title), StemLower: strings.ToLower(stem)}
		for _, a := range n.Aliases {
			n.AliasesLower = append(n.AliasesLower, strings.ToLower(a))
		}
		out = append(out, n)
	}
	return out
}
