package store

import (
	"context"
	"fmt"
)

// skippedSchema records files a sync could not convert, so that an
// unchanged file is not converted again on every sync and status can say
// what was left out and why.
const skippedSchema = `
CREATE TABLE IF NOT EXISTS skipped(
	collection TEXT NOT NULL,
	rel_path TEXT NOT NULL,
	hash TEXT NOT NULL,
	size INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	reason TEXT NOT NULL,
	detail TEXT NOT NULL DEFAULT '',
	PRIMARY KEY(collection, rel_path)) WITHOUT ROWID;
`

// SkipState is a file a sync skipped because it could not be converted.
type SkipState struct {
	Hash    string
	Size    int64
	MtimeNS int64
	Reason  string
	Detail  string
}

// SkipStates returns the recorded conversion failures of a collection,
// keyed by relative path.
func (s *Store) SkipStates(ctx context.Context, collection string) (map[string]SkipState, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT rel_path, hash, size, mtime_ns, reason, detail FROM skipped WHERE collection = ?", collection)
	if err != nil {
		return nil, fmt.Errorf("read skipped files of %s: %w", collection, err)
	}
	defer rows.Close()
	out := map[string]SkipState{}
	for rows.Next() {
		var st SkipState
		var rel string
		if err := rows.Scan(&rel, &st.Hash, &st.Size, &st.MtimeNS, &st.Reason, &st.Detail); err != nil {
			return nil, err
		}
		out[rel] = st
	}
	return out, rows.Err()
}

// SkipCounts counts the recorded conversion failures of a collection by
// reason.
func (s *Store) SkipCounts(ctx context.Context, collection string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT reason, count(*) FROM skipped WHERE collection = ? GROUP BY reason", collection)
	if err != nil {
		return nil, fmt.Errorf("count skipped files of %s: %w", collection, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var r string
		var n int
		if err := rows.Scan(&r, &n); err != nil {
			return nil, err
		}
		out[r] = n
	}
	return out, rows.Err()
}

// PutSkip records that a file could not be converted.
func (b *Batch) PutSkip(ctx context.Context, collection, rel string, st SkipState) error {
	_, err := b.exec(ctx, `INSERT INTO skipped(collection, rel_path, hash, size, mtime_ns, reason, detail) VALUES(?,?,?,?,?,?,?)
		ON CONFLICT(collection, rel_path) DO UPDATE SET hash=excluded.hash, size=excluded.size, mtime_ns=excluded.mtime_ns, reason=excluded.reason, detail=excluded.detail`,
		collection, rel, st.Hash, st.Size, st.MtimeNS, st.Reason, st.Detail)
	if err != nil {
		return fmt.Errorf("record skipped %s/%s: %w", collection, rel, err)
	}
	return nil
}

// DeleteSkip forgets a recorded conversion failure.
func (b *Batch) DeleteSkip(ctx context.Context, collection, rel string) error {
	if _, err := b.exec(ctx, "DELETE FROM skipped WHERE collection = ? AND rel_path = ?", collection, rel); err != nil {
		return fmt.Errorf("forget skipped %s/%s: %w", collection, rel, err)
	}
	return nil
}

// DocCount counts the documents of a collection (from the (collection,
// rel_path) index, no row read): a sync of a few named files reports the
// rest as unchanged.
func (s *Store) DocCount(ctx context.Context, collection string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM documents WHERE collection = ?", collection).Scan(&n); err != nil {
		return 0, fmt.Errorf("count documents of %s: %w", collection, err)
	}
	return n, nil
}
