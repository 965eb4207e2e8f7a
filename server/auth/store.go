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

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gofrs/flock"
)

// FileName is the token file in the index directory.
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

// tokenFile is the JSON on disk.
type tokenFile struct {
	Version int          `json:"version"`
	Tokens  []storedItem `json:"tokens"`
}

type storedItem struct {
	Token
	SHA256 string `json:"sha256"`
}

// flushEvery bounds how often Verify writes last-used times to disk.
const flushEvery = time.Minute

// Store is the token file of one index. Its methods are safe for
// concurrent use, and several processes may use the same file.
type Store struct {
	path string
	lock *flock.Flock

	mu     sync.Mutex
	items  []storedItem
	hashes [][]byte // decoded SHA256 of items, same order
	stat   os.FileInfo
	loaded bool

	usedMu   sync.Mutex
	used     map[string]time.Time
	flushed  time.Time
	flushing atomic.Bool
}

// NewStore returns the store of the index whose data lives in indexDir.
// Nothing is read until a method needs it.
func NewStore(indexDir string) *Store {
	p := filepath.Join(indexDir, FileName)
	return &Store{path: p, lock: flock.New(p + ".lock"), used: map[string]time.Time{}, flushed: time.Now()}
}

// Path is the token file.
func (s *Store) Path() string { return s.path }

// List returns every token, newest first.
func (s *Store) List() ([]Token, error) {
	f, err := s.readFile()
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(f.Tokens))
	for _, it := range f.Tokens {
		out = append(out, it.Token)
	}
	slices.SortStableFunc(out, func(a, b Token) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Active counts the tokens that have not expired. A missing file has none;
// an unreadable or corrupt one is an error.
func (s *Store) Active() (int, error) {
	toks, err := s.List()
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
	secret, err := NewSecret()
	if err != nil {
		return "", Token{}, fmt.Errorf("new token: %w", err)
	}
	var tok Token
	err = s.update(ctx, func(f *tokenFile) error {
		id, err := newID(f)
		if err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Second)
		tok = Token{ID: id, Name: name, Scope: scope, Created: now}
		if ttl > 0 {
			tok.Expires = now.Add(ttl)
		}
		f.Tokens = append(f.Tokens, storedItem{Token: tok, SHA256: hashToken(secret)})
		return nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, tok, nil
}

// Revoke deletes the token with id. It takes effect at once in running
// servers (they reread the file when it changes).
func (s *Store) Revoke(ctx context.Context, id string) (Token, error) {
	var tok Token
	err := s.update(ctx, func(f *tokenFile) error {
		i := slices.IndexFunc(f.Tokens, func(it storedItem) bool { return it.ID == id })
		if i < 0 {
			return gnoerr.New(gnoerr.NotFound, "no token with id %q (see gno token list)", id)
		}
		tok = f.Tokens[i].Token
		f.Tokens = slices.Delete(f.Tokens, i, i+1)
		return nil
	})
	return tok, err
}

// Verify checks a presented secret: its format, then its hash against
// every stored hash in constant time. It returns ErrInvalidToken,
// ErrExpiredToken, or an error reading the file (the caller refuses the
// request: a store that cannot be read admits nobody).
func (s *Store) Verify(secret string) (Token, error) {
	if ParseToken(secret) != nil {
		return Token{}, ErrInvalidToken
	}
	sum, _ := hex.DecodeString(hashToken(secret))
	s.mu.Lock()
	if err := s.refresh(); err != nil {
		s.mu.Unlock()
		return Token{}, err
	}
	match := -1
	for i, h := range s.hashes {
		if subtle.ConstantTimeCompare(sum, h) == 1 {
			match = i
		}
	}
	var tok Token
	if match >= 0 {
		tok = s.items[match].Token
	}
	s.mu.Unlock()
	if match < 0 {
		return Token{}, ErrInvalidToken
	}
	now := time.Now()
	if tok.Expired(now) {
		return tok, ErrExpiredToken
	}
	s.markUsed(tok.ID, now)
	return tok, nil
}

// Lookup returns the token with id if it still exists and has not
// expired (a login session lives no longer than its token).
func (s *Store) Lookup(id string) (Token, error) {
	s.mu.Lock()
	if err := s.refresh(); err != nil {
		s.mu.Unlock()
		return Token{}, err
	}
	i := slices.IndexFunc(s.items, func(it storedItem) bool { return it.ID == id })
	var tok Token
	if i >= 0 {
		tok = s.items[i].Token
	}
	s.mu.Unlock()
	if i < 0 {
		return Token{}, ErrInvalidToken
	}
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
	return s.update(ctx, func(f *tokenFile) error {
		for i := range f.Tokens {
			if t, ok := used[f.Tokens[i].ID]; ok && t.After(f.Tokens[i].LastUsed) {
				f.Tokens[i].LastUsed = t.UTC().Truncate(time.Second)
			}
		}
		return nil
	})
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

// refresh rereads the file when it changed on disk (a `gno token revoke`
// must take effect in a running server). s.mu is held.
func (s *Store) refresh() error {
	st, err := os.Stat(s.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("token file %s: %w", s.path, err)
	}
	if s.loaded && sameStat(s.stat, st) {
		return nil
	}
	f, err := s.readFile()
	if err != nil {
		return err
	}
	hashes := make([][]byte, len(f.Tokens))
	for i, it := range f.Tokens {
		hashes[i], _ = hex.DecodeString(it.SHA256)
	}
	s.items, s.hashes, s.stat, s.loaded = f.Tokens, hashes, st, true
	return nil
}

func sameStat(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// readFile reads and checks the token file; a missing file is empty.
func (s *Store) readFile() (*tokenFile, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return &tokenFile{Version: fileVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read token file: %w", err)
	}
	f, err := decodeFile(data)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "token file %s is corrupt (fix it, or move it away and create tokens again with `gno token create`)", s.path)
	}
	return f, nil
}

// decodeFile parses and validates the token file: a damaged file must
// stop the server, never admit a wrong token or drop a revocation.
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

// lockWait is how long a write waits for another process's.
const lockWait = 10 * time.Second

// update applies fn to the freshest file under the lock and writes the
// result atomically, so concurrent writers never lose each other's work.
func (s *Store) update(ctx context.Context, fn func(*tokenFile) error) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	lctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	ok, err := s.lock.TryLockContext(lctx, 20*time.Millisecond)
	if !ok || err != nil {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return gnoerr.New(gnoerr.Locked, "token file %s is locked by another gno process", s.path)
		}
		return fmt.Errorf("lock token file: %w", err)
	}
	defer s.lock.Unlock()
	f, err := s.readFile()
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		return err
	}
	f.Version = fileVersion
	if f.Tokens == nil {
		f.Tokens = []storedItem{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(s.path, append(data, '\n'), 0o600)
}

// newID is a short random id, unique in f, that names a token in list and
// revoke. It tells nothing about the secret.
func newID(f *tokenFile) (string, error) {
	for range 100 {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		id := hex.EncodeToString(b[:])
		if !slices.ContainsFunc(f.Tokens, func(it storedItem) bool { return it.ID == id }) {
			return id, nil
		}
	}
	return "", errors.New("could not draw a unique token id")
}

func validName(name string) error {
	if utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return gnoerr.New(gnoerr.InvalidInput, "token name must be at most 64 printable characters")
	}
	return nil
}
