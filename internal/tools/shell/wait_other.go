//go:build !linux

package shell

import (
	"os/exec"
	"time"
)

// awaitExit reaps the shell when it exits (no portable way to wait without reaping here).
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	_ = cmd.Wait()
	return true
}

// awaitGroupGone is a no-op where process groups cannot be listed cheaply.
func awaitGroupGone(pgid int, max time.Duration) {}
