package store

import "context"

// NoteName is a document with every name a link or a search box may call
// it by: its title, its file name (in RelPath) and its aliases.
type NoteName struct {
	ID         int64
	Collection string
	RelPath    string
	Hash       string
	Title      string
	Aliases    []string
}

// NoteNames lists the documents of the given collections (all when none)
// with their names, in id order. It reads the cached link index, so a
// call costs no query while nothing has been written.
func (s *Store) NoteNames(ctx context.Context, collections []string) ([]NoteName, error) {
	idx, err := s.linkIndex(ctx)
	if err != nil {
		return nil, err
	}
	ids := idx.docIDs(collections)
	out := make([]NoteName, 0, len(ids))
	for _, id := range ids {
		m := idx.docs[id]
		out = append(out, NoteName{ID: id, Collection: m.Collection, RelPath: m.RelPath, Hash: m.Hash, Title: m.Title, Aliases: idx.aliases[id]})
	}
	return out, nil
}
