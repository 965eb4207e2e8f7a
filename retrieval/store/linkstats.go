package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/retrieval/links"
)

// LinkStats counts the links of each collection. It uses the link index
// when this store holds a current one (a daemon's) or one the logged
// batches since bring up to date (linklog.go); otherwise it counts
// without building it: `gno status` spent two thirds of its time building
// the whole index (every document's metadata, both directions of every
// link, by path order) only to count (bench/RESULTS.md).
func (s *Store) LinkStats(ctx context.Context) (map[string]*LinkStats, error) {
	return readIn(ctx, s, s.linkStats)
}

func (s *Store) linkStats(ctx context.Context) (map[string]*LinkStats, error) {
	writes, err := s.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.links.mu.Lock()
	idx := s.links.idx
	s.links.mu.Unlock()
	if idx != nil && idx.writes == writes {
		return idx.stats(), nil
	}
	if idx != nil && s.linkLog.follows(idx, writes) {
		// The index follows the syncs since by an overlay (linklog.go):
		// cheaper than the count, which reads every link (a daemon's
		// status after each sync).
		idx, err := s.cachedLinks(ctx)
		if err != nil {
			return nil, err
		}
		return idx.stats(), nil
	}
	return s.countLinks(ctx)
}

// stats counts the index's links per collection.
func (idx *LinkIndex) stats() map[string]*LinkStats {
	out := map[string]*LinkStats{}
	idx.eachLinked(func(src int64, ls []resolvedLink) bool {
		st := statsOf(out, idx.collection(src))
		for _, l := range ls {
			st.count(l.attach, l.dst != 0)
		}
		return true
	})
	return out
}

func statsOf(out map[string]*LinkStats, col string) *LinkStats {
	st := out[col]
	if st == nil {
		st = &LinkStats{}
		out[col] = st
	}
	return st
}

func (st *LinkStats) count(attach, resolved bool) {
	st.Links++
	switch {
	case attach:
		st.Attachments++
	case !resolved:
		st.Unresolved++
	}
}

// countLinks resolves every link as loadLinks does (same names, same
// rules), keeping only the counts: whether a link resolves does not depend
// on the order of its candidates, so the rows are read in table order,
// without the documents' other columns or the links' reverse lists. Run
// it in a snapshot.
func (s *Store) countLinks(ctx context.Context) (map[string]*LinkStats, error) {
	type doc struct{ col, rel string }
	// The maps are sized from the largest id (ids are dense but for
	// removals): growing them a document at a time was a third of the
	// count at a million documents.
	var hint int64
	if err := s.db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM documents").Scan(&hint); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	hint = min(hint, 1<<22)
	docs := make(map[int64]doc, hint)
	names := make(map[string][]links.Candidate, hint)
	rows, err := s.db.QueryContext(ctx, "SELECT id, collection, rel_path FROM documents")
	if err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	for rows.Next() {
		var id int64
		var d doc
		if err := rows.Scan(&id, &d.col, &d.rel); err != nil {
			rows.Close()
			return nil, fmt.Errorf("count links: %w", err)
		}
		docs[id] = d
		k := links.Key(d.rel)
		names[k] = append(names[k], links.Candidate{ID: id, Collection: d.col, RelPath: d.rel})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	// Every alias is a name before any link resolves.
	rows, err = s.db.QueryContext(ctx, "SELECT doc_id, aliases FROM doc_links WHERE aliases != ''")
	if err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	for rows.Next() {
		var id int64
		var as string
		if err := rows.Scan(&id, &as); err != nil {
			rows.Close()
			return nil, fmt.Errorf("count links: %w", err)
		}
		d := docs[id]
		for _, a := range splitAliases(as) {
			if k := strings.ToLower(a); k != "" {
				names[k] = append(names[k], links.Candidate{ID: id, Collection: d.col, RelPath: d.rel, Alias: true})
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	out := map[string]*LinkStats{}
	rows, err = s.db.QueryContext(ctx, "SELECT doc_id, links FROM doc_links")
	if err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("count links: %w", err)
		}
		d := docs[id]
		ls, err := decodeLinks(data)
		if err != nil {
			return nil, fmt.Errorf("read links of %s/%s: %w (run `gno update --rebuild`)", d.col, d.rel, err)
		}
		if len(ls) == 0 {
			continue
		}
		st := statsOf(out, d.col)
		for _, l := range ls {
			switch {
			case l.Target == "":
				st.count(false, true) // a heading of the same note
			case links.IsAttachment(l.Target):
				st.count(true, false)
			default:
				st.count(false, links.Resolve(l.Kind, l.Target, d.col, d.rel, names[links.Key(l.Target)]) != 0)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	return out, nil
}
