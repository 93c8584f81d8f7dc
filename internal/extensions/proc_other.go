//go:build unix && !linux

package extensions

import "syscall"

// childProcAttr puts the child in its own process group, killed as one when the host closes.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
