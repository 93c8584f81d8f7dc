//go:build unix

package checkpoint

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroupOnCancel runs cmd in a process group of its own and makes cancelling its context kill the
// whole group: git gc runs repack, pack-objects and prune as children, which would otherwise go on
// holding the store after git itself was killed.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Should a killed child still hold git's output open, Wait gives up on it after this.
	cmd.WaitDelay = 5 * time.Second
}
