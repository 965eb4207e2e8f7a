//go:build !linux

package ingest

import (
	"os"
	"path/filepath"
)

// folder is an open folder whose entries a walk reads in turn; its
// entries are lstat-ed by path.
type folder struct {
	abs     string
	entries []os.DirEntry
	off     int
}

// readDir reads the entries of the folder at abs. A listing that fails
// partway returns the entries read before the error with it: the walk
// goes on with them, and the folder is still unreadable (the documents
// of the entries it did not list are kept).
func readDir(abs string) (*folder, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	return &folder{abs: abs, entries: entries}, err
}

// next returns the next entry's name and kind; ok is false after the last.
func (d *folder) next() (name []byte, kind entryKind, ok bool) {
	if d.off >= len(d.entries) {
		return nil, 0, false
	}
	e := d.entries[d.off]
	d.off++
	kind = kindOther
	if e.IsDir() {
		kind = kindDir
	}
	return []byte(e.Name()), kind, true
}

// stat lstats the entry name of the folder.
func (d *folder) stat(name string) (fileStat, error) {
	fi, err := os.Lstat(filepath.Join(d.abs, name))
	if err != nil {
		return fileStat{}, err
	}
	return statOf(fi), nil
}

func (d *folder) close() {}
