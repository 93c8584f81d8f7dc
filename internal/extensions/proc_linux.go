//go:build linux

package extensions

import "syscall"

// childProcAttr puts the child in its own process group (killed as one) and has the kernel kill it
// when pi-go dies without closing it.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
