package ingest

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// folder is an open folder whose entries a walk reads in turn. On Linux
// the entries are read with getdents into one reused buffer and taken as
// they are there: os.File.ReadDir made an object and a string per entry,
// a million of each at a million files. Each file is lstat-ed by name
// relative to the open folder (fstatat): an lstat of the full path
// resolves every folder above it again, the walk's largest cost on an
// unchanged collection (one call a file).
type folder struct {
	f   *os.File
	fd  int
	buf *[]byte // every entry of the folder, as getdents gave them
	off int     // of the next entry in *buf
}

// folderBufs keeps the walk's entry buffers between folders.
var folderBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readDir opens the folder at abs and reads all its entries; an error
// leaves nothing open (the folder is unreadable, as a whole).
func readDir(abs string) (*folder, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	buf := folderBufs.Get().(*[]byte)
	b := (*buf)[:0]
	for {
		if cap(b)-len(b) < 8<<10 {
			nb := make([]byte, len(b), 2*cap(b))
			copy(nb, b)
			b = nb
		}
		n, err := unix.Getdents(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			*buf = b[:0]
			folderBufs.Put(buf)
			f.Close()
			return nil, &fs.PathError{Op: "readdirent", Path: abs, Err: err}
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	*buf = b
	return &folder{f: f, fd: fd, buf: buf}, nil
}

// Offsets in a linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// next returns the next entry's name (valid until close) and kind; ok is
// false after the last. "." and ".." are left out, as os.ReadDir does.
func (d *folder) next() (name []byte, kind entryKind, ok bool) {
	b := *d.buf
	for d.off+direntName <= len(b) {
		rec := b[d.off:]
		reclen := int(binary.NativeEndian.Uint16(rec[direntReclen:]))
		if reclen < direntName || reclen > len(rec) {
			d.off = len(b) // a damaged record: nothing after it can be trusted
			return nil, 0, false
		}
		d.off += reclen
		if binary.NativeEndian.Uint64(rec) == 0 { // no inode: a deleted entry
			continue
		}
		name = rec[direntName:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		switch rec[direntType] {
		case unix.DT_DIR:
			kind = kindDir
		case unix.DT_UNKNOWN:
			kind = kindUnknown
		default:
			kind = kindOther
		}
		return name, kind, true
	}
	return nil, 0, false
}

// stat lstats the entry name of the folder.
func (d *folder) stat(name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, err
		}
		break
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

// close closes the folder and gives its buffer back.
func (d *folder) close() {
	d.f.Close()
	*d.buf = (*d.buf)[:0]
	folderBufs.Put(d.buf)
}
