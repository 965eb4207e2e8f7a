package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
	_ "github.com/gnosearch/gno/retrieval/store/postgres" // registers postgres://
	"github.com/gnosearch/gno/retrieval/store/storetest"
)

// TestSQLite holds the embedded store to the contract.
func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		st, err := store.OpenBackend(context.Background(), filepath.Join(t.TempDir(), "index.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}

// TestPostgres holds the Postgres store to the contract, each test on a
// database of its own; it skips, saying why, when no server can be
// reached (pgtest).
func TestPostgres(t *testing.T) {
	pgtest.URL(t) // skips the whole suite once when there is no server
	storetest.Run(t, func(t *testing.T) store.Backend {
		st, err := store.OpenBackend(context.Background(), pgtest.Fresh(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}
