//go:build unix

package extensions

import (
	"os/exec"
	"syscall"
)

// killGroup kills the child's whole process group (what it started goes with it).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
