package store

import (
	"context"
	"fmt"
)

// PkgSymbolsByLeaf returns the API items of the versions whose last
// name part is one of leaves (lowercase, as symbolLeaf makes them): the
// candidates of an exact symbol lookup, which the caller ranks by the
// rest of the name. It reads the (version_id, leaf) index once per
// version and leaf; at most limit rows.
func (s *Store) PkgSymbolsByLeaf(ctx context.Context, versionIDs []int64, leaves []string, limit int) ([]PkgUnit, error) {
	if len(versionIDs) == 0 || len(leaves) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(versionIDs)+len(leaves)+1)
	for _, id := range versionIDs {
		args = append(args, id)
	}
	for _, l := range leaves {
		args = append(args, l)
	}
	args = append(args, limit)
	us, err := s.pkgUnits(ctx, "u.version_id IN ("+placeholders(len(versionIDs))+") AND u.leaf IN ("+placeholders(len(leaves))+
		") AND u.kind = 'api' ORDER BY length(u.symbol), u.doc_id LIMIT ?", args...)
	if err != nil {
		return nil, fmt.Errorf("look up package symbols: %w", err)
	}
	return us, nil
}

// PkgFirstChunks returns the first chunk of each document (by id): where
// an API item's signature and doc begin.
func (s *Store) PkgFirstChunks(ctx context.Context, docIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(docIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(docIDs))
	for i, id := range docIDs {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, "SELECT doc_id, id FROM chunks c WHERE doc_id IN ("+placeholders(len(docIDs))+
		") AND seq = (SELECT min(seq) FROM chunks WHERE doc_id = c.doc_id)", args...)
	if err != nil {
		return nil, fmt.Errorf("read first chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc, chunk int64
		if err := rows.Scan(&doc, &chunk); err != nil {
			return nil, fmt.Errorf("read first chunks: %w", err)
		}
		out[doc] = chunk
	}
	return out, rows.Err()
}
