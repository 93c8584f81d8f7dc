//go:build !linux

package shell

import "syscall"

// sysProcAttr starts the shell as the leader of a new session: its own process group (killed as a
// whole on abort and timeout) and no controlling terminal. There is no parent-death signal here.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
