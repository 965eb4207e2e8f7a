//go:build unix

package onnx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps path read-only into memory: ONNX Runtime parses a model from
// the page cache without gno copying 30–100 MB onto its heap first. release
// unmaps it; the bytes must not be used after.
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, nil, fmt.Errorf("%s: too large to map", path)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() { unix.Munmap(data) }, nil
}
