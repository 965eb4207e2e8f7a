package wire

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func fileID(fs.FileInfo) string { return "" }

// SocketDir is the folder of the daemons' sockets: gno\run in the user's
// local application data, which only the user (and administrators) may
// open.
func SocketDir() string {
	d := os.Getenv("LOCALAPPDATA")
	if d == "" {
		d, _ = os.UserCacheDir()
	}
	return filepath.Join(d, "gno", "run")
}

// CheckSocket refuses a socket outside the user's own socket folder
// (Windows has no owner bits to read cheaply; the profile's access list
// keeps other users out of it).
func CheckSocket(path string) error {
	dir := SocketDir()
	if !strings.EqualFold(filepath.Clean(filepath.Dir(path)), filepath.Clean(dir)) {
		return errors.New("socket is not in " + dir)
	}
	_, err := os.Lstat(path)
	return err
}

// Conn is a client's connection to a daemon.
type Conn interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
	Close() error
	// SetReadTimeout sets how long a read waits (0: for ever).
	SetReadTimeout(time.Duration) error
}

type netConn struct{ net.Conn }

func (c netConn) SetReadTimeout(d time.Duration) error {
	if d == 0 {
		return c.SetReadDeadline(time.Time{})
	}
	return c.SetReadDeadline(time.Now().Add(d))
}

// Dial connects to the AF_UNIX socket at path, waiting at most timeout.
func Dial(path string, timeout time.Duration) (Conn, error) {
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return nil, err
	}
	nc := netConn{c}
	nc.SetReadTimeout(timeout)
	return nc, nil
}

// PeerUID is not available on Windows: -1.
func PeerUID(int) (int, error) { return -1, nil }

// IsTerminal reports whether fd is a console.
func IsTerminal(fd int) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}

// Width is 0: the daemon needs no console width on Windows.
func Width(int) int { return 0 }
