package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// TestOpenBackendChoosesByLocation: a path is a SQLite file; a URL of a
// scheme no driver registered is a clear error naming what this gno
// opens, without the URL's password.
func TestOpenBackendChoosesByLocation(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBackend(ctx, filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(*Store); !ok {
		t.Errorf("a path opened %T, want *Store", b)
	}
	b.Close()
	_, err = OpenBackend(ctx, "mysql://u:secret@host/db")
	if err == nil || gnoerr.CodeOf(err) != gnoerr.InvalidInput || !strings.Contains(err.Error(), "mysql://") || strings.Contains(err.Error(), "secret") {
		t.Errorf("unknown scheme: %v", err)
	}
	if _, err := LockBackend(ctx, "mysql://host/db", 0); err == nil {
		t.Error("LockBackend of an unknown scheme: no error")
	}
	for loc, url := range map[string]bool{"/a/b.sqlite": false, `C:\gno\index.sqlite`: false, "postgres://h/db": true, "postgresql://h": true} {
		if IsURL(loc) != url {
			t.Errorf("IsURL(%q) = %v", loc, !url)
		}
	}
	for _, loc := range []string{"postgres://u:secret@h/db", "postgres://u@h/db?sslmode=require&password=secret", "postgres://h/db?sslpassword=secret&PassWord=secret"} {
		if r := Redact(loc); strings.Contains(r, "secret") || !strings.HasPrefix(r, "postgres://") {
			t.Errorf("Redact(%q) = %s", loc, r)
		}
	}
}
