package apidoc

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The tests read real packages, fetched by each ecosystem's own client
// into one temporary folder per test binary. A missing client or network
// skips the ecosystem's tests with the reason.

var (
	fetchRoot string
	fetchMu   sync.Mutex
	fetched   = map[string]fetchResult{}
)

type fetchResult struct {
	dir string
	err error
}

func TestMain(m *testing.M) {
	var err error
	fetchRoot, err = os.MkdirTemp("", "apidoc-pkgs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(fetchRoot)
	os.Exit(code)
}

// fetchOnce runs fetch once per key and returns its folder, skipping tb
// when it fails.
func fetchOnce(tb testing.TB, key string, fetch func(dir string) (string, error)) string {
	tb.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	r, ok := fetched[key]
	if !ok {
		dir := filepath.Join(fetchRoot, strings.NewReplacer("/", "_", "@", "_").Replace(key))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		r.dir, r.err = fetch(dir)
		fetched[key] = r
	}
	if r.err != nil {
		tb.Skipf("%s not fetched: %v", key, r.err)
	}
	return r.dir
}

func run(dir string, env []string, name string, args ...string) ([]byte, error) {
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("client %s not installed", name)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 3))
	}
	return out, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// goModule fetches a module with `go mod download -json` (into the
// module cache, as a user's build would) and returns its folder.
func goModule(tb testing.TB, mod string) string {
	return fetchOnce(tb, "go:"+mod, func(dir string) (string, error) {
		out, err := run(dir, []string{"GOFLAGS=-mod=mod"}, "go", "mod", "download", "-json", mod)
		if err != nil {
			return "", err
		}
		var r struct{ Dir, Error string }
		if err := json.Unmarshal(out, &r); err != nil {
			return "", err
		}
		if r.Error != "" {
			return "", fmt.Errorf("%s", r.Error)
		}
		return r.Dir, nil
	})
}

// npmPackage fetches name@version with `npm pack` and unpacks it.
func npmPackage(tb testing.TB, spec string) string {
	return fetchOnce(tb, "npm:"+spec, func(dir string) (string, error) {
		out, err := run(dir, nil, "npm", "pack", "--silent", spec)
		if err != nil {
			return "", err
		}
		tgz := filepath.Join(dir, strings.TrimSpace(lastLines(string(out), 1)))
		dst := filepath.Join(dir, "pkg")
		if err := untgz(tgz, dst); err != nil {
			return "", err
		}
		return filepath.Join(dst, "package"), nil
	})
}

// pyWheel fetches name==version with `pip download --no-deps` and
// unpacks the wheel as pip would install it: the folder holds the
// package and its dist-info.
func pyWheel(tb testing.TB, spec string) string {
	return fetchOnce(tb, "pypi:"+spec, func(dir string) (string, error) {
		pip := "pip"
		args := []string{"download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", dir, spec}
		if _, err := exec.LookPath(pip); err != nil {
			pip = "pip3"
		}
		if _, err := run(dir, nil, pip, args...); err != nil {
			return "", err
		}
		whls, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
		if len(whls) != 1 {
			return "", fmt.Errorf("want one wheel, got %v", whls)
		}
		dst := filepath.Join(dir, "site-packages")
		return dst, unzip(whls[0], dst)
	})
}

// crates fetches crates with `cargo fetch` on a scratch manifest, with a
// temporary CARGO_HOME, and returns the registry source folder.
func crates(tb testing.TB) string {
	return cratesWith(tb, "crates", "anyhow = \"=1.0.98\"\nserde = { version = \"=1.0.219\", default-features = false }\n")
}

// cratesWith fetches the dependencies deps (Cargo.toml lines) once per key.
func cratesWith(tb testing.TB, key, deps string) string {
	return fetchOnce(tb, key, func(dir string) (string, error) {
		manifest := "[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n" + deps
		if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte(manifest), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "src", "lib.rs"), nil, 0o644); err != nil {
			return "", err
		}
		if _, err := run(dir, []string{"CARGO_HOME=" + filepath.Join(dir, "home")}, "cargo", "fetch", "--quiet"); err != nil {
			return "", err
		}
		srcs, _ := filepath.Glob(filepath.Join(dir, "home", "registry", "src", "*"))
		if len(srcs) == 0 {
			return "", fmt.Errorf("no registry sources after cargo fetch")
		}
		return srcs[0], nil
	})
}

// swiftPackage writes the fixture package (no Swift client is assumed).
func swiftPackage(tb testing.TB) string {
	return fetchOnce(tb, "swift:fixture", func(dir string) (string, error) {
		for name, content := range swiftFixture {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return "", err
			}
		}
		return dir, nil
	})
}

func untgz(file, dst string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := writeEntry(dst, h.Name, tr); err != nil {
			return err
		}
	}
}

func unzip(file, dst string) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		err = writeEntry(dst, f.Name, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func writeEntry(dst, name string, r io.Reader) error {
	p := filepath.Join(dst, filepath.FromSlash(name))
	if !strings.HasPrefix(p, filepath.Clean(dst)+string(filepath.Separator)) {
		return fmt.Errorf("archive entry %q leaves the folder", name)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	w, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
