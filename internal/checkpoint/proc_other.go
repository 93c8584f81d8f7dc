//go:build !unix

package checkpoint

import (
	"os/exec"
	"time"
)

// killGroupOnCancel bounds the wait for a cancelled command's output (no process groups here).
func killGroupOnCancel(cmd *exec.Cmd) { cmd.WaitDelay = 5 * time.Second }
