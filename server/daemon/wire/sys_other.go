//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || windows)

package wire

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// errUnsupported: the daemon's socket is not offered on this OS.
var errUnsupported = errors.New("gno daemon sockets are not supported on this OS")

func fileID(fs.FileInfo) string { return "" }

// SocketDir is where sockets would lie.
func SocketDir() string { return filepath.Join(os.TempDir(), "gno") }

// CheckSocket fails: unsupported.
func CheckSocket(string) error { return errUnsupported }

// Conn is a client's connection to a daemon.
type Conn interface {
	io.ReadWriteCloser
	SetReadTimeout(time.Duration) error
}

// Dial fails: unsupported.
func Dial(string, time.Duration) (Conn, error) { return nil, errUnsupported }

// PeerUID is unknown: -1.
func PeerUID(int) (int, error) { return -1, nil }

// IsTerminal is false.
func IsTerminal(int) bool { return false }

// Width is 0.
func Width(int) int { return 0 }
