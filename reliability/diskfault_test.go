package reliability

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gnosearch/gno/retrieval/store/pgtest"
)

// mountTmpfs mounts a tmpfs of size bytes at dir, or skips the test when
// the process may not mount (not root, or no CAP_SYS_ADMIN in a container).
func mountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): disk-full cases need root with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

func remount(t *testing.T, dir string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|flags, data); err != nil {
		t.Fatalf("remount %s: %v", dir, err)
	}
}

// crashed reports whether a gno process died of a signal or a Go panic
// rather than exiting with an error of its own.
func crashed(r result) bool {
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "SIGSEGV") || strings.Contains(r.stderr, "fatal error:") {
		return true
	}
	var ee *exec.ExitError
	if r.err != nil && errorsAs(r.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true
		}
	}
	return false
}

// TestDiskFull fills a small tmpfs holding the index during a sync: the
// sync fails with a clear error and the previous index stays whole and
// unchanged; with space back, the next sync converges.
func TestDiskFull(t *testing.T) {
	pgtest.SkipOnPostgres(t, "a full local disk under the index: the index lives on the server, not in this folder")
	e := newEnv(t, corpus(7, 12))
	// An index has 16 KiB pages and each of its ~45 b-trees at least one
	// (a 84-note index is 0.7 MB, its sync's WAL more): 768 KB no longer
	// holds the first sync.
	mountTmpfs(t, filepath.Join(e.home, "data"), 2<<20)
	e.mustGno("update")
	before := takeSnapshot(t, e.dbFile())
	// About 2.4 MB of new text (and its index) cannot fit in 2 MB.
	big := map[string]string{}
	for i := range 4 {
		big[fmt.Sprintf("big/b%d.md", i)] = "# Big\n\n" + strings.Repeat(fmt.Sprintf("filler %d words that take room in the index ", i), 12000)
	}
	writeDocs(t, e.notes, big)
	r := e.gno("update")
	if r.err == nil {
		t.Fatalf("sync into a full disk succeeded: %s", r)
	}
	if crashed(r) || !strings.Contains(strings.ToLower(r.stderr), "full") {
		t.Fatalf("sync into a full disk: want a clear 'full' error, got %s", r)
	}
	checkWhole(t, e)
	if after := takeSnapshot(t, e.dbFile()); after != before {
		t.Fatalf("failed sync changed the index: %v, was %v", after, before)
	}
	if r := e.gno("search", "filler", "--json"); r.err != nil {
		t.Fatalf("search after a failed sync: %s", r)
	}
	remount(t, filepath.Join(e.home, "data"), 0, "size=64m")
	e.mustGno("update")
	checkWhole(t, e)
	if got, want := takeSnapshot(t, e.dbFile()), cleanBuild(t, e.notes, false); got != want {
		t.Fatalf("after space came back: %v, clean build %v", got, want)
	}
}

// TestDiskFullWrite makes gno_capture overwrite a note on a full disk
// (the injected writer error is the file system's ENOSPC): the call
// fails and the note keeps every byte.
func TestDiskFullWrite(t *testing.T) {
	e := newEnv(t, nil)
	mountTmpfs(t, e.notes, 256<<10)
	old := note(newRand(3), 1, 0)
	writeDocs(t, e.notes, map[string]string{"keep.md": old})
	e.mustGno("update")
	c := startStdio(t, e, "--enable-write")
	defer c.close()
	body := strings.Repeat("a much longer replacement line\n", 20000) // 600 KB
	res, err := tool(bg(), c, "gno_capture", map[string]any{"collection": "notes", "path": "keep.md", "content": body, "overwrite": true})
	if err == nil && !res.IsError {
		t.Fatalf("capture onto a full disk succeeded: %s", res.text())
	}
	msg := fmt.Sprint(err)
	if res != nil {
		msg = res.text()
	}
	if !strings.Contains(strings.ToLower(msg), "no space") {
		t.Errorf("capture onto a full disk: want a clear error, got %q", msg)
	}
	b, _ := os.ReadFile(filepath.Join(e.notes, "keep.md"))
	if string(b) != old {
		t.Fatalf("note changed by a failed capture: %d bytes, was %d", len(b), len(old))
	}
	if left, _ := filepath.Glob(filepath.Join(e.notes, ".*tmp*")); len(left) > 0 {
		t.Errorf("failed capture left temp files: %v", left)
	}
}

// TestReadOnlyIndex makes the index folder read-only between syncs: the
// next sync fails with a clear error and the index is intact.
func TestReadOnlyIndex(t *testing.T) {
	pgtest.SkipOnPostgres(t, "a read-only index folder: the index lives on the server, not in this folder")
	e := newEnv(t, corpus(8, 10))
	dir := filepath.Join(e.home, "data")
	mountTmpfs(t, dir, 64<<20)
	e.mustGno("update")
	before := takeSnapshot(t, e.dbFile())
	mutate(t, newRand(1), e.notes, 1)
	remount(t, dir, syscall.MS_RDONLY, "")
	r := e.gno("update")
	if r.err == nil || crashed(r) {
		t.Fatalf("sync into a read-only index folder: want a clean error, got %s", r)
	}
	if !strings.Contains(strings.ToLower(r.stderr), "read-only") && !strings.Contains(strings.ToLower(r.stderr), "readonly") {
		t.Errorf("sync into a read-only index folder: error does not say why: %s", r.stderr)
	}
	// SQLite in WAL mode needs its -shm file writable, so readers of a
	// read-only index folder get an error too; it must be a clean one.
	if r := e.gno("search", "sqlite", "--json"); crashed(r) {
		t.Errorf("search on a read-only index crashed: %s", r)
	}
	remount(t, dir, 0, "")
	checkWhole(t, e)
	if after := takeSnapshot(t, e.dbFile()); after != before {
		t.Fatalf("failed sync changed the index: %v, was %v", after, before)
	}
}

