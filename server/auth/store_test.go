package auth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres:// locations
)

// openKeeper opens the index at location (a SQLite file or a Postgres
// URL) as a server would, closed when t ends.
func openKeeper(t testing.TB, location string) store.Backend {
	t.Helper()
	b, err := store.OpenBackend(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// newTestStore is the tokens of a SQLite index in dir, with a handle of
// its own (another process's, when called twice).
func newTestStore(t testing.TB, dir string) *Store {
	return NewStore(openKeeper(t, filepath.Join(dir, "index.sqlite")), dir)
}

func TestStoreLifecycle(t *testing.T) {
	dir := t.TempDir()
	testLifecycle(t, filepath.Join(dir, "index.sqlite"), dir)
}

// TestStoreLifecyclePostgres: two servers of one Postgres index see each
// other's tokens and revocations at their next check.
func TestStoreLifecyclePostgres(t *testing.T) {
	testLifecycle(t, pgtest.Fresh(t), t.TempDir())
}

func testLifecycle(t *testing.T, location, dir string) {
	ctx := context.Background()
	keep := openKeeper(t, location)
	st := NewStore(keep, dir)
	if n, err := st.Active(ctx); err != nil || n != 0 {
		t.Fatalf("empty store: %d, %v", n, err)
	}
	secret, tok, err := st.Create(ctx, "alice", Read, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Scope != Read || tok.Name != "alice" || tok.Expires.Sub(tok.Created) != 30*24*time.Hour {
		t.Fatalf("token %+v", tok)
	}
	recs, err := keep.AccessTokens(ctx)
	if err != nil || len(recs) != 1 {
		t.Fatalf("stored: %v, %v", recs, err)
	}
	if recs[0].SHA256 != hashToken(secret) || strings.Contains(recs[0].Name+recs[0].ID, secret[4:]) {
		t.Fatalf("the index keeps %+v, not the secret's hash", recs[0])
	}

	// A second store on its own connection to the index is another
	// running server.
	srv := NewStore(openKeeper(t, location), dir)
	if got, err := srv.Verify(ctx, secret); err != nil || got.ID != tok.ID {
		t.Fatalf("Verify: %+v, %v", got, err)
	}
	other, _ := NewSecret()
	mistyped := secret[:30] + map[bool]string{true: "b", false: "a"}[secret[30] == 'a'] + secret[31:]
	for _, bad := range []string{other, "", "gno_x", mistyped, strings.ToUpper(secret)} {
		if _, err := srv.Verify(ctx, bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("Verify(wrong) = %v", err)
		}
	}
	wsecret, wtok, err := st.Create(ctx, "", Write, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := srv.Verify(ctx, wsecret); err != nil || got.Scope != Write || !got.Expires.IsZero() {
		t.Fatalf("Verify(write) = %+v, %v (the server must see a token created after it started)", got, err)
	}
	if _, err := st.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Verify(ctx, secret); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("revoked token: %v", err)
	}
	if _, err := srv.Lookup(ctx, tok.ID); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("Lookup(revoked) = %v", err)
	}
	if _, err := st.Revoke(ctx, tok.ID); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Fatalf("revoke twice: %v", err)
	}

	// Expiry.
	esecret, etok, err := st.Create(ctx, "short", Read, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(etok.Expires) + 10*time.Millisecond)
	if _, err := srv.Verify(ctx, esecret); !errors.Is(err, ErrExpiredToken) {
		t.Fatalf("expired token: %v", err)
	}
	if n, _ := st.Active(ctx); n != 1 {
		t.Fatalf("active = %d, want 1 (the write token)", n)
	}

	// Last used reaches the index on Flush.
	if err := srv.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	toks, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range toks {
		if tk.ID == wtok.ID && tk.LastUsed.IsZero() {
			t.Fatal("last used not written")
		}
	}
}

func TestStoreConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	ids := make(chan string, 40)
	for i := range 4 {
		st := newTestStore(t, dir) // one per writer, as separate processes would
		wg.Go(func() {
			for range 10 {
				_, tok, err := st.Create(context.Background(), "w", Scope([]Scope{Read, Write}[i%2]), 0)
				if err != nil {
					t.Error(err)
					return
				}
				ids <- tok.ID
			}
		})
	}
	wg.Wait()
	close(ids)
	toks, err := newTestStore(t, dir).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tk := range toks {
		have[tk.ID] = true
	}
	n := 0
	for id := range ids {
		n++
		if !have[id] {
			t.Errorf("token %s lost", id)
		}
	}
	if n != 40 || len(toks) != 40 {
		t.Fatalf("created %d, listed %d; want 40", n, len(toks))
	}
}

func TestStoreCorrupt(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     "{not json",
		"truncated":    `{"version":1,"tokens":[{"id":"a`,
		"version":      `{"version":7,"tokens":[]}`,
		"scope":        `{"version":1,"tokens":[{"id":"a","scope":"admin","sha256":"` + strings.Repeat("0", 64) + `","created":"2025-01-01T00:00:00Z"}]}`,
		"hash":         `{"version":1,"tokens":[{"id":"a","scope":"read","sha256":"xyz","created":"2025-01-01T00:00:00Z"}]}`,
		"duplicate id": `{"version":1,"tokens":[{"id":"a","scope":"read","sha256":"` + strings.Repeat("0", 64) + `","created":"2025-01-01T00:00:00Z"},{"id":"a","scope":"read","sha256":"` + strings.Repeat("1", 64) + `","created":"2025-01-01T00:00:00Z"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st := newTestStore(t, dir)
			os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o600)
			if _, err := st.Active(context.Background()); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("Active: %v", err)
			}
			s, _ := NewSecret()
			if _, err := st.Verify(context.Background(), s); err == nil || errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify on a corrupt file: %v (want a file error)", err)
			}
			if _, _, err := st.Create(context.Background(), "", Read, 0); err == nil {
				t.Fatal("Create over a corrupt file succeeded")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, FileName)); string(got) != body {
				t.Fatal("the corrupt file was changed")
			}
		})
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	st := newTestStore(t, t.TempDir())
	ctx := context.Background()
	if _, _, err := st.Create(ctx, "", "admin", 0); err == nil {
		t.Error("scope admin accepted")
	}
	if _, _, err := st.Create(ctx, "a\x1b[31m", Read, 0); err == nil {
		t.Error("control characters in a name accepted")
	}
	if _, _, err := st.Create(ctx, strings.Repeat("x", 65), Read, 0); err == nil {
		t.Error("long name accepted")
	}
}

// TestStoreImport: the tokens.json of an older gno moves into the index
// once, with its ids and hashes; the file is renamed, so a token revoked
// afterwards stays revoked.
func TestStoreImport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	secret, _ := NewSecret()
	body := `{"version":1,"tokens":[{"id":"ab12cd34","name":"old","scope":"write","sha256":"` + hashToken(secret) + `","created":"2025-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	st := newTestStore(t, dir)
	tok, err := st.Verify(ctx, secret)
	if err != nil || tok.ID != "ab12cd34" || tok.Scope != Write || tok.Name != "old" {
		t.Fatalf("imported token: %+v, %v", tok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tokens.json still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+".imported")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Revoke(ctx, "ab12cd34"); err != nil {
		t.Fatal(err)
	}
	if _, err := newTestStore(t, dir).Verify(ctx, secret); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("revoked after import: %v", err)
	}
}
