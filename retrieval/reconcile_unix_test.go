//go:build unix

package retrieval

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Marking a FIFO is refused at once (reading it would block forever).
func TestReconcileMarkFIFO(t *testing.T) {
	e, root := newEngine(t, map[string]string{"a.txt": "a\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.txt"), 0o644); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	_, err := e.Notes().MarkReconciled(context.Background(), MarkRequest{Files: []string{"notes/pipe.txt"}})
	if gnoerr.CodeOf(err) != gnoerr.InvalidPath || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("mark a FIFO: %v", err)
	}
}
