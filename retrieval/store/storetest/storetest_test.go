package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/retrieval/store"
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
