//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package wire

import (
	"syscall"
	"unsafe"
)

// Width is the column count of the terminal at fd, 0 if it is none.
func Width(fd int) int {
	var ws struct{ row, col, x, y uint16 }
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
	if e != 0 {
		return 0
	}
	return int(ws.col)
}
