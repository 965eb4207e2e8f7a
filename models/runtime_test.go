package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// realLibrary returns a real ONNX Runtime library for p and its bytes:
// for the running Linux platform the one `make setup` installed, for
// darwin/arm64 and windows/amd64 the release copies in onnxruntime_go's
// module (test_data). The test is skipped when it is not on this machine.
func realLibrary(t *testing.T, p RuntimePlatform) []byte {
	t.Helper()
	var path string
	switch p.GOOS + "/" + p.GOARCH {
	case "darwin/arm64", "windows/amd64":
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yalue/onnxruntime_go").Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			t.Skipf("onnxruntime_go module not found: %v", err)
		}
		name := map[string]string{"darwin": "onnxruntime_arm64.dylib", "windows": "onnxruntime.dll"}[p.GOOS]
		path = filepath.Join(strings.TrimSpace(string(out)), "test_data", name)
	default:
		dir, err := DefaultDir()
		if err != nil {
			t.Skip(err)
		}
		path = filepath.Join(RuntimeDir(dir), p.Library)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no real ONNX Runtime library here (%v); run `gno setup`", err)
	}
	return b
}

// releaseTGZ builds a release archive the way microsoft/onnxruntime lays
// it out: TOP/lib/<versioned library> with the short names as symlinks.
func releaseTGZ(t *testing.T, p RuntimePlatform, lib []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression) // real gzip framing, no CPU
	tw := tar.NewWriter(gz)
	top := strings.SplitN(p.Member, "/", 2)[0]
	add := func(h *tar.Header, body []byte) {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	add(&tar.Header{Name: top + "/", Typeflag: tar.TypeDir, Mode: 0o755}, nil)
	add(&tar.Header{Name: top + "/LICENSE", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3}, []byte("MIT"))
	add(&tar.Header{Name: top + "/lib/", Typeflag: tar.TypeDir, Mode: 0o755}, nil)
	base := filepath.Base(p.Member)
	short := strings.Replace(base, "."+RuntimeVersion, "", 1)
	add(&tar.Header{Name: top + "/lib/" + short, Typeflag: tar.TypeSymlink, Linkname: base}, nil)
	add(&tar.Header{Name: p.Member, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(lib))}, lib)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func releaseZIP(t *testing.T, p RuntimePlatform, lib []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	top := strings.SplitN(p.Member, "/", 2)[0]
	for name, body := range map[string][]byte{top + "/LICENSE": []byte("MIT"), p.Member: lib} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileServer serves path -> body with Range support; drop makes the first
// full-body response stop halfway and close the connection.
type fileServer struct {
	mu     sync.Mutex
	files  map[string][]byte
	drop   map[string]bool
	ranges int
	hits   map[string]int
}

func (s *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.files[r.URL.Path]
	drop := s.drop[r.URL.Path] && r.Header.Get("Range") == ""
	if drop {
		s.drop[r.URL.Path] = false
	}
	if r.Header.Get("Range") != "" {
		s.ranges++
	}
	if s.hits == nil {
		s.hits = map[string]int{}
	}
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if drop {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	http.ServeContent(w, r, filepath.Base(r.URL.Path), time.Time{}, bytes.NewReader(body))
}

func quickOpts() PullOptions {
	return PullOptions{Retries: 2, StallTimeout: 5 * time.Second}
}

func TestInstallRuntimeReleaseArchive(t *testing.T) {
	for _, target := range []string{runtime.GOOS + "/" + runtime.GOARCH, "darwin/arm64", "windows/amd64"} {
		t.Run(strings.ReplaceAll(target, "/", "-"), func(t *testing.T) {
			goos, goarch, _ := strings.Cut(target, "/")
			p, err := LookupRuntime(goos, goarch)
			if err != nil {
				t.Skip(err)
			}
			lib := realLibrary(t, p)
			archive := releaseTGZ(t, p, lib)
			if strings.HasSuffix(p.Archive, ".zip") {
				archive = releaseZIP(t, p, lib)
			}
			fs := &fileServer{files: map[string][]byte{"/v" + RuntimeVersion + "/" + p.Archive: archive}}
			srv := httptest.NewServer(fs)
			defer srv.Close()
			dir := t.TempDir()
			res, err := InstallRuntime(context.Background(), dir, p, RuntimeSources{Release: srv.URL, NPM: srv.URL + "/npm"}, quickOpts())
			if err != nil {
				t.Fatal(err)
			}
			if res.Source != "release archive" || res.Path != filepath.Join(RuntimeDir(dir), p.Library) {
				t.Fatalf("got %+v", res)
			}
			got, err := os.ReadFile(res.Path)
			if err != nil || !bytes.Equal(got, lib) {
				t.Fatalf("installed library differs from the archive's (%v)", err)
			}
			if _, err := os.Stat(filepath.Join(RuntimeDir(dir), "download")); !os.IsNotExist(err) {
				t.Errorf("download folder left behind: %v", err)
			}
			// A second run keeps the verified library and fetches nothing.
			res, err = InstallRuntime(context.Background(), dir, p, RuntimeSources{Release: srv.URL}, quickOpts())
			if err != nil || res.Source != "installed already" {
				t.Fatalf("second run: %+v, %v", res, err)
			}
		})
	}
}

func TestInstallRuntimeResumesDroppedConnection(t *testing.T) {
	p, err := LookupRuntime("windows", "amd64") // any platform: only the bytes matter
	if err != nil {
		t.Fatal(err)
	}
	lib := realLibrary(t, p)
	path := "/v" + RuntimeVersion + "/" + p.Archive
	fs := &fileServer{files: map[string][]byte{path: releaseZIP(t, p, lib)}, drop: map[string]bool{path: true}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	res, err := InstallRuntime(context.Background(), t.TempDir(), p, RuntimeSources{Release: srv.URL, NPM: srv.URL}, quickOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "release archive" {
		t.Fatalf("source %q", res.Source)
	}
	if fs.ranges == 0 {
		t.Error("the dropped transfer was restarted from zero, not resumed with a Range request")
	}
}

func TestInstallRuntimeWrongChecksum(t *testing.T) {
	p, err := LookupRuntime("windows", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	lib := append([]byte(nil), realLibrary(t, p)...)
	lib[len(lib)/2] ^= 0xff // one flipped byte
	fs := &fileServer{files: map[string][]byte{"/v" + RuntimeVersion + "/" + p.Archive: releaseZIP(t, p, lib)}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	dir := t.TempDir()
	_, err = InstallRuntime(context.Background(), dir, p, RuntimeSources{Release: srv.URL, NPM: srv.URL + "/npm"}, quickOpts())
	if !errors.Is(err, ErrChecksum) && !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("want a checksum error, got %v", err)
	}
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("error should also report the mirror's 404: %v", err)
	}
	if _, err := os.Stat(filepath.Join(RuntimeDir(dir), p.Library)); !os.IsNotExist(err) {
		t.Fatalf("a library failing its checksum was installed: %v", err)
	}
}

func TestInstallRuntime404FallsBackToNPM(t *testing.T) {
	p, err := LookupRuntime("windows", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	lib := realLibrary(t, p) // the release build; the pins accept either build
	// The npm tarball's own pin is for the real package; this one is built
	// here, so the test swaps the pin and relies on the library's.
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/package.json", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2})
	tw.Write([]byte("{}"))
	tw.WriteHeader(&tar.Header{Name: p.NPMMember, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(lib))})
	tw.Write(lib)
	tw.Close()
	gz.Close()
	old := npmTarball
	npmTarball = File{Name: old.Name, SHA256: sum(buf.Bytes()), Size: int64(buf.Len())}
	defer func() { npmTarball = old }()

	fs := &fileServer{files: map[string][]byte{"/npm/" + old.Name: buf.Bytes()}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	res, err := InstallRuntime(context.Background(), t.TempDir(), p, RuntimeSources{Release: srv.URL, NPM: srv.URL + "/npm"}, quickOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "npm mirror" || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "404") {
		t.Fatalf("got %+v", res)
	}
	if fs.hits["/v"+RuntimeVersion+"/"+p.Archive] != 1 {
		t.Errorf("a 404 was retried: %d requests", fs.hits["/v"+RuntimeVersion+"/"+p.Archive])
	}
}

func TestInstallRuntimeAll404(t *testing.T) {
	p, err := LookupRuntime("linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&fileServer{files: map[string][]byte{}})
	defer srv.Close()
	dir := t.TempDir()
	_, err = InstallRuntime(context.Background(), dir, p, RuntimeSources{Release: srv.URL, NPM: srv.URL}, quickOpts())
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "gno setup") {
		t.Fatalf("want a 404 error naming `gno setup`, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(RuntimeDir(dir), p.Library)); !os.IsNotExist(err) {
		t.Fatal("something was installed")
	}
}

// Every platform gno builds for either has a source and pins, or says why
// not; file names are the ones inference/onnx looks for.
func TestRuntimePlatforms(t *testing.T) {
	want := map[string]string{
		"linux/amd64": "libonnxruntime.so." + RuntimeVersion, "linux/arm64": "libonnxruntime.so." + RuntimeVersion,
		"darwin/arm64": "libonnxruntime." + RuntimeVersion + ".dylib", "darwin/amd64": "libonnxruntime." + RuntimeVersion + ".dylib",
		"windows/amd64": "onnxruntime.dll",
	}
	for target, lib := range want {
		goos, goarch, _ := strings.Cut(target, "/")
		p, err := LookupRuntime(goos, goarch)
		if target == "darwin/amd64" {
			if !errors.Is(err, ErrUnsupportedPlatform) || !strings.Contains(err.Error(), "GNO_ORT_LIB") {
				t.Errorf("%s: want an unsupported-platform error naming GNO_ORT_LIB, got %v", target, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if p.Library != lib {
			t.Errorf("%s: library %q, want %q", target, p.Library, lib)
		}
		if len(p.SHA256) == 0 || p.Archive == "" || p.NPMMember == "" {
			t.Errorf("%s: missing pins or sources: %+v", target, p)
		}
		for _, s := range p.SHA256 {
			if !shaRE.MatchString(s) {
				t.Errorf("%s: bad pin %q", target, s)
			}
		}
		if !strings.HasPrefix(p.ArchiveURL(), "https://github.com/microsoft/onnxruntime/releases/download/v"+RuntimeVersion+"/onnxruntime-") {
			t.Errorf("%s: archive URL %s", target, p.ArchiveURL())
		}
	}
	if _, err := LookupRuntime("freebsd", "amd64"); !errors.Is(err, ErrUnsupportedPlatform) {
		t.Errorf("freebsd: %v", err)
	}
}
