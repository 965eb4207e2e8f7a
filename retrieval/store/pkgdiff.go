package store

import (
	"context"
	"fmt"
	"strings"
)

// PkgUnitTexts returns the Markdown of a version's units of kind whose
// text contains word (ASCII, matched case-insensitively), by document
// id. `gno packages diff` reads the few items whose docs mention
// deprecation this way instead of every unit's text.
func (s *Store) PkgUnitTexts(ctx context.Context, versionID int64, kind, word string) (map[int64]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT u.doc_id, c.content FROM pkg_units u JOIN contents c ON c.doc_id = u.doc_id
		WHERE u.version_id = ? AND u.kind = ? AND c.content LIKE ? ESCAPE '\'`, versionID, kind, "%"+likeEscaper.Replace(word)+"%")
	if err != nil {
		return nil, fmt.Errorf("read package unit texts: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, fmt.Errorf("read package unit texts: %w", err)
		}
		out[id] = text
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read package unit texts: %w", err)
	}
	return out, nil
}

// likeEscaper escapes LIKE's wildcards with the backslash ESCAPE names.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)
