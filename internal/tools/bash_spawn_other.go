//go:build !linux

package tools

import "syscall"

// bashSysProcAttr starts the shell as the leader of a new session: its own process group (killed as a
// whole on abort and timeout) and no controlling terminal. There is no parent-death signal here.
func bashSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
