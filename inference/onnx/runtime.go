// Package onnx runs gno's embedding and cross-encoder models in-process
// with ONNX Runtime: tokenization, batched forward passes, pooling.
//
// ONNX Runtime is a shared library loaded at run time, not linked in, so a
// machine without it still runs BM25 search. FindLibrary locates it; Init
// loads it once per process.
//
// It owns running a model file; it must not download models (models does)
// or decide which model an index uses (retrieval's Models part does).
package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ORTVersion is the ONNX Runtime release whose C API onnxruntime_go
// v1.27.0 is built against (API version 24). Later releases also serve that
// API; earlier ones do not.
const ORTVersion = "1.24.1"

// EnvLibrary names the environment variable that points at the ONNX
// Runtime shared library.
const EnvLibrary = "GNO_ORT_LIB"

// ErrNoLibrary means no ONNX Runtime shared library was found.
var ErrNoLibrary = errors.New("ONNX Runtime library not found")

// LibrarySearch says where FindLibrary looks, in order.
type LibrarySearch struct {
	// ConfigPath is the path from gno's config; when set it must exist.
	ConfigPath string
	// ModelsDir is the model cache; `gno setup` and `gno models` place
	// the library in its "onnxruntime" folder.
	ModelsDir string
}

// libNames are the file names the library goes by, best first.
var libNames = []string{
	"libonnxruntime.so." + ORTVersion, "libonnxruntime.so.1", "libonnxruntime.so",
	"libonnxruntime." + ORTVersion + ".dylib", "libonnxruntime.dylib", "onnxruntime.dll",
}

// FindLibrary returns the ONNX Runtime shared library to load: the config
// path, then $GNO_ORT_LIB, then next to the gno binary, then the models
// cache. The error lists every place tried.
func FindLibrary(s LibrarySearch) (string, error) {
	if s.ConfigPath != "" {
		if err := isFile(s.ConfigPath); err != nil {
			return "", fmt.Errorf("ONNX Runtime library from config: %w", err)
		}
		return s.ConfigPath, nil
	}
	if p := os.Getenv(EnvLibrary); p != "" {
		if err := isFile(p); err != nil {
			return "", fmt.Errorf("ONNX Runtime library from $%s: %w", EnvLibrary, err)
		}
		return p, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		dirs = append(dirs, dir, filepath.Join(dir, "lib"))
	}
	if s.ModelsDir != "" {
		dirs = append(dirs, LibraryDir(s.ModelsDir))
	}
	var tried []string
	for _, d := range dirs {
		for _, n := range libNames {
			p := filepath.Join(d, n)
			if isFile(p) == nil {
				return p, nil
			}
			tried = append(tried, p)
		}
	}
	return "", fmt.Errorf("%w (run `gno setup`, or set $%s; looked in %s)",
		ErrNoLibrary, EnvLibrary, strings.Join(uniqueDirs(tried), ", "))
}

// LibraryDir is where the library lives inside a models cache.
func LibraryDir(modelsDir string) string { return filepath.Join(modelsDir, "onnxruntime") }

func uniqueDirs(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		d := filepath.Dir(p)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func isFile(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", p)
	}
	return nil
}

var rt struct {
	mu      sync.Mutex
	path    string
	version string
	err     error
}

// Init loads the ONNX Runtime library at path once per process. Later calls
// with the same path return the first result; a different path is an error,
// since one process can hold only one runtime.
func Init(path string) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.path != "" {
		if rt.path != path {
			return fmt.Errorf("ONNX Runtime already loaded from %s, cannot load %s", rt.path, path)
		}
		return rt.err
	}
	rt.path = path
	if err := isFile(path); err != nil {
		rt.err = fmt.Errorf("load ONNX Runtime: %w", err)
		return rt.err
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		rt.err = fmt.Errorf("load ONNX Runtime %s (gno needs version %s or later): %w", path, ORTVersion, err)
		return rt.err
	}
	rt.version = ort.GetVersion()
	if !versionAtLeast(rt.version, ORTVersion) {
		rt.err = fmt.Errorf("ONNX Runtime %s at %s is too old: gno needs %s or later", rt.version, path, ORTVersion)
		return rt.err
	}
	return nil
}

// Loaded returns the path and version of the runtime Init loaded, or an
// error when none is loaded.
func Loaded() (path, version string, err error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.path == "" {
		return "", "", errors.New("ONNX Runtime not loaded")
	}
	return rt.path, rt.version, rt.err
}

// ensureRuntime loads the library from path, or checks that one is loaded
// when path is empty.
func ensureRuntime(path string) error {
	if path == "" {
		_, _, err := Loaded()
		return err
	}
	return Init(path)
}

func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := 0; i < len(w); i++ {
		var a int
		if i < len(h) {
			a, _ = strconv.Atoi(h[i])
		}
		b, _ := strconv.Atoi(w[i])
		if a != b {
			return a > b
		}
	}
	return true
}

// DefaultThreads is the intra-op thread count used when none is set: 1.
// Measured on gno's 2-vCPU reference machine (MODELS.md), a second
// intra-op thread made every model slower (query p50 6.2 ms at 1 thread,
// 12 ms at 2 for bge-small int8) because the threads synchronise on every
// operator; throughput comes instead from running passes side by side
// (DefaultParallel).
func DefaultThreads() int { return 1 }

// DefaultParallel is how many forward passes one call runs at once when
// none is set: one per core.
func DefaultParallel() int { return runtime.NumCPU() }
