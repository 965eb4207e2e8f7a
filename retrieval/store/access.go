package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Access tokens.
//
// The tokens of a shared index live in the index, so every server of one
// index (several `gno serve` over one Postgres database) honours a token
// the moment `gno token create` commits it, and a revocation as soon as
// the next request reads them. The table is created by the first token
// written, not by the schema: an index that was never shared has none,
// and reads of an index without it see no tokens.
const accessSchema = `
CREATE TABLE IF NOT EXISTS access_tokens(
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	scope TEXT NOT NULL,
	sha256 TEXT NOT NULL UNIQUE,
	created INTEGER NOT NULL,
	expires INTEGER NOT NULL,
	last_used INTEGER NOT NULL);
`

// AccessToken is one access token as the index keeps it: the SHA-256 of
// its secret, never the secret. Times are whole seconds; Expires and
// LastUsed are zero when the token never expires or was never used.
type AccessToken struct {
	ID, Name, Scope, SHA256    string
	Created, Expires, LastUsed time.Time
}

// UnixOf is t in seconds, 0 for the zero time (the access tokens'
// columns; the Postgres store writes them with it too).
func UnixOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// TimeOf is the time of unix seconds, the zero time for 0 (the access
// tokens' columns; the Postgres store reads them with it too).
func TimeOf(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// AccessTokens returns every access token of the index, in no order.
func (s *Store) AccessTokens(ctx context.Context) ([]AccessToken, error) {
	return s.accessTokens(ctx, "")
}

// AccessTokenByHash returns the token whose secret hashes to sha256 (one
// indexed row, whatever the number of tokens: a request's check); false
// when there is none.
func (s *Store) AccessTokenByHash(ctx context.Context, sha256 string) (AccessToken, bool, error) {
	ts, err := s.accessTokens(ctx, sha256)
	if err != nil || len(ts) == 0 {
		return AccessToken{}, false, err
	}
	return ts[0], true, nil
}

// accessTokens reads every token, or the one of hash when it is not "".
func (s *Store) accessTokens(ctx context.Context, hash string) ([]AccessToken, error) {
	q, args := "SELECT id, name, scope, sha256, created, expires, last_used FROM access_tokens", []any{}
	if hash != "" {
		q, args = q+" WHERE sha256 = ?", append(args, hash)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, fmt.Errorf("read access tokens: %w", err)
	}
	defer rows.Close()
	var out []AccessToken
	for rows.Next() {
		var t AccessToken
		var c, e, u int64
		if err := rows.Scan(&t.ID, &t.Name, &t.Scope, &t.SHA256, &c, &e, &u); err != nil {
			return nil, fmt.Errorf("read access tokens: %w", err)
		}
		t.Created, t.Expires, t.LastUsed = TimeOf(c), TimeOf(e), TimeOf(u)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read access tokens: %w", err)
	}
	return out, nil
}

// PutAccessToken adds t; false (and nothing written) when its id or hash
// is taken already.
func (s *Store) PutAccessToken(ctx context.Context, t AccessToken) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, accessSchema); err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO access_tokens(id, name, scope, sha256, created, expires, last_used) VALUES(?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
		t.ID, t.Name, t.Scope, t.SHA256, UnixOf(t.Created), UnixOf(t.Expires), UnixOf(t.LastUsed))
	if err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	n, _ := res.RowsAffected()
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("write access token: %w", err)
	}
	return n == 1, nil
}

// DeleteAccessToken removes the token with id; false when there is none.
func (s *Store) DeleteAccessToken(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, "DELETE FROM access_tokens WHERE id = ?", id)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return false, nil
		}
		return false, fmt.Errorf("revoke access token: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// TouchAccessTokens moves the last-used time of each token in used
// forward (never back: servers flush their uses in any order).
func (s *Store) TouchAccessTokens(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record token use: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "UPDATE access_tokens SET last_used = ? WHERE id = ? AND last_used < ?")
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil
		}
		return fmt.Errorf("record token use: %w", err)
	}
	defer st.Close()
	for id, t := range used {
		if _, err := st.ExecContext(ctx, UnixOf(t), id, UnixOf(t)); err != nil {
			return fmt.Errorf("record token use: %w", err)
		}
	}
	return tx.Commit()
}
