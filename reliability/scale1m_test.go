package reliability

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The issue's faults at a million documents (`make bench-faults-1m`, never
// in `make test`): they need a generated corpus (bench/cmd/gnoscale) named
// by GNO_SCALE_CORPUS, read only, and tens of minutes of CPU.
//
//	GNO_SCALE_CORPUS   the corpus folder (its files are only read)
//	GNO_SCALE_WORK     where the homes go (default: a temporary folder)
//	GNO_SCALE_KILL     how long the first update runs before kill -9 (default 3m)
//	GNO_SCALE_TMPFS    the disk-full case's tmpfs size in MiB (default 400)

// scaleEnv is an env whose collection is the corpus, not a folder of its own.
func scaleEnv(t *testing.T, name string) *env {
	t.Helper()
	corpusDir := os.Getenv("GNO_SCALE_CORPUS")
	if corpusDir == "" {
		t.Skip("GNO_SCALE_CORPUS is not set: the 1M fault runs need a generated corpus (make bench-faults-1m)")
	}
	work := os.Getenv("GNO_SCALE_WORK")
	if work == "" {
		work = t.TempDir()
	}
	dir := filepath.Join(work, name)
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, home: filepath.Join(dir, "home"), notes: corpusDir}
	e.vars = append(os.Environ(), "GNO_HOME="+e.home, "GNO_MODELS_DIR="+modelsDir(), "NO_COLOR=1")
	e.mustGno("collection", "add", corpusDir, "--name", "scale", "--pattern", "**/*.md")
	return e
}

// long runs gno to completion (a first update of a million files takes
// tens of minutes on a loaded machine) and logs its CPU and peak RSS.
func (e *env) long(args ...string) result {
	e.t.Helper()
	r := e.gnoFor(4*time.Hour, nil, args...)
	e.t.Logf("gno %s: exit %d, wall %s, CPU %.1f s, peak RSS %d MB", strings.Join(args, " "), r.code,
		r.took.Round(time.Second), r.cpu.Seconds(), r.maxRSS>>20)
	return r
}

// statusOf reads `gno status --json` and fails unless the index is healthy.
func statusOf(t *testing.T, e *env) (docs int) {
	t.Helper()
	r := e.long("status", "--json")
	if r.err != nil {
		t.Fatalf("status: %s", r)
	}
	var s struct {
		Healthy        bool     `json:"healthy"`
		TotalDocuments int      `json:"totalDocuments"`
		Issues         []string `json:"issues"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("status --json: %v: %.300s", err, r.stdout)
	}
	if !s.Healthy {
		t.Fatalf("status after the fault: not healthy: %v", s.Issues)
	}
	return s.TotalDocuments
}

// TestScale1MKill kills a first `gno update` of the corpus part way: the
// index opens, is whole (SQLite's full integrity check and the word
// index's), the next update converges to every file and the one after it
// finds nothing to do.
func TestScale1MKill(t *testing.T) {
	e := scaleEnv(t, "kill")
	after := 3 * time.Minute
	if v := os.Getenv("GNO_SCALE_KILL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("GNO_SCALE_KILL: %v", err)
		}
		after = d
	}
	killed, ran := killAt(t, e, after, "update")
	if !killed {
		t.Fatalf("the first update finished in %s, before the kill at %s", ran, after)
	}
	checkWhole(t, e)
	t.Logf("killed after %s: %d documents committed, index whole", ran.Round(time.Second), statusOf(t, e))
	if r := e.long("update"); r.err != nil {
		t.Fatalf("the update after the kill: %s", r)
	}
	checkWhole(t, e)
	want := countFiles(t, e.notes)
	if got := statusOf(t, e); got != want {
		t.Fatalf("after the converging update: %d documents, want %d files", got, want)
	}
	r := e.long("update", "--json")
	if r.err != nil {
		t.Fatalf("the update after converging: %s", r)
	}
	var res struct {
		Collections []struct{ Added, Updated, Removed int } `json:"collections"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("update --json: %v", err)
	}
	for _, c := range res.Collections {
		if c.Added+c.Updated+c.Removed != 0 {
			t.Fatalf("a converged index changed again: %s", r.stdout)
		}
	}
}

// TestScale1MDiskFull runs the first update of the corpus with its index on
// a tmpfs far smaller than the index: it fails with a clear "full" error,
// no crash, and what it committed before is whole and opens.
func TestScale1MDiskFull(t *testing.T) {
	e := scaleEnv(t, "full")
	mib := 400
	if v := os.Getenv("GNO_SCALE_TMPFS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("GNO_SCALE_TMPFS: %v", err)
		}
		mib = n
	}
	mountTmpfs(t, filepath.Join(e.home, "data"), mib<<20)
	r := e.long("update")
	if r.err == nil {
		t.Fatalf("a first update of the corpus fit in %d MiB: make GNO_SCALE_TMPFS smaller", mib)
	}
	if crashed(r) || !strings.Contains(strings.ToLower(r.stderr), "full") {
		t.Fatalf("update into a full disk: want a clear 'full' error, got %s", r)
	}
	if strings.Contains(r.stderr, "sql:") {
		t.Fatalf("driver text reached the user: %s", r)
	}
	checkWhole(t, e)
	t.Logf("disk full after %s: %q; %d documents committed, index whole", r.took.Round(time.Second),
		strings.TrimSpace(r.stderr), statusOf(t, e))
}

// countFiles counts the corpus's Markdown files.
func countFiles(t *testing.T, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
