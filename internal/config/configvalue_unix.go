//go:build unix

package config

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs the command in its own process group and kills the whole group on
// timeout, so a command's children (sleep, a hung password manager) do not outlive it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
