package postgres_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// TestPassfile: a URL without a password opens the index with the
// password from PGPASSFILE; a passfile with the wrong one is a clear
// error that shows no password.
func TestPassfile(t *testing.T) {
	full := pgtest.Fresh(t)
	u, err := url.Parse(full)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	u.User = url.User(u.User.Username())
	bare := u.String()
	pass := filepath.Join(t.TempDir(), "pgpass")
	write := func(p string) {
		line := u.Hostname() + ":" + u.Port() + ":*:" + u.User.Username() + ":" + p + "\n"
		if err := os.WriteFile(pass, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PGPASSWORD", "")
	os.Unsetenv("PGPASSWORD")
	t.Setenv("PGPASSFILE", pass)
	write(pw)
	ctx := context.Background()
	st, err := store.OpenBackend(ctx, bare)
	if err != nil {
		t.Fatalf("open with PGPASSFILE: %v", err)
	}
	st.Close()
	l, err := store.LockBackend(ctx, bare, 0)
	if err != nil {
		t.Fatalf("lock with PGPASSFILE: %v", err)
	}
	l.Unlock()

	write("wrong-secret-from-passfile")
	_, err = store.OpenBackend(ctx, bare)
	if err == nil {
		t.Fatal("a wrong password in PGPASSFILE opened the index")
	}
	if p := gnoerr.Public(err); !strings.Contains(p, "PGPASSFILE") || strings.Contains(p, "wrong-secret") || strings.Contains(err.Error(), pw) {
		t.Fatalf("wrong passfile: %q", p)
	}
}

// TestTLSRequiredRefused: sslmode=require against a server without TLS
// (the test server is built without it) is a clear error, not a silent
// fall back to clear text; the password never shows.
func TestTLSRequiredRefused(t *testing.T) {
	base := pgtest.Fresh(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	q := u.Query()
	q.Set("sslmode", "require")
	u.RawQuery = q.Encode()
	_, err = store.OpenBackend(context.Background(), u.String())
	if err == nil {
		t.Skip("the test server accepts TLS: sslmode=require connected")
	}
	p := gnoerr.Public(err)
	if !strings.Contains(p, "does not accept TLS") || strings.Contains(p, pw) || gnoerr.CodeOf(err) != gnoerr.Unavailable {
		t.Fatalf("sslmode=require without TLS: %q", p)
	}
	if _, err := store.LockBackend(context.Background(), u.String(), 0); err == nil || !strings.Contains(gnoerr.Public(err), "does not accept TLS") {
		t.Fatalf("lock with sslmode=require without TLS: %v", err)
	}
	// sslmode=disable, prefer and allow connect in clear.
	q.Set("sslmode", "prefer")
	u.RawQuery = q.Encode()
	st, err := store.OpenBackend(context.Background(), u.String())
	if err != nil {
		t.Fatalf("sslmode=prefer: %v", err)
	}
	info, err := st.Server(context.Background())
	st.Close()
	if err != nil || info.TLS != "" {
		t.Fatalf("server info without TLS: %+v %v", info, err)
	}
}
