//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time used by the whole process so far (all threads: client, server, GC); ok is
// false where it cannot be read.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
