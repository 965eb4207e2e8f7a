//go:build !unix

package vector

import "os"

// mapFile reads the whole file where gno does not map files (Windows,
// wasm): searches behave the same, the process holds the file.
func mapFile(path string) ([]byte, func() error, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	return b, func() error { return nil }, false, nil
}

// releasePages is never called here: nothing is mapped.
func releasePages([]byte) {}
