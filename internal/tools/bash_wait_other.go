//go:build !linux

package tools

import (
	"os/exec"
	"time"
)

// bashAwaitExit reaps the shell when it exits (no portable way to wait without reaping here).
func bashAwaitExit(cmd *exec.Cmd) (reaped bool) {
	_ = cmd.Wait()
	return true
}

// bashAwaitGroupGone is a no-op where process groups cannot be listed cheaply.
func bashAwaitGroupGone(pgid int, max time.Duration) {}
