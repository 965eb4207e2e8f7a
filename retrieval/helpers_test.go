package retrieval

import (
	"context"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
)

func timeNow() time.Time { return time.Now().Add(time.Second) }

func lockHeld(t *testing.T, e *Engine) {
	t.Helper()
	l, err := store.LockWriter(context.Background(), e.Paths.IndexDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if _, err := e.Update(context.Background(), UpdateOptions{}); gnoerr.CodeOf(err) != gnoerr.Locked {
		t.Fatalf("update under a held lock: %v", err)
	}
}
