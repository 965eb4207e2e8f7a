package wire

import (
	"syscall"
	"unsafe"
)

// xucred is struct xucred of <sys/ucred.h>.
type xucred struct {
	version uint32
	uid     uint32
	ngroups int16
	groups  [16]uint32
}

const (
	solLocal      = 0
	localPeercred = 1
	xucredVersion = 0
)

func peerUID(fd int) (int, error) {
	var c xucred
	n := uint32(unsafe.Sizeof(c))
	_, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), solLocal, localPeercred, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	if c.version != xucredVersion {
		return 0, syscall.EINVAL
	}
	return int(c.uid), nil
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGETA, uintptr(unsafe.Pointer(&t)))
	return e == 0
}
