package retrieval

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

func timeNow() time.Time { return time.Now().Add(time.Second) }

func lockHeld(t *testing.T, e *Engine) {
	t.Helper()
	w, err := e.Writer(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := e.Update(context.Background(), UpdateOptions{}); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("update under a held lock: %v", err)
	}
}

// rawDB opens the index file beside the engine's own connection, as a
// tool or a damaged disk would: tests change the schema or the data under
// the engine with it. Only tests may do this; gno's SQL lives in store.
func rawDB(t testing.TB, e *Engine) *sql.DB {
	t.Helper()
	pgtest.SkipOnPostgres(t, "the test edits or reads the SQLite file itself (an older SQLite schema, FTS5's settings)")
	db, err := sql.Open("sqlite", e.Paths.DBFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
