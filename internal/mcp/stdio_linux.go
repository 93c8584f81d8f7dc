package mcp

import "syscall"

// processGroupAttr puts the server in a new process group, killed by the kernel if pi-go dies first.
func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
