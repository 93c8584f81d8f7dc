//go:build unix && !linux

package mcp

import "syscall"

// processGroupAttr puts the server in a new process group.
func processGroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
