package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

// FileName is the token file an older gno kept in the index directory
// (imported into the index on first use).
const FileName = "tokens.json"

// Scope is what a token may do.
type Scope string

// The scopes: read runs searches and reads documents; write also runs the
// write tools (sync, embed, tag, capture, collections).
const (
	Read  Scope = "read"
	Write Scope = "write"
)

// CanWrite reports whether the scope allows writes.
func (s Scope) CanWrite() bool { return s == Write }

// Token is what the store knows of an access token; never its secret.
type Token struct {
	ID      string    `json:"id"`
	Name    string    `json:"name,omitempty"`
	Scope   Scope     `json:"scope"`
	Created time.Time `json:"created"`
	// Expires is zero for a token that never expires.
	Expires time.Time `json:"expires,omitzero"`
	// LastUsed is written at most once a minute by a running server.
	LastUsed time.Time `json:"lastUsed,omitzero"`
}

// Expired reports whether t has expired at now.
func (t Token) Expired(now time.Time) bool { return !t.Expires.IsZero() && !now.Before(t.Expires) }

// Errors of Verify and Lookup.
var (
	ErrInvalidToken = errors.New("invalid or revoked access token")
	ErrExpiredToken = errors.New("access token expired")
)

// fileVersion is the token file's format version.
const fileVersion = 1

// tokenFile is the JSON of tokens.json, the token file of gno before
// tokens moved into the index: a Store imports it once.
type tokenFile struct {
	Version int          `json:"version"`
	Tokens  []storedItem `json:"tokens"`
}

type storedItem struct {
	Token
	SHA256 string `json:"sha256"`
}

// flushEvery bounds how often Verify writes last-used times.
const flushEvery = time.Minute

// Keeper keeps the token records: the index's store (store.Backend), so
// that every server of one index, SQLite or Postgres, reads the same
// tokens. Its methods' contract is the store's (retrieval/store,
// access.go).
type Keeper interface {
	AccessTokens(ctx context.Context) ([]store.AccessToken, error)
	AccessTokenByHash(ctx context.Context, sha256 string) (store.AccessToken, bool, error)
	PutAccessToken(ctx context.Context, t store.AccessToken) (bool, error)
	DeleteAccessToken(ctx context.Context, id string) (bool, error)
	TouchAccessTokens(ctx context.Context, used map[string]time.Time) error
}

// Store is the access tokens of one index. Its methods are safe for
// concurrent use, and any number of processes, on any machines, may
// share one index's tokens: each check reads them from the index, so a
// token created or revoked anywhere counts on every server from its next
// request.
type Store struct {
	keep Keeper
	file string // tokens.json, imported once

	importMu sync.Mutex
	imported bool

	usedMu   sync.Mutex
	used     map[string]time.Time
	flushed  time.Time
	flushing atomic.Bool
}

// NewStore returns the tokens kept by k, the store of the index whose
// data directory is indexDir (where an older gno kept tokens.json: it is
// imported into k on first use and renamed tokens.json.imported).
func NewStore(k Keeper, indexDir string) *Store {
	return &Store{keep: k, file: filepath.Join(indexDir, FileName), used: map[string]time.Time{}, flushed: time.Now()}
}

// records returns every stored token, after the one-time import.
func (s *Store) records(ctx context.Context) ([]store.AccessToken, error) {
	if err := s.importFile(ctx); err != nil {
		return nil, err
	}
	recs, err := s.keep.AccessTokens(ctx)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "cannot read the index's access tokens")
	}
	return recs, nil
}

func tokenOf(r store.AccessToken) Token {
	return Token{ID: r.ID, Name: r.Name, Scope: Scope(r.Scope), Created: r.Created, Expires: r.Expires, LastUsed: r.LastUsed}
}

