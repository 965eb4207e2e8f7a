package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gofrs/flock"
)

// LockFile is the name of the writer lock in the index directory, shared
// by the CLI and every MCP server process.
const LockFile = ".mcp-write.lock"

// WriteLock is an OS advisory lock held for the whole of a write.
type WriteLock struct{ fl *flock.Flock }

// LockWriter takes the index's writer lock. With wait > 0 it retries until
// wait has passed or ctx ends; otherwise a held lock gives LOCKED at once.
func LockWriter(ctx context.Context, indexDir string, wait time.Duration) (*WriteLock, error) {
	if err := os.MkdirAll(indexDir, 0o755); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	fl := flock.New(filepath.Join(indexDir, LockFile))
	deadline := time.Now().Add(wait)
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
		}
		if ok {
			return &WriteLock{fl: fl}, nil
		}
		if wait <= 0 || time.Now().After(deadline) {
			return nil, gnoerr.New(gnoerr.Locked, "another gno process is writing to this index (lock %s held)", fl.Path())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Unlock releases the lock.
func (l *WriteLock) Unlock() error { return l.fl.Unlock() }
