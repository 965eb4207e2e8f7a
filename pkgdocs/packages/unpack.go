package packages

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// unpackLimits bound what one archive may write, so a hostile package
// (a zip or gzip bomb, millions of entries) costs bounded disk and time
// whatever its headers claim.
type unpackLimits struct {
	maxFile    int64 // a larger file is skipped (docs never need it)
	maxTotal   int64 // past this the archive is refused
	maxEntries int
}

var defaultUnpack = unpackLimits{maxFile: 64 << 20, maxTotal: 1 << 30, maxEntries: 100_000}

// errUnsafeArchive is wrapped by every refusal of an archive.
var errUnsafeArchive = errors.New("unsafe archive")

// unpackTo extracts into dst atomically: into a temporary sibling first,
// renamed into place once complete, so dst is whole or absent. A dst
// already there (another run got there first) is kept.
func unpackTo(dst string, extract func(tmp string) error) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".unpack-")
	if err != nil {
		return err
	}
	if err := extract(tmp); err != nil {
		removeAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		removeAll(tmp)
		if _, serr := os.Stat(dst); serr == nil {
			return nil
		}
		return err
	}
	return nil
}

// archiveName checks an entry's name and returns its path below the
// extraction folder with strip leading components dropped; "" means skip
// the entry. Absolute names and names climbing out (..) are refused.
func archiveName(name string, strip int) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: entry name with a NUL byte", errUnsafeArchive)
	}
	name = strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':') {
		return "", fmt.Errorf("%w: absolute entry %q", errUnsafeArchive, name)
	}
	clean := path.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%w: entry %q climbs out", errUnsafeArchive, name)
	}
	if clean == "." {
		return "", nil
	}
	parts := strings.Split(clean, "/")
	if len(parts) <= strip {
		return "", nil
	}
	rel := filepath.FromSlash(strings.Join(parts[strip:], "/"))
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%w: entry %q is not a local path", errUnsafeArchive, name)
	}
	return rel, nil
}

// writer writes entries under one folder within limits.
type writer struct {
	root    string
	lim     unpackLimits
	total   int64
	entries int
}

func (w *writer) count(size int64) error {
	w.entries++
	if w.entries > w.lim.maxEntries {
		return fmt.Errorf("%w: more than %d entries", errUnsafeArchive, w.lim.maxEntries)
	}
	if size < 0 {
		return fmt.Errorf("%w: negative entry size", errUnsafeArchive)
	}
	w.total += size
	if w.total > w.lim.maxTotal {
		return fmt.Errorf("%w: expands past %d bytes", errUnsafeArchive, w.lim.maxTotal)
	}
	return nil
}

// file writes one regular file; content past size bytes (a header that
// lies) refuses the archive.
func (w *writer) file(rel string, r io.Reader, size int64, exec bool) error {
	dst := filepath.Join(w.root, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > size {
		return fmt.Errorf("%w: %s is larger than its header says", errUnsafeArchive, rel)
	}
	return nil
}

// unpackTarGz extracts a gzipped tar (an npm tarball, an sdist) into dst.
// Only files and folders are written: links and devices are skipped, so
// nothing can point out of dst.
func unpackTarGz(r io.Reader, dst string, strip int, lim unpackLimits) error {
	return unpackTo(dst, func(tmp string) error {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("not a gzip file: %w", err)
		}
		tr := tar.NewReader(gz)
		w := &writer{root: tmp, lim: lim}
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("corrupt tarball: %w", err)
			}
			if err := w.count(h.Size); err != nil {
				return err
			}
			rel, err := archiveName(h.Name, strip)
			if err != nil {
				return err
			}
			if rel == "" {
				continue
			}
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(filepath.Join(tmp, rel), 0o755); err != nil {
					return err
				}
			case tar.TypeReg:
				if h.Size > lim.maxFile {
					continue
				}
				if err := w.file(rel, tr, h.Size, h.Mode&0o111 != 0); err != nil {
					return err
				}
			}
		}
	})
}

// unpackZip extracts a zip (a wheel) into dst, under the same rules.
func unpackZip(file, dst string, lim unpackLimits) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("not a zip file: %w", err)
	}
	defer zr.Close()
	if len(zr.File) > lim.maxEntries {
		return fmt.Errorf("%w: more than %d entries", errUnsafeArchive, lim.maxEntries)
	}
	return unpackTo(dst, func(tmp string) error {
		w := &writer{root: tmp, lim: lim}
		for _, f := range zr.File {
			size := int64(f.UncompressedSize64)
			if f.UncompressedSize64 > 1<<62 {
				size = -1
			}
			if err := w.count(size); err != nil {
				return err
			}
			rel, err := archiveName(f.Name, 0)
			if err != nil {
				return err
			}
			if rel == "" {
				continue
			}
			mode := f.Mode()
			switch {
			case mode.IsDir():
				if err := os.MkdirAll(filepath.Join(tmp, rel), 0o755); err != nil {
					return err
				}
			case mode.IsRegular():
				if size > lim.maxFile {
					continue
				}
				rc, err := f.Open()
				if err != nil {
					return fmt.Errorf("corrupt zip entry %s: %w", f.Name, err)
				}
				err = w.file(rel, rc, size, mode&0o111 != 0)
				rc.Close()
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}