// List returns every token, newest first.
func (s *Store) List(ctx context.Context) ([]Token, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(recs))
	for _, r := range recs {
		out = append(out, tokenOf(r))
	}
	slices.SortStableFunc(out, func(a, b Token) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Active counts the tokens that have not expired.
func (s *Store) Active(ctx context.Context) (int, error) {
	toks, err := s.List(ctx)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	n := 0
	for _, t := range toks {
		if !t.Expired(now) {
			n++
		}
	}
	return n, nil
}

// Create makes a token and returns its secret, which is shown once and
// stored nowhere. ttl 0 means it never expires.
func (s *Store) Create(ctx context.Context, name string, scope Scope, ttl time.Duration) (string, Token, error) {
	if scope != Read && scope != Write {
		return "", Token{}, gnoerr.New(gnoerr.InvalidInput, "token scope must be read or write, not %q", scope)
	}
	if err := validName(name); err != nil {
		return "", Token{}, err
	}
	if ttl < 0 {
		return "", Token{}, gnoerr.New(gnoerr.InvalidInput, "token lifetime must be positive")
	}
	if err := s.importFile(ctx); err != nil {
		return "", Token{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return "", Token{}, fmt.Errorf("new token: %w", err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	tok := Token{Name: name, Scope: scope, Created: now}
	if ttl > 0 {
		tok.Expires = now.Add(ttl)
	}
	// A taken id draws again (the hash of a fresh secret is never taken).
	for range 100 {
		if tok.ID, err = newID(); err != nil {
			return "", Token{}, err
		}
		ok, err := s.keep.PutAccessToken(ctx, store.AccessToken{ID: tok.ID, Name: name, Scope: string(scope), SHA256: hashToken(secret), Created: tok.Created, Expires: tok.Expires})
		if err != nil {
			return "", Token{}, gnoerr.Wrap(gnoerr.Unavailable, err, "cannot store the access token in the index")
		}
		if ok {
			return secret, tok, nil
		}
	}
	return "", Token{}, errors.New("could not draw a unique token id")
}

// Revoke deletes the token with id. Every running server refuses it from
// its next request.
func (s *Store) Revoke(ctx context.Context, id string) (Token, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return Token{}, err
	}
	i := slices.IndexFunc(recs, func(r store.AccessToken) bool { return r.ID == id })
	if i < 0 {
		return Token{}, gnoerr.New(gnoerr.NotFound, "no token with id %q (see gno token list)", id)
	}
	ok, err := s.keep.DeleteAccessToken(ctx, id)
	if err != nil {
		return Token{}, gnoerr.Wrap(gnoerr.Unavailable, err, "cannot revoke the access token")
	}
	if !ok {
		return Token{}, gnoerr.New(gnoerr.NotFound, "no token with id %q (see gno token list)", id)
	}
	return tokenOf(recs[i]), nil
}

// Verify checks a presented secret: its format, then its hash, looked up
// in the index (one indexed row, however many tokens there are; the
// lookup's timing can tell at most about a SHA-256 of 256 random bits,
// nothing of a secret) and compared again in constant time. It returns
// ErrInvalidToken, ErrExpiredToken, or an error reading the tokens (the
// caller refuses the request: tokens that cannot be read admit nobody).
func (s *Store) Verify(ctx context.Context, secret string) (Token, error) {
	if ParseToken(secret) != nil {
		return Token{}, ErrInvalidToken
	}
	if err := s.importFile(ctx); err != nil {
		return Token{}, err
	}
	sum := hashToken(secret)
	rec, ok, err := s.keep.AccessTokenByHash(ctx, sum)
	if err != nil {
		return Token{}, gnoerr.Wrap(gnoerr.Unavailable, err, "cannot read the index's access tokens")
	}
	if !ok || subtle.ConstantTimeCompare([]byte(sum), []byte(rec.SHA256)) != 1 {
		return Token{}, ErrInvalidToken
	}
	tok := tokenOf(rec)
	now := time.Now()
	if tok.Expired(now) {
		return tok, ErrExpiredToken
	}
	s.markUsed(tok.ID, now)
	return tok, nil
}

// Lookup returns the token with id if it still exists and has not
// expired (a login session lives no longer than its token).
func (s *Store) Lookup(ctx context.Context, id string) (Token, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return Token{}, err
	}
	i := slices.IndexFunc(recs, func(r store.AccessToken) bool { return r.ID == id })
	if i < 0 {
		return Token{}, ErrInvalidToken
	}
	tok := tokenOf(recs[i])
	if tok.Expired(time.Now()) {
		return tok, ErrExpiredToken
	}
	return tok, nil
}

// Flush writes the last-used times Verify recorded since the last flush.
func (s *Store) Flush(ctx context.Context) error {
	s.usedMu.Lock()
	used := s.used
	s.used = map[string]time.Time{}
	s.flushed = time.Now()
	s.usedMu.Unlock()
	if len(used) == 0 {
		return nil
	}
	for id, t := range used {
		used[id] = t.UTC().Truncate(time.Second)
	}
	return s.keep.TouchAccessTokens(ctx, used)
}

// markUsed records a use and, at most once a minute, flushes in the
// background (a failed flush loses only last-used times).
func (s *Store) markUsed(id string, now time.Time) {
	s.usedMu.Lock()
	s.used[id] = now
	due := now.Sub(s.flushed) >= flushEvery
	s.usedMu.Unlock()
	if due && s.flushing.CompareAndSwap(false, true) {
		go func() {
			defer s.flushing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = s.Flush(ctx)
		}()
	}
}

// importFile moves the tokens of tokens.json into the index, once: each
// token keeps its id and hash (a token already there is left as it is),
// and the file is renamed tokens.json.imported, so a revocation in the
// index is never undone by the file. A damaged file stops every check,
// never admits a wrong token or drops a revocation.
func (s *Store) importFile(ctx context.Context) error {
	s.importMu.Lock()
	defer s.importMu.Unlock()
	if s.imported {
		return nil
	}
	data, err := os.ReadFile(s.file)
	if errors.Is(err, os.ErrNotExist) {
		s.imported = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("read token file: %w", err)
	}
	f, err := decodeFile(data)
	if err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "token file %s is corrupt (fix it, or move it away and create tokens again with `gno token create`)", s.file)
	}
	for _, it := range f.Tokens {
		r := store.AccessToken{ID: it.ID, Name: it.Name, Scope: string(it.Scope), SHA256: it.SHA256, Created: it.Created, Expires: it.Expires, LastUsed: it.LastUsed}
		if _, err := s.keep.PutAccessToken(ctx, r); err != nil {
			return gnoerr.Wrap(gnoerr.Unavailable, err, "cannot import %s into the index", s.file)
		}
	}
	// Another process may have renamed it first.
	if err := os.Rename(s.file, s.file+".imported"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("token file imported, but not renamed: %w", err)
	}
	s.imported = true
	return nil
}

// decodeFile parses and validates the token file.
func decodeFile(data []byte) (*tokenFile, error) {
	var f tokenFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("unknown version %d", f.Version)
	}
	seen := map[string]bool{}
	for i, it := range f.Tokens {
		switch {
		case it.ID == "" || seen[it.ID]:
			return nil, fmt.Errorf("token %d: missing or duplicate id", i+1)
		case it.Scope != Read && it.Scope != Write:
			return nil, fmt.Errorf("token %s: scope %q", it.ID, it.Scope)
		case len(it.SHA256) != 64 || strings.ToLower(it.SHA256) != it.SHA256:
			return nil, fmt.Errorf("token %s: malformed hash", it.ID)
		case it.Created.IsZero():
			return nil, fmt.Errorf("token %s: no creation time", it.ID)
		}
		if _, err := hex.DecodeString(it.SHA256); err != nil {
			return nil, fmt.Errorf("token %s: malformed hash", it.ID)
		}
		seen[it.ID] = true
	}
	return &f, nil
}

// newID is a short random id that names a token in list and revoke. It
// tells nothing about the secret.
func newID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func validName(name string) error {
	if utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return gnoerr.New(gnoerr.InvalidInput, "token name must be at most 64 printable characters")
	}
	return nil
}
