package pkgdocs

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// TestStdlibAddedTogether: two projects of one toolchain added at once,
// each by its own Index (as two `gno packages add` processes would: the
// writer lock is an OS lock on a file, which two opens in one process
// contend for as two processes do), on a new index: both open the new
// database at once, and the second writer waits for the first. Both
// projects end up indexed and the standard library is extracted once,
// shared by both.
func TestStdlibAddedTogether(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("%v: the test indexes go's standard library", err)
	}
	ctx := context.Background()
	t.Setenv("GNO_HOME", t.TempDir())
	var xs [2]*Index
	var dirs [2]string
	for i := range xs {
		x, err := Open(ctx, Options{CacheDir: filepath.Join(shared, "fetched")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		xs[i] = x
		dirs[i] = t.TempDir()
		writeFile(t, filepath.Join(dirs[i], "go.mod"), "module example.com/p\n\ngo 1.21\n")
	}
	var wg sync.WaitGroup
	var res [2]*AddResult
	var errs [2]error
	var took [2]time.Duration
	for i := range xs {
		wg.Go(func() {
			start := time.Now()
			res[i], errs[i] = xs[i].Add(ctx, dirs[i], AddOptions{NoFetch: true})
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	t.Logf("adds took %v and %v", took[0].Round(time.Millisecond), took[1].Round(time.Millisecond))
	for i := range xs {
		// The extraction runs under the writer lock, which the other
		// add waits for up to LockWait (30 s): on busy cores it may give
		// up with the clear LOCKED error, and then a retry reuses what
		// the first one stored.
		if gnoerr.Is(errs[i], gnoerr.Locked) && errs[1-i] == nil {
			t.Logf("add %d gave up waiting after %v: %v", i, took[i].Round(time.Millisecond), errs[i])
			res[i], errs[i] = xs[i].Add(ctx, dirs[i], AddOptions{NoFetch: true})
		}
		if errs[i] != nil {
			t.Fatalf("add %d (after %v): %v", i, took[i].Round(time.Millisecond), errs[i])
		}
	}
	if n := xs[0].Extracted() + xs[1].Extracted(); n != 1 {
		t.Errorf("%d extractions of go's standard library, want 1", n)
	}
	if got := len(stdKeys(res[0])) + len(stdKeys(res[1])); got != 1 || res[0].Reused+res[1].Reused != 1 {
		t.Errorf("indexed %v and %v, reused %d and %d: want the standard library indexed by one, reused by the other",
			res[0].Indexed, res[1].Indexed, res[0].Reused, res[1].Reused)
	}
	for i := range xs {
		ps, err := xs[i].List(ctx, []string{dirs[i]})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 1 || len(ps[0].Packages) != 1 {
			t.Errorf("project %d lists %+v, want go's standard library", i, ps)
		}
	}
}
