//go:build unix

package vector

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps path read-only (mapped false: read into memory). The file
// is replaced only by rename (Save), never rewritten in place, so a
// mapping stays whole while a new export is written.
func mapFile(path string) (b []byte, unmap func() error, mapped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, false, err
	}
	size := st.Size()
	if size == 0 {
		return nil, func() error { return nil }, false, nil
	}
	if size != int64(int(size)) {
		return nil, nil, false, fmt.Errorf("%d bytes: too large to map", size)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b, unmap, err = readFile(path)
		return b, unmap, false, err
	}
	adviseRandom(b)
	return b, func() error { return syscall.Munmap(b) }, true, nil
}

// releasePages drops a mapping's pages from the process (releaseUnused).
func releasePages(b []byte) { adviseUnneeded(b) }

// readFile is the fallback: the whole file in memory.
func readFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return nil }, nil
}
