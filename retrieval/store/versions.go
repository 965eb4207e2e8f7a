package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// versionsSchema keeps the earlier texts of documents, so a diff since a
// generation can be made after the file changed (schema 5). When a sync
// replaces or removes a document, its text as it was (valid for
// generations from_gen up to, not including, to_gen) is kept here. Within
// limits: a text over MaxVersionText is not kept, a document keeps the
// text of its last MaxVersionsPerDoc versions, and when all kept texts
// pass MaxVersionBytes the oldest are dropped. A dropped text leaves its
// row (size 0, content NULL), so a diff that needed it says so instead of
// guessing. `gno cleanup` drops them all (DropVersions).
const versionsSchema = `
CREATE TABLE IF NOT EXISTS versions(
	collection TEXT NOT NULL,
	rel_path TEXT NOT NULL,
	from_gen INTEGER NOT NULL,
	to_gen INTEGER NOT NULL,
	hash TEXT NOT NULL,
	size INTEGER NOT NULL,
	content TEXT,
	PRIMARY KEY(collection, rel_path, to_gen)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS versions_age ON versions(to_gen, size);
`

// The earlier-version store's limits (see versionsSchema).
const (
	MaxVersionText    = 1 << 20
	MaxVersionsPerDoc = 16
	MaxVersionBytes   = 64 << 20
)

// versionsFromKey is the meta key of the first generation whose earlier
// texts are complete: an index upgraded to schema 5, or cleaned up, has no
// texts from before it.
const versionsFromKey = "versions_from"

// keepVersion saves the current text of document id before the batch
// replaces or removes it (once per generation: the first text wins).
func (b *Batch) keepVersion(ctx context.Context, id int64) error {
	res, err := b.exec(ctx, `INSERT OR IGNORE INTO versions(collection, rel_path, from_gen, to_gen, hash, size, content)
		SELECT d.collection, d.rel_path, d.changed_gen, ?, d.hash,
			CASE WHEN length(CAST(c.content AS BLOB)) <= ? THEN length(CAST(c.content AS BLOB)) ELSE 0 END,
			CASE WHEN length(CAST(c.content AS BLOB)) <= ? THEN c.content END
		FROM documents d JOIN contents c ON c.doc_id = d.id WHERE d.id = ? AND d.changed_gen < ?`,
		b.gen, MaxVersionText, MaxVersionText, id, b.gen)
	if err != nil {
		return fmt.Errorf("keep earlier text: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		b.versioned = true
		// Only the last MaxVersionsPerDoc texts of a document stay.
		if _, err := b.exec(ctx, `UPDATE versions SET content = NULL, size = 0
			WHERE (collection, rel_path) = (SELECT collection, rel_path FROM documents WHERE id = ?) AND size > 0
			AND to_gen < (SELECT min(to_gen) FROM (SELECT v.to_gen FROM versions v JOIN documents d ON v.collection = d.collection AND v.rel_path = d.rel_path
				WHERE d.id = ? ORDER BY v.to_gen DESC LIMIT ?))`, id, id, MaxVersionsPerDoc); err != nil {
			return fmt.Errorf("keep earlier text: %w", err)
		}
	}
	return nil
}

// trimVersions drops the oldest kept texts while all of them together
// pass MaxVersionBytes.
func (b *Batch) trimVersions(ctx context.Context) error {
	var total int64
	if err := b.tx.QueryRowContext(ctx, "SELECT COALESCE(SUM(size), 0) FROM versions").Scan(&total); err != nil {
		return fmt.Errorf("trim earlier texts: %w", err)
	}
	if total <= MaxVersionBytes {
		return nil
	}
	rows, err := b.tx.QueryContext(ctx, "SELECT to_gen, size FROM versions WHERE size > 0 ORDER BY to_gen")
	if err != nil {
		return fmt.Errorf("trim earlier texts: %w", err)
	}
	cut := int64(-1)
	for rows.Next() && total > MaxVersionBytes {
		var gen, size int64
		if err := rows.Scan(&gen, &size); err != nil {
			rows.Close()
			return fmt.Errorf("trim earlier texts: %w", err)
		}
		total -= size
		cut = gen
	}
	rows.Close()
	if cut < 0 {
		return nil
	}
	if _, err := b.tx.ExecContext(ctx, "UPDATE versions SET content = NULL, size = 0 WHERE to_gen <= ? AND size > 0", cut); err != nil {
		return fmt.Errorf("trim earlier texts: %w", err)
	}
	return nil
}

// TextState says what TextAt found.
type TextState int

// The states of a document's text at a generation.
const (
	// TextKnown: Text is the document's text at that generation.
	TextKnown TextState = iota
	// TextAbsent: the document did not exist then.
	TextAbsent
	// TextDropped: it existed but its text is no longer kept.
	TextDropped
)

// TextAt returns the text document collection/rel had at generation gen.
func (s *Store) TextAt(ctx context.Context, collection, rel string, gen int64) (string, TextState, error) {
	var added, changed, id int64
	err := s.db.QueryRowContext(ctx, "SELECT id, added_gen, changed_gen FROM documents WHERE collection = ? AND rel_path = ?", collection, rel).Scan(&id, &added, &changed)
	switch {
	case err == nil && changed <= gen:
		c, err := s.Content(ctx, id)
		return c, TextKnown, err
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return "", 0, fmt.Errorf("read earlier text of %s/%s: %w", collection, rel, err)
	}
	var content sql.NullString
	err = s.db.QueryRowContext(ctx, "SELECT content FROM versions WHERE collection = ? AND rel_path = ? AND from_gen <= ? AND to_gen > ? ORDER BY to_gen LIMIT 1",
		collection, rel, gen, gen).Scan(&content)
	switch {
	case err == nil && content.Valid:
		return content.String, TextKnown, nil
	case err == nil:
		return "", TextDropped, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", 0, fmt.Errorf("read earlier text of %s/%s: %w", collection, rel, err)
	}
	from, err := s.Meta(ctx, versionsFromKey)
	if err != nil {
		return "", 0, fmt.Errorf("read earlier text of %s/%s: %w", collection, rel, err)
	}
	if f, _ := strconv.ParseInt(from, 10, 64); gen < f {
		return "", TextDropped, nil // history before f was never kept
	}
	return "", TextAbsent, nil
}

// VersionsSize is the number of earlier texts kept and their bytes.
func (s *Store) VersionsSize(ctx context.Context) (rows, bytes int64, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT count(*), COALESCE(SUM(size), 0) FROM versions").Scan(&rows, &bytes)
	if err != nil {
		return 0, 0, fmt.Errorf("count earlier texts: %w", err)
	}
	return rows, bytes, nil
}

// DropVersions forgets every earlier text (gno cleanup); diffs reaching
// back before now say their earlier text is gone.
func (s *Store) DropVersions(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	defer tx.Rollback()
	if err := markVersionsFrom(ctx, tx); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM versions"); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	return nil
}

// markVersionsFrom records that earlier texts are complete from the
// current generation on: every change after it keeps the text it replaced.
func markVersionsFrom(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) SELECT ?, CAST(COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'), 0) AS TEXT)
		WHERE true ON CONFLICT(key) DO UPDATE SET value = excluded.value`, versionsFromKey)
	return err
}
