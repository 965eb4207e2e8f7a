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

// readDir reads the entries of the folder at abs.
func readDir(abs string) (*folder, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return &folder{abs: abs, entries: entries}, nil
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
