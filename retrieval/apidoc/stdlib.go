package apidoc

import (
	"path"
	"strings"
)

// stdlibLimits raise the per-package bounds to a toolchain's size: Go's
// GOROOT/src parses ~6,000 files (tests with examples included) into
// ~40,000 units, Python's Lib ~1,000 modules. An explicit limit larger
// than these stays.
func stdlibLimits(l Limits) Limits {
	l.MaxFileBytes = max(l.MaxFileBytes, 4<<20)
	l.MaxTotalBytes = max(l.MaxTotalBytes, 1<<30)
	l.MaxFiles = max(l.MaxFiles, 40000)
	l.MaxUnits = max(l.MaxUnits, 200000)
	return l
}

// pyStdlibSkip leaves out the folders of Python's Lib that are no API a
// program imports: the test suites, IDLE, the Tk demos, 2to3, pip's
// bundled wheels, installed packages, caches and the build's config.
func pyStdlibSkip(d string) bool {
	b := path.Base(d)
	switch b {
	case "test", "tests", "idlelib", "turtledemo", "lib2to3", "ensurepip", "site-packages",
		"dist-packages", "__pycache__", "lib-dynload", "__phello__":
		return true
	}
	return strings.HasPrefix(b, ".") || strings.HasPrefix(b, "config-")
}
