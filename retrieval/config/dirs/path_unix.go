//go:build !windows

package dirs

import (
	"os"
	"path"
)

// join, isAbs and abs are path/filepath's on Unix (see the package doc).
func join(elem ...string) string { return path.Join(elem...) }

func isAbs(p string) bool { return p != "" && p[0] == '/' }

func abs(p string) (string, error) {
	if isAbs(p) {
		return path.Clean(p), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return path.Join(wd, p), nil
}
