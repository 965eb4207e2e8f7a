package ingest

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readDir lists the folder at abs and returns, for its entries, a stat
// function that lstats one by name relative to the open folder
// (fstatat): an lstat of the full path resolves every folder above it
// again, the walk's largest cost on an unchanged collection (one call a
// file).
func readDir(abs string) ([]fs.DirEntry, func(fs.DirEntry) (fs.FileInfo, error), func(), error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, nil, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	fd := int(f.Fd())
	stat := func(d fs.DirEntry) (fs.FileInfo, error) {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, d.Name(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, err
		}
		return statInfo{name: d.Name(), st: &st}, nil
	}
	return entries, stat, func() { f.Close() }, nil
}

// statInfo is an fs.FileInfo of an fstatat result, with what a walk reads
// (type, size, modification time).
type statInfo struct {
	name string
	st   *unix.Stat_t
}

func (s statInfo) Name() string { return s.name }
func (s statInfo) Size() int64  { return s.st.Size }
func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	default:
		m |= fs.ModeIrregular
	}
	return m
}
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any           { return s.st }
