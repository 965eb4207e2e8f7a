//go:build !linux

package ingest

import (
	"io/fs"
	"os"
)

// readDir lists the folder at abs; its entries are lstat-ed by path.
func readDir(abs string) ([]fs.DirEntry, func(fs.DirEntry) (fileStat, error), func(), error) {
	entries, err := os.ReadDir(abs)
	stat := func(d fs.DirEntry) (fileStat, error) {
		fi, err := d.Info()
		if err != nil {
			return fileStat{}, err
		}
		return statOf(fi), nil
	}
	return entries, stat, func() {}, err
}
