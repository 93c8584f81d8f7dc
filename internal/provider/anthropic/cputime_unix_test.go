//go:build unix

package anthropic

import (
	"syscall"
	"time"
)

// processCPU is the CPU time used by the whole process so far (all threads: client, server, GC), for
// benchmarks whose wall-clock time is distorted by other load on the machine.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
