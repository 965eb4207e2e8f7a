//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package daemon

import (
	"net"
	"os"
)

// makeSocketDir creates the sockets' folder; on Windows it inherits the
// user profile's access list, which keeps other users out.
func makeSocketDir(dir string) error { return os.MkdirAll(dir, 0o700) }

// listenSocket listens on the AF_UNIX socket at path.
func listenSocket(path string) (net.Listener, error) {
	os.Remove(path)
	return net.Listen("unix", path)
}

// peerOK cannot ask this OS who the peer is; the folder's access list
// is the check.
func peerOK(net.Conn) bool { return true }