// TestCorruptIndex damages the database two ways (random bytes in the
// middle, truncation): doctor and status report it, naming the way out,
// and `gno update --rebuild` recovers a clean build's state, user tags
// included.
func TestCorruptIndex(t *testing.T) {
	pgtest.SkipOnPostgres(t, "the SQLite file scribbled over or truncated: on Postgres the index is no file of ours")
	for _, how := range []string{"scribbled", "truncated"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, corpus(9, 40))
			e.mustGno("update")
			e.mustGno("tag", "add", "notes/d00/note-000.md", "keepme")
			fi, err := os.Stat(e.dbFile())
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(e.dbFile(), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if how == "truncated" {
				f.Truncate(fi.Size() / 2)
			} else {
				junk := make([]byte, 16384)
				for i := range junk {
					junk[i] = byte(i*7 + 3)
				}
				f.WriteAt(junk, fi.Size()/3)
			}
			f.Close()
			doc := e.gno("doctor")
			if doc.err == nil || !strings.Contains(doc.stdout+doc.stderr, "--rebuild") {
				t.Errorf("doctor on a %s index: want a failure naming --rebuild, got %s", how, doc)
			}
			st := e.gno("status")
			if crashed(st) || !strings.Contains(st.stdout+st.stderr, "--rebuild") {
				t.Errorf("status on a %s index: want it reported with --rebuild, got %s", how, st)
			}
			if r := e.gno("search", "sqlite"); crashed(r) {
				t.Errorf("search on a %s index crashed: %s", how, r)
			}
			e.mustGno("update", "--rebuild")
			checkWhole(t, e)
			if got, want := takeSnapshot(t, e.dbFile()), cleanBuild(t, e.notes, false); got.Docs != want.Docs || got.Chunks != want.Chunks {
				t.Fatalf("after --rebuild: %v, clean build %v", got, want)
			}
			if r := e.mustGno("doctor", "--json"); !strings.Contains(r.stdout, `"index integrity"`) {
				t.Errorf("doctor after rebuild: %s", r)
			}
			if r := e.mustGno("tags"); how == "scribbled" && !strings.Contains(r.stdout, "keepme") {
				t.Logf("user tag not salvaged from the %s index (its page was damaged): %s", how, r.stdout)
			}
		})
	}
}

// TestTruncatedModel installs a copy of the embedding model with a
// truncated and then a scribbled model.onnx: doctor reports the size or
// checksum mismatch, BM25 search works, hybrid query degrades to BM25
// and says so, vector search fails with a clear error; nothing crashes.
func TestTruncatedModel(t *testing.T) {
	needEmbedder(t)
	for _, how := range []string{"truncated", "scribbled"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, corpus(10, 6))
			models := filepath.Join(e.dir, "models")
			os.MkdirAll(filepath.Join(models, embedModel), 0o755)
			ents, _ := os.ReadDir(modelsDir())
			for _, d := range ents {
				if d.Name() != embedModel {
					os.Symlink(filepath.Join(modelsDir(), d.Name()), filepath.Join(models, d.Name()))
				}
			}
			for _, f := range []string{"manifest.json", "tokenizer.json", "model.onnx"} {
				b, err := os.ReadFile(filepath.Join(modelsDir(), embedModel, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "model.onnx" {
					if how == "truncated" {
						b = b[:len(b)/2]
					} else {
						for i := len(b) / 2; i < len(b)/2+4096; i++ {
							b[i] ^= 0x5a
						}
					}
				}
				os.WriteFile(filepath.Join(models, embedModel, f), b, 0o644)
			}
			for i, v := range e.vars {
				if strings.HasPrefix(v, "GNO_MODELS_DIR=") {
					e.vars[i] = "GNO_MODELS_DIR=" + models
				}
			}
			e.mustGno("update")
			doc := e.gno("doctor")
			if crashed(doc) || doc.err == nil {
				t.Errorf("doctor with a %s model: want a failure, got %s", how, doc)
			}
			want := map[string]string{"truncated": "bytes, want", "scribbled": "sha256"}[how]
			if !strings.Contains(doc.stdout, want) {
				t.Errorf("doctor with a %s model does not report the mismatch (%q): %s", how, want, doc.stdout)
			}
			t.Logf("doctor %s", doc.took)
			if r := e.gno("search", "sqlite"); r.err != nil {
				t.Errorf("BM25 search with a %s model: %s", how, r)
			}
			for _, args := range [][]string{{"query", "sqlite", "--json"}, {"embed"}, {"vsearch", "sqlite"}} {
				r := e.gno(args...)
				if crashed(r) {
					t.Errorf("%s with a %s model crashed: %s", args[0], how, r)
				}
				t.Logf("%s with a %s model: %s in %s", args[0], how, firstLine(r.stderr+r.stdout), r.took)
				if args[0] == "embed" && (r.err == nil || !strings.Contains(r.stderr, want)) {
					t.Errorf("embed with a %s model must refuse it (%q): %s", how, want, r)
				}
			}
		})
	}
}
