//go:build !windows

package main

import (
	"os"
	"syscall"
)

// detachedProcess starts the daemon in its own session: no controlling
// terminal, not in the shell's process group (Ctrl-C and a closed
// terminal leave it be).
func detachedProcess() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// terminate asks process pid to stop (SIGTERM: the daemon stops cleanly).
func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(syscall.SIGTERM)
}
