package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5"
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

// TestTooOldServer: a server older than 16 is refused with its version
// named (no such server can run here, so the check itself is tested).
func TestTooOldServer(t *testing.T) {
	err := postgres.CheckVersion(150012, "postgres://gno:xxxxx@db/gno")
	if err == nil || gnoerr.CodeOf(err) != gnoerr.Unavailable || !strings.Contains(gnoerr.Public(err), "version 15.12: gno needs 16 or later") {
		t.Fatalf("PostgreSQL 15: %v", err)
	}
	if err := postgres.CheckVersion(160000, "x"); err != nil {
		t.Fatalf("PostgreSQL 16: %v", err)
	}
}

// TestNoVectorClear: a database without pgvector whose user may not
// create it is a clear error, and nothing is written to it.
func TestNoVectorClear(t *testing.T) {
	base := pgtest.URL(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var b [4]byte
	rand.Read(b[:])
	name := "gno_novec_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE "+name+" LOGIN PASSWORD 'novec-secret' NOSUPERUSER"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Exec(ctx, "DROP ROLE IF EXISTS "+name)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(name, "novec-secret")
	u.Path = "/" + name
	_, err = store.OpenBackend(ctx, u.String())
	if p := gnoerr.Public(err); err == nil || !strings.Contains(p, "CREATE EXTENSION vector") || strings.Contains(p, "novec-secret") {
		t.Fatalf("no pgvector: %v", err)
	}
	v, _ := url.Parse(base)
	v.Path = "/" + name
	db, err := pgx.Connect(ctx, v.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	var tables int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables written (%v)", tables, err)
	}
}

// TestTLSVerifyFull: through a TLS server (pgtest.StartTLS),
// sslmode=verify-full with the right CA connects encrypted and
// Server says so; with another CA the certificate is refused with a
// clear error, and sslmode=require still encrypts.
func TestTLSVerifyFull(t *testing.T) {
	base := pgtest.Fresh(t)
	ts := pgtest.StartTLS(t, base)
	with := func(params ...string) string {
		u, err := url.Parse(ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		for i := 0; i < len(params); i += 2 {
			q.Set(params[i], params[i+1])
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	ctx := context.Background()
	st, err := store.OpenBackend(ctx, with("sslmode", "verify-full", "sslrootcert", ts.CAFile))
	if err != nil {
		t.Fatalf("verify-full with the CA: %v", err)
	}
	info, err := st.Server(ctx)
	st.Close()
	if err != nil || !strings.HasPrefix(info.TLS, "TLS 1.") {
		t.Fatalf("server info over TLS: %+v %v", info, err)
	}
	l, err := store.LockBackend(ctx, with("sslmode", "verify-full", "sslrootcert", ts.CAFile), 0)
	if err != nil {
		t.Fatalf("lock over TLS: %v", err)
	}
	l.Unlock()

	other := pgtest.StartTLS(t, base) // its own CA
	_, err = store.OpenBackend(ctx, with("sslmode", "verify-full", "sslrootcert", other.CAFile))
	if err == nil || !strings.Contains(gnoerr.Public(err), "certificate") {
		t.Fatalf("verify-full with another CA: %v", err)
	}
	st, err = store.OpenBackend(ctx, with("sslmode", "require"))
	if err != nil {
		t.Fatalf("sslmode=require over TLS: %v", err)
	}
	info, err = st.Server(ctx)
	st.Close()
	if err != nil || info.TLS == "" {
		t.Fatalf("require: %+v %v", info, err)
	}
}
