//go:build freebsd || openbsd || netbsd || dragonfly

package wire

import (
	"syscall"
	"unsafe"
)

// peerUID cannot ask this OS; the socket folder's owner and mode (checked
// by CheckSocket) keep other users out.
func peerUID(int) (int, error) { return -1, nil }

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGETA, uintptr(unsafe.Pointer(&t)))
	return e == 0
}
