//go:build !unix

package mcp

import (
	"os"
	"syscall"
)

const (
	sigTerm = syscall.Signal(15)
	sigKill = syscall.Signal(9)
)

// processGroupAttr: without process groups only the server itself is stopped.
func processGroupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, _ syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
