//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package wire

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

func fileID(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return "-" + itoa(int64(st.Dev)) + "-" + itoa(int64(st.Ino))
	}
	return ""
}

// parent is the folder part of a slash-separated path (path/filepath is
// not imported here: see the package doc).
func parent(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

func trimSlash(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

func octal(m uint32) string {
	return string([]byte{byte('0' + m>>6&7), byte('0' + m>>3&7), byte('0' + m&7)})
}

// SocketDir is the folder of the daemons' sockets: $XDG_RUNTIME_DIR/gno,
// else gno-UID in the temporary folder (the daemon creates it, 0700).
func SocketDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && len(d) > 0 && d[0] == '/' {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d + "/gno"
		}
	}
	return trimSlash(os.TempDir()) + "/gno-" + itoa(int64(os.Getuid()))
}

// CheckSocket reports why the socket at path must not be used: its
// folder is not a real folder of the current user closed to others, or
// the socket is not the current user's.
func CheckSocket(path string) error {
	uid := uint32(os.Getuid())
	var st syscall.Stat_t
	if err := syscall.Lstat(parent(path), &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != uid || st.Mode&0o077 != 0 {
		return errors.New("socket folder is not this user's own (owner " + itoa(int64(st.Uid)) + ", mode " + octal(uint32(st.Mode&0o777)) + ")")
	}
	if err := syscall.Lstat(path, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK || st.Uid != uid {
		return errors.New("socket is not this user's (owner " + itoa(int64(st.Uid)) + ")")
	}
	return nil
}

// Conn is a client's connection to a daemon.
type Conn interface {
	io.ReadWriteCloser
	// SetReadTimeout sets how long a read waits (0: for ever).
	SetReadTimeout(time.Duration) error
}

// fdConn is a unix socket used with blocking reads and writes: a client
// has one request and nothing else to do meanwhile.
type fdConn struct{ *os.File }

func (c fdConn) SetReadTimeout(d time.Duration) error {
	tv := syscall.NsecToTimeval(int64(d))
	return syscall.SetsockoptTimeval(int(c.Fd()), syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
}

// Dial connects to the socket at path, waiting at most timeout to
// connect, and checks the process listening runs as the current user.
// Reads wait at most timeout too, until SetReadTimeout(0).
func Dial(path string, timeout time.Duration) (Conn, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	tv := syscall.NsecToTimeval(int64(timeout))
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	uid, err := peerUID(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if uid >= 0 && uid != os.Getuid() {
		syscall.Close(fd)
		return nil, errors.New("the daemon runs as another user (uid " + itoa(int64(uid)) + ")")
	}
	return fdConn{os.NewFile(uintptr(fd), path)}, nil
}

// PeerUID returns the user id of the process at the other end of the
// connected unix socket fd; -1 where the OS does not say.
func PeerUID(fd int) (int, error) { return peerUID(fd) }
