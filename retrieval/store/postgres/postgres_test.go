package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	"github.com/gnosearch/gno/retrieval/store/postgres"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDriverErrorsHidden: the server's and the driver's errors are
// database errors, whose text gnoerr.Public never shows.
func TestDriverErrorsHidden(t *testing.T) {
	err := fmt.Errorf("read documents: %w", &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: `relation "documents" does not exist`})
	if !store.IsDatabaseError(err) {
		t.Fatal("a PgError is not a database error")
	}
	if p := gnoerr.Public(err); strings.Contains(p, "relation") || strings.Contains(p, "42P01") {
		t.Errorf("Public shows the server's text: %q", p)
	}
	if !store.IsDatabaseError(errors.New("x: ERROR: boom (SQLSTATE 23505)")) {
		t.Error("SQLSTATE text is not recognised")
	}
}

func open(t *testing.T, u string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestNewerSchemaRefused: an index made by a newer gno is refused with a
// clear error, and nothing is written to it.
func TestNewerSchemaRefused(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	st := open(t, u)
	if err := st.SetMeta(ctx, "schema", "99"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err := store.OpenBackend(ctx, u)
	if err == nil || !strings.Contains(err.Error(), "newer gno") || gnoerr.CodeOf(err) != gnoerr.Unavailable {
		t.Fatalf("newer schema: %v", err)
	}
}

// TestRefusedPassword: a wrong password is a clear error that names the
// server without any password.
func TestRefusedPassword(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "not-the-password")
	_, err = store.OpenBackend(context.Background(), u.String())
	if err == nil {
		t.Fatal("a wrong password opened the index")
	}
	p := gnoerr.Public(err)
	if !strings.Contains(p, "refused the password") || strings.Contains(p, "not-the-password") {
		t.Errorf("message %q", p)
	}
}

// TestWriterLock: one writer at a time, per database; unlocked, the next
// takes it.
func TestWriterLock(t *testing.T) {
	u := pgtest.Fresh(t)
	ctx := context.Background()
	l, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.LockBackend(ctx, u, 0); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("second writer: %v, want LOCKED", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := store.LockBackend(ctx, u, 0)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// TestUnsupportedIsClear: a method not implemented yet says so, as
// store.ErrUnsupported and UNAVAILABLE, without a panic.
func TestUnsupportedIsClear(t *testing.T) {
	st := open(t, pgtest.Fresh(t))
	defer st.Close()
	_, err := st.LinksFrom(context.Background(), 1)
	if !errors.Is(err, store.ErrUnsupported) || gnoerr.CodeOf(err) != gnoerr.Unavailable || !strings.Contains(gnoerr.Public(err), "not supported on PostgreSQL yet") {
		t.Errorf("LinksFrom: %v", err)
	}
}

// TestUnreachableServer: a URL no server answers is a clear error naming
// the server, not the driver's text.
func TestUnreachableServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := store.OpenBackend(ctx, "postgres://gno:pw@127.0.0.1:1/gno?connect_timeout=5")
	if err == nil {
		t.Fatal("opened an index on a closed port")
	}
	p := gnoerr.Public(err)
	if !strings.Contains(p, "cannot connect") || strings.Contains(p, "pw@") {
		t.Errorf("message %q", p)
	}
	if _, err := store.OpenBackend(ctx, "postgres://h:x:y/%zz"); err == nil || gnoerr.CodeOf(err) != gnoerr.InvalidInput {
		t.Errorf("a malformed URL: %v", err)
	}
}
