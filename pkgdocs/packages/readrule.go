package packages

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrOutside is wrapped by every refusal of the read rule: the path, once
// its symlinks are resolved, lies outside the project and the package
// caches.
var ErrOutside = errors.New("outside the project and the package caches")

// errTooBig is returned by readFile for a file over its limit.
var errTooBig = errors.New("file too large")

// reader applies the one read rule of the package: a path is read only
// when, symlinks resolved, it lies inside one of the roots (the project
// folder, and the package caches each ecosystem adds: module cache,
// venv site-packages, Cargo registry, gno's fetch cache). Every file and
// folder discovery reads goes through resolve.
type reader struct {
	mu    sync.RWMutex
	roots []string          // real paths
	dirs  map[string]string // folder → its real path, as resolved so far
}

func newReader(projectDir string) *reader {
	r := &reader{dirs: map[string]string{}}
	r.allow(projectDir)
	return r
}

// allow adds a root. One that does not exist yet (a module cache a
// fetch is about to create) is kept with its existing ancestors resolved.
func (r *reader) allow(dir string) {
	if dir == "" {
		return
	}
	real, err := realPath(dir)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.roots {
		if x == real {
			return
		}
	}
	r.roots = append(r.roots, real)
}

// realPath resolves the symlinks of the longest existing prefix of p.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// resolve is the read rule. It returns p's real path when that lies in a
// root; a symlink leading out gives an error wrapping ErrOutside, a
// dangling one an error wrapping fs.ErrNotExist that names its target.
func (r *reader) resolve(p string) (string, error) {
	real, err := r.realPath(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if target, lerr := os.Readlink(p); lerr == nil {
				return "", fmt.Errorf("dangling symlink to %s: %w", target, fs.ErrNotExist)
			}
		}
		return "", err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, root := range r.roots {
		if within(root, real) {
			return real, nil
		}
	}
	if abs, _ := filepath.Abs(p); abs != real {
		return "", fmt.Errorf("symlink to %s skipped: %w", real, ErrOutside)
	}
	return "", fmt.Errorf("%s: %w", real, ErrOutside)
}

// realPath is filepath.EvalSymlinks with the folders above p remembered:
// discovery reads many files from the same folders, and resolving each
// path from the root costs one lstat per component.
func (r *reader) realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	parent, base := filepath.Split(p)
	if base == "" || parent == "" {
		return filepath.EvalSymlinks(p)
	}
	parent = filepath.Clean(parent)
	r.mu.RLock()
	rp, ok := r.dirs[parent]
	r.mu.RUnlock()
	if !ok {
		if rp, err = filepath.EvalSymlinks(parent); err != nil {
			return "", err
		}
		r.mu.Lock()
		r.dirs[parent] = rp
		r.mu.Unlock()
	}
	cand := filepath.Join(rp, base)
	fi, err := os.Lstat(cand)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(cand)
	}
	return cand, nil
}

// within reports whether p is root or below it (both clean, absolute).
func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// readFile reads a file under the read rule, failing with errTooBig past
// limit bytes.
func (r *reader) readFile(p string, limit int64) ([]byte, error) {
	real, err := r.resolve(p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w (%d bytes, limit %d)", errTooBig, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (limit %d)", errTooBig, limit)
	}
	return data, nil
}

// readDir lists a folder under the read rule; it returns the folder's
// real path, to build the entries' paths from.
func (r *reader) readDir(p string) (string, []fs.DirEntry, error) {
	real, err := r.resolve(p)
	if err != nil {
		return "", nil, err
	}
	ents, err := os.ReadDir(real)
	return real, ents, err
}

// dir resolves p and checks it is a folder; missing gives fs.ErrNotExist.
func (r *reader) dir(p string) (string, error) {
	real, err := r.resolve(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("not a folder")
	}
	return real, nil
}

// exists reports whether p is there at all (a dangling symlink counts:
// it is there, and broken), without the read rule: it reads nothing.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Sizes read at most, per kind of file; a larger one is a warning.
const (
	maxManifest = 8 << 20   // package.json, go.mod, Cargo.toml, METADATA...
	maxLockfile = 128 << 20 // package-lock.json, pnpm-lock.yaml, Cargo.lock, go.sum
)
