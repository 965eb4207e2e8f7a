//go:build unix

package onnx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only into memory: ONNX Runtime parses a model from
// the page cache without gno copying 30–100 MB onto its heap first. release
// unmaps it; the bytes must not be used after. mapped is false when the
// bytes were read instead (an empty file here).
func mapFile(path string) (data []byte, release func(), mapped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, false, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, false, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, nil, false, fmt.Errorf("%s: too large to map", path)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false, fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() { unix.Munmap(data) }, true, nil
}
