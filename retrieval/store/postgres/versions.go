package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5"
)

// Earlier texts, as SQLite keeps them (store/versions.go): before a
// document is replaced or removed its text is kept with the generations
// it was current for, at most store.MaxVersionText bytes each, its last
// store.MaxVersionsPerDoc, store.MaxVersionBytes in all (the oldest
// dropped first, their rows kept so a read can say "dropped").

// versionsFrom is the meta key of the generation from which texts are
// kept (DropVersions moves it).
const versionsFrom = "versions_from"

// keepVersion queues the keeping of the text of the document doc selects
// (by path: $1, $2; by id: $1), and the cap on its number of texts.
func (b *batch) keepVersion(doc string, args ...any) {
	b.versioned = true
	n := len(args)
	gen, limit, last := "$"+strconv.Itoa(n+1), "$"+strconv.Itoa(n+2), "$"+strconv.Itoa(n+1)
	b.queue(`INSERT INTO versions(collection, rel_path, from_gen, to_gen, hash, size, content)
		SELECT d.collection, d.rel_path, d.changed_gen, `+gen+`, d.hash,
			CASE WHEN octet_length(c.content) <= `+limit+` THEN octet_length(c.content) ELSE 0 END,
			CASE WHEN octet_length(c.content) <= `+limit+` THEN c.content END
		FROM documents d JOIN contents c ON c.doc_id = d.id WHERE d.id IN (`+doc+`) AND d.changed_gen < `+gen+`
		ON CONFLICT DO NOTHING`, append(args[:n:n], b.gen, store.MaxVersionText)...)
	b.queue(`UPDATE versions v SET content = NULL, size = 0 FROM documents d
		WHERE d.id IN (`+doc+`) AND v.collection = d.collection AND v.rel_path = d.rel_path AND v.size > 0
		AND v.to_gen < (SELECT min(to_gen) FROM (SELECT w.to_gen FROM versions w WHERE w.collection = d.collection AND w.rel_path = d.rel_path
			ORDER BY w.to_gen DESC LIMIT `+last+`) k)`, append(args[:n:n], store.MaxVersionsPerDoc)...)
}

// trimVersions drops the oldest texts while all of them weigh more than
// store.MaxVersionBytes; Commit runs it when the batch kept any.
func (b *batch) trimVersions(ctx context.Context) error {
	_, err := b.tx.Exec(ctx, `WITH t AS (SELECT to_gen, size, sum(size) OVER (ORDER BY to_gen DESC, collection DESC, rel_path DESC) AS newer
		FROM versions WHERE size > 0)
		UPDATE versions SET content = NULL, size = 0
		WHERE size > 0 AND to_gen <= (SELECT max(to_gen) FROM t WHERE newer > $1)`, store.MaxVersionBytes)
	if err != nil {
		return fmt.Errorf("trim earlier texts: %w", err)
	}
	return nil
}

// TextAt returns the text the document at collection/rel had at
// generation gen.
func (s *Store) TextAt(ctx context.Context, collection, rel string, gen int64) (string, store.TextState, error) {
	if !storable(collection, rel) {
		// Never a document here: nothing was there at any generation.
		return "", store.TextAbsent, nil
	}
	type answer struct {
		text  string
		state store.TextState
	}
	a, err := readIn(ctx, s, func(ctx context.Context) (answer, error) {
		var id, changed int64
		err := s.one(ctx, "SELECT id, changed_gen FROM documents WHERE collection = $1 AND rel_path = $2", []any{collection, rel}, &id, &changed)
		switch {
		case err == nil && changed <= gen:
			c, err := s.Content(ctx, id)
			return answer{c, store.TextKnown}, err
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return answer{}, err
		}
		var content *string
		err = s.one(ctx, "SELECT content FROM versions WHERE collection = $1 AND rel_path = $2 AND from_gen <= $3 AND to_gen > $3 ORDER BY to_gen LIMIT 1",
			[]any{collection, rel, gen}, &content)
		switch {
		case err == nil && content != nil:
			return answer{*content, store.TextKnown}, nil
		case err == nil:
			return answer{"", store.TextDropped}, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return answer{}, err
		}
		from, err := s.Meta(ctx, versionsFrom)
		if err != nil {
			return answer{}, err
		}
		if f, _ := strconv.ParseInt(from, 10, 64); gen < f {
			return answer{"", store.TextDropped}, nil
		}
		return answer{"", store.TextAbsent}, nil
	})
	if err != nil {
		return "", 0, fmt.Errorf("read earlier text of %s/%s: %w", collection, rel, err)
	}
	return a.text, a.state, nil
}

// VersionsSize counts the kept texts and their bytes.
func (s *Store) VersionsSize(ctx context.Context) (rows, bytes int64, err error) {
	if err := s.one(ctx, "SELECT count(*), coalesce(sum(size), 0) FROM versions", nil, &rows, &bytes); err != nil {
		return 0, 0, fmt.Errorf("count earlier texts: %w", err)
	}
	return rows, bytes, nil
}

// DropVersions forgets every earlier text; texts are kept again from the
// current generation on.
func (s *Store) DropVersions(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := s.fence(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES($1, coalesce((SELECT value FROM meta WHERE key = 'generation'), '0'))
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, versionsFrom); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM versions"); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("drop earlier texts: %w", err)
	}
	return nil
}
