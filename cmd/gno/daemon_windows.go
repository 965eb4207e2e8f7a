package main

import (
	"errors"
	"syscall"
)

// detachedProcess starts the daemon without a console, in its own
// process group (Ctrl-C in the starting console leaves it be).
func detachedProcess() *syscall.SysProcAttr {
	const detachedProcess = 0x00000008
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess, HideWindow: true}
}

// terminate cannot signal a process on Windows: the daemon is stopped
// over its socket.
func terminate(int) error {
	return errors.New("the daemon does not answer on its socket; end it in the Task Manager (the index stays consistent)")
}
