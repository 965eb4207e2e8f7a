//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package daemon

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"github.com/gnosearch/gno/server/daemon/wire"
)

// makeSocketDir creates the sockets' folder for the current user only
// (0700), or checks an existing one is theirs and closes it to others.
func makeSocketDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket folder %s is not a folder of this user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// listenSocket listens on the unix socket at path, readable by the user
// only (the folder already is).
func listenSocket(path string) (net.Listener, error) {
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// peerOK reports whether the process at the other end of c runs as this
// user (the folder's mode keeps others out already; this is the second
// lock on the door).
func peerOK(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	uid := -2
	raw.Control(func(fd uintptr) {
		if u, err := wire.PeerUID(int(fd)); err == nil {
			uid = u
		}
	})
	return uid == -1 || uid == os.Getuid()
}
