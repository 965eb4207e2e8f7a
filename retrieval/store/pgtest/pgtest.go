// Package pgtest gives tests a real PostgreSQL with pgvector: the server
// named by GNO_TEST_PG_URL (`make unit` sets it from `make pg-maybe`), or
// the one `make pg` left running in the repository's .cache/pg. Without
// either, a test skips with the reason printed; a URL given but not
// answering fails the test, since someone asked for Postgres.
//
// It installs nothing itself: installing and starting the server is
// .ci/pg's job (postgres.mk), so a test never downloads anything.
// StartReplica asks .ci/pg for a streaming replica of that server, and
// StartTLS puts a TLS proxy in front of it. It is imported by tests only.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding the test server's URL
// (postgres://USER:PASSWORD@HOST:PORT/DB).
const EnvURL = "GNO_TEST_PG_URL"

// MinVersion is the oldest server the tests accept (server_version_num).
const MinVersion = 160000

// Find returns the test server's URL and whether it came from EnvURL, or
// why there is none.
func Find() (u string, given bool, err error) {
	if u := os.Getenv(EnvURL); u != "" {
		return u, true, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", false, err
	}
	cmd := exec.Command(filepath.Join(root, ".ci", "pg"), "live")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "", false, errors.New("no PostgreSQL for tests: set " + EnvURL + " or run `make pg`")
	}
	return strings.TrimSpace(string(out)), false, nil
}

// Check connects to u and checks what gno needs of the server: PostgreSQL
// 16 or later, and pgvector installable. It returns the server's version.
func Check(ctx context.Context, u string) (version string, err error) {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", Redact(u), err)
	}
	defer conn.Close(ctx)
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&version, &num); err != nil {
		return "", fmt.Errorf("ask %s its version: %w", Redact(u), err)
	}
	if num < MinVersion {
		return version, fmt.Errorf("PostgreSQL %s at %s is too old: gno needs 16 or later", version, Redact(u))
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')").Scan(&ok); err != nil {
		return version, fmt.Errorf("list the extensions of %s: %w", Redact(u), err)
	}
	if !ok {
		return version, fmt.Errorf("PostgreSQL %s at %s has no pgvector (extension vector)", version, Redact(u))
	}
	return version, nil
}

// URL returns the test server's URL, skipping t when there is none and
// failing it when the given one does not answer or does not fit.
func URL(t testing.TB) string {
	t.Helper()
	u, given, err := Find()
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Check(ctx, u); err != nil {
		if given {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return u
}

// Fresh creates an empty database with pgvector for t on the test server,
// dropped when t ends, and returns its URL. Tests in parallel each get
// their own.
func Fresh(t testing.TB) string {
	t.Helper()
	base := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var b [6]byte
	rand.Read(b[:])
	name := "gno_test_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", Redact(base), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", EnvURL, err)
	}
	u.Path = "/" + name
	db, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("connect to %s: %v", name, err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		t.Fatalf("create extension vector in %s: %v", name, err)
	}
	return u.String()
}

// Redact is u without its password, for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	return p.Redacted()
}

// repoRoot is the folder of the module's go.mod, above the working folder.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/gnosearch/gno\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no PostgreSQL for tests: set " + EnvURL + " (not inside the gno repository)")
		}
		dir = parent
	}
}

// Replica is a streaming replica of the test server, started for one
// test by .ci/pg (pg_basebackup of the server make pg runs, on a free
// loopback port) and deleted when the test ends.
type Replica struct {
	// URL reaches the replica with the test server's credentials; a
	// database of the server has the same name on the replica.
	URL  string
	name string
	root string
}

// StartReplica starts a replica of the test server for t, skipping t
// with the reason printed when it cannot: the server is not the one
// make pg runs here (only its binaries and data can be copied), or
// pg_basebackup fails.
func StartReplica(t testing.TB) *Replica {
	t.Helper()
	base := URL(t)
	root, err := repoRoot()
	if err != nil {
		t.Skip(err)
	}
	lc := exec.Command(filepath.Join(root, ".ci", "pg"), "live")
	lc.Dir = root
	live, _ := lc.Output()
	if strings.TrimSpace(string(live)) != base {
		t.Skip("no replica: the test server is not the one `make pg` runs in this checkout, whose binaries make the replica")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no replica: no free loopback port: ", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var b [4]byte
	rand.Read(b[:])
	r := &Replica{name: "t" + hex.EncodeToString(b[:]), root: root}
	cmd := exec.Command(filepath.Join(root, ".ci", "pg"), "replica", r.name, strconv.Itoa(port))
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Cleanup(func() {
		c := exec.Command(filepath.Join(root, ".ci", "pg"), "replica-stop", r.name)
		c.Dir = root
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("stop the replica %s: %v: %s", r.name, err, out)
		}
	})
	if err != nil {
		t.Skip("no replica: " + strings.TrimSpace(stderr.String()))
	}
	r.URL = strings.TrimSpace(string(out))
	return r
}

// On is the URL of the database the primary's URL u names, on r.
func (r *Replica) On(t testing.TB, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q, err := url.Parse(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	p.Host = q.Host
	return p.String()
}

// CatchUp waits until r has replayed everything the primary at u has
// written so far: up to its WAL insert position, the point a store
// reading from a replica waits for after its own writes (postgres/ryw.go).
// The write position can fall short of it while other databases of the
// server (tests run side by side) have WAL inserted but not yet written,
// and the store then still reads from the primary after CatchUp. A
// commit of its own follows the position read, so the WAL up to it is
// written and sent soon even when nothing else is.
func (r *Replica) CatchUp(t testing.TB, u string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	var lsn string
	if err := p.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	// A transaction with an id writes a commit record, flushed on commit
	// (or by the WAL writer within wal_writer_delay when commits are
	// asynchronous).
	if err := pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SELECT pg_current_xact_id()")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, r.On(t, u))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for {
		var done bool
		if err := c.QueryRow(ctx, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true)", lsn).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the replica did not replay %s in time", lsn)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Promote makes r a primary (pg_ctl promote) and waits for it.
func (r *Replica) Promote(t testing.TB) {
	t.Helper()
	cmd := exec.Command(filepath.Join(r.root, ".ci", "pg"), "promote", r.name)
	cmd.Dir = r.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promote the replica: %v: %s", err, out)
	}
}
