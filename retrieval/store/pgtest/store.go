package pgtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	_ "github.com/gnosearch/gno/retrieval/store/postgres" // postgres://, for the indexes Home puts there
)

// EnvStore names the switch that puts the indexes tests create on
// PostgreSQL: GNO_TEST_STORE=postgres (`make test-pg`). Unset, or sqlite,
// they stay SQLite files under the test's GNO_HOME.
const EnvStore = "GNO_TEST_STORE"

// storeURLEnv is retrieval.StoreURLEnv, the variable that puts every index
// of a gno process on a server (pgtest sits under retrieval and cannot
// import it).
const storeURLEnv = "GNO_STORE_URL"

// OnPostgres reports whether EnvStore asks for PostgreSQL.
func OnPostgres() bool { return os.Getenv(EnvStore) == "postgres" }

// Store returns where the index a test creates lives beside its GNO_HOME:
// with GNO_TEST_STORE=postgres a fresh database of its own (Fresh), else
// "" (the index's SQLite file). Since someone asked for Postgres, a
// missing server fails t rather than skipping it.
func Store(t testing.TB) string {
	t.Helper()
	if !OnPostgres() {
		return ""
	}
	if _, _, err := Find(); err != nil {
		t.Fatalf("%s=postgres: %v", EnvStore, err)
	}
	return Fresh(t)
}

// Home is the one place the tests that create an index choose its store:
// it sets GNO_HOME to home for t, and GNO_STORE_URL to Store(t) (empty on
// SQLite, so a URL in the developer's environment never leaks into a
// test), and returns that store. Every index the test's process opens
// under home then lives there, and so do those of the gno subprocesses
// that inherit the environment.
func Home(t testing.TB, home string) string {
	t.Helper()
	st := Store(t)
	Use(t, home, st)
	return st
}

// Use sets GNO_HOME and GNO_STORE_URL for t to an index made before
// (home and store as Home or Store gave them).
func Use(t testing.TB, home, store string) {
	t.Helper()
	t.Setenv("GNO_HOME", home)
	t.Setenv(storeURLEnv, store)
}

// Env is Use for a gno subprocess: the entries to append to os.Environ().
func Env(home, store string) []string {
	return []string{"GNO_HOME=" + home, storeURLEnv + "=" + store}
}

// SkipOnPostgres skips t with why when the indexes run on PostgreSQL: for
// the few tests about the SQLite file itself (its bytes, a rebuild that
// moves it aside). Keep them few; each says why.
func SkipOnPostgres(t testing.TB, why string) {
	t.Helper()
	if OnPostgres() {
		t.Skipf("%s=postgres: %s", EnvStore, why)
	}
}

// Exec runs statements on the test database at u, as a foreign tool or a
// damaged server would: tests that break an index under gno (a table
// dropped) do it on Postgres with this, on SQLite with the file.
func Exec(t testing.TB, u string, statements ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect to %s: %v", Redact(u), err)
	}
	defer conn.Close(ctx)
	for _, q := range statements {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s on %s: %v", q, Redact(u), err)
		}
	}
}
