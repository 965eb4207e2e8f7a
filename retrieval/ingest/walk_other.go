//go:build !linux

package ingest

import (
	"io/fs"
	"os"
)

// readDir lists the folder at abs; its entries are lstat-ed by path.
func readDir(abs string) ([]fs.DirEntry, func(fs.DirEntry) (fs.FileInfo, error), func(), error) {
	entries, err := os.ReadDir(abs)
	return entries, fs.DirEntry.Info, func() {}, err
}
