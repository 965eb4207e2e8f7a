//go:build linux || darwin

package server

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ProtectStdout hands the process's stdout to the caller for protocol
// messages and points file descriptor 1 at stderr, so nothing else (a
// stray print, a native library loading a model) can corrupt the
// JSON-RPC stream.
func ProtectStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("duplicate stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := dupTo(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("redirect stdout to stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "mcp-stdout"), nil
}
