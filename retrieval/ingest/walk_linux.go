package ingest

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readDir lists the folder at abs and returns, for its entries, a stat
// function that lstats one by name relative to the open folder
// (fstatat): an lstat of the full path resolves every folder above it
// again, the walk's largest cost on an unchanged collection (one call a
// file). The result is a value, not an fs.FileInfo: a boxed stat a file
// was a million allocations a sync at 1M files.
func readDir(abs string) ([]fs.DirEntry, func(fs.DirEntry) (fileStat, error), func(), error) {
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
	stat := func(d fs.DirEntry) (fileStat, error) {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, d.Name(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fileStat{}, err
		}
		m := fs.FileMode(st.Mode & 0o777)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFDIR:
			m |= fs.ModeDir
		case unix.S_IFLNK:
			m |= fs.ModeSymlink
		default:
			m |= fs.ModeIrregular
		}
		return fileStat{mode: m, size: st.Size, mtimeNS: st.Mtim.Nano()}, nil
	}
	return entries, stat, func() { f.Close() }, nil
}
