package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// Access tokens (store/access.go): the table is made by the first token
// written, so every gno server of the database sees a token once `gno
// token create` commits it.
const accessSchema = `
CREATE TABLE IF NOT EXISTS access_tokens(
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	scope TEXT NOT NULL,
	sha256 TEXT NOT NULL UNIQUE,
	created BIGINT NOT NULL,
	expires BIGINT NOT NULL,
	last_used BIGINT NOT NULL);
`

// noTable reports the error of a statement on a table that does not
// exist (an index that never had a token).
func noTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42P01"
}

// AccessTokens returns every access token of the index, in no order.
func (s *Store) AccessTokens(ctx context.Context) ([]store.AccessToken, error) {
	return s.accessTokens(ctx, "")
}

// AccessTokenByHash returns the token whose secret hashes to sha256 (one
// indexed row: a request's check); false when there is none.
func (s *Store) AccessTokenByHash(ctx context.Context, sha256 string) (store.AccessToken, bool, error) {
	ts, err := s.accessTokens(ctx, sha256)
	if err != nil || len(ts) == 0 {
		return store.AccessToken{}, false, err
	}
	return ts[0], true, nil
}

// accessTokens reads every token, or the one of hash when it is not "".
func (s *Store) accessTokens(ctx context.Context, hash string) ([]store.AccessToken, error) {
	q, args := "SELECT id, name, scope, sha256, created, expires, last_used FROM access_tokens", []any{}
	if hash != "" {
		q, args = q+" WHERE sha256 = $1", append(args, hash)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		if noTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read access tokens: %w", err)
	}
	defer rows.Close()
	var out []store.AccessToken
	for rows.Next() {
		var t store.AccessToken
		var c, e, u int64
		if err := rows.Scan(&t.ID, &t.Name, &t.Scope, &t.SHA256, &c, &e, &u); err != nil {
			return nil, fmt.Errorf("read access tokens: %w", err)
		}
		t.Created, t.Expires, t.LastUsed = store.TimeOf(c), store.TimeOf(e), store.TimeOf(u)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		if noTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read access tokens: %w", err)
	}
	return out, nil
}

// PutAccessToken adds t; false (and nothing written) when its id or hash
// is taken already.
func (s *Store) PutAccessToken(ctx context.Context, t store.AccessToken) (bool, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	defer tx.Rollback(ctx)
	// Two processes creating the table at once would collide in the
	// catalog: the schema's lock orders them, as at open.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey+1); err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	if _, err := tx.Exec(ctx, accessSchema); err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	res, err := tx.Exec(ctx, "INSERT INTO access_tokens(id, name, scope, sha256, created, expires, last_used) VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT DO NOTHING",
		t.ID, t.Name, t.Scope, t.SHA256, store.UnixOf(t.Created), store.UnixOf(t.Expires), store.UnixOf(t.LastUsed))
	if err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	return res.RowsAffected() == 1, nil
}

// DeleteAccessToken removes the token with id; false when there is none.
func (s *Store) DeleteAccessToken(ctx context.Context, id string) (bool, error) {
	res, err := s.pool.Exec(ctx, "DELETE FROM access_tokens WHERE id = $1", id)
	if err != nil {
		if noTable(err) {
			return false, nil
		}
		return false, fmt.Errorf("revoke access token: %w", err)
	}
	return res.RowsAffected() == 1, nil
}

// TouchAccessTokens moves the last-used time of each token in used
// forward, in one statement. Its rows are locked in id order first: the
// update alone locks them in the order its plan visits them (the ids'
// array order, from a map, or the table's), and two servers flushing the
// same tokens at once could each hold a row the other waits for, one of
// them then failing with "deadlock detected".
func (s *Store) TouchAccessTokens(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ctx = store.Bookkeeping(ctx)
	ids, secs := make([]string, 0, len(used)), make([]int64, 0, len(used))
	for id, t := range used {
		ids, secs = append(ids, id), append(secs, store.UnixOf(t))
	}
	_, err := s.pool.Exec(ctx, `WITH l AS MATERIALIZED (
			SELECT a.id, u.t FROM access_tokens a JOIN unnest($1::text[], $2::bigint[]) AS u(id, t) ON a.id = u.id
			WHERE a.last_used < u.t ORDER BY a.id FOR UPDATE OF a)
		UPDATE access_tokens a SET last_used = l.t FROM l WHERE a.id = l.id AND a.last_used < l.t`, ids, secs)
	if err != nil && !noTable(err) {
		return fmt.Errorf("record token use: %w", err)
	}
	return nil
}
