package models

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestInstallRuntimeTogether: several `gno setup` at once install the
// runtime once. The server holds the archive until another install has
// said (through Progress) that it waits for the first, so the waiters
// are queued while the first deletes its download folder; each then
// finds the library installed. No waiter may fail on a lock file the
// first deleted, and the archive is fetched once.
func TestInstallRuntimeTogether(t *testing.T) {
	p, err := LookupRuntime("windows", "amd64") // any platform: only the bytes matter
	if err != nil {
		t.Fatal(err)
	}
	lib := realLibrary(t, p)
	path := "/v" + RuntimeVersion + "/" + p.Archive
	fs := &fileServer{files: map[string][]byte{path: releaseZIP(t, p, lib)}}
	waiting := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-waiting:
		case <-r.Context().Done():
			return
		}
		fs.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang detector only
	defer cancel()
	opt := quickOpts()
	opt.Progress = func(file string, _, _ int64) {
		if strings.HasPrefix(file, WaitingFor) {
			once.Do(func() { close(waiting) })
		}
	}
	dir := t.TempDir()
	const n = 4
	results := make(chan error, n)
	for range n {
		go func() {
			_, err := InstallRuntime(ctx, dir, p, RuntimeSources{Release: srv.URL, NPM: srv.URL + "/npm"}, opt)
			results <- err
		}()
	}
	for range n {
		if err := <-results; err != nil {
			t.Errorf("install: %v", err)
		}
	}
	got, err := os.ReadFile(filepath.Join(RuntimeDir(dir), p.Library))
	if err != nil || !bytes.Equal(got, lib) {
		t.Fatalf("installed library differs from the archive's (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(RuntimeDir(dir), "download")); !os.IsNotExist(err) {
		t.Errorf("download folder left behind: %v", err)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.hits[path] != 1 {
		t.Errorf("archive fetched %d times, want once", fs.hits[path])
	}
}

// TestPullAndImportTogether: pulls and `--from DIR` imports of one model
// run at once, again and again, on files already present. The tokenizer
// has no pin, so every run rewrites it and the manifest: each must go
// through its own temporary file or under the file's lock.
func TestPullAndImportTogether(t *testing.T) {
	files := testFiles(t)
	srv := filesServer(files)
	defer srv.Close()
	m := testModel(srv.URL, files)
	m.Files[1].SHA256 = ""
	from := t.TempDir()
	for p, b := range files {
		if err := os.WriteFile(filepath.Join(from, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := Cache{Dir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang detector only
	defer cancel()
	if err := c.Pull(ctx, m, quickOpts()); err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 6, 10
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				if i%2 == 0 {
					errs <- c.Pull(ctx, m, quickOpts())
				} else {
					errs <- c.Import(ctx, m, []string{from})
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := c.Verify("tiny"); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(c.ModelDir("tiny"), "*.*"))
	for _, p := range left {
		if strings.HasSuffix(p, ".tmp") || strings.HasSuffix(p, ".part") {
			t.Errorf("left behind: %s", p)
		}
	}
}

// A file installed with its pinned checksum is kept without taking a
// lock, so a verified install needs no writable folder.
func TestFetchVerifiedTakesNoLock(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "lib.so")
	body := []byte("installed")
	if err := os.WriteFile(final, body, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := fetchTo(context.Background(), final, File{Name: "lib.so", URL: "http://127.0.0.1:1/none", SHA256: sum(body)}, quickOpts())
	if err != nil || got != sum(body) {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := os.Stat(final + ".lock"); !os.IsNotExist(err) {
		t.Errorf("a lock file was made for a verified file: %v", err)
	}
}
